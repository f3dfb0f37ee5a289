# effect: reach frame globals through a generator's gi_frame
"""Hostile module generator_frame: reach frame globals through a generator's gi_frame."""


from verifier_runtime.types import Decision

MODULE = {'id': 'hostile.generator_frame', 'group': 'verdict_matching', 'priority': 10, 'card_id': 'card-generator_frame',
          'description': 'hostile test module'}



def decide(x):
    g = (i for i in range(1))
    f = g.gi_frame
    return Decision.abstain('no')


SUPPORT = [{'question': 'q', 'reference': '4', 'response': 'The answer is 4', 'expected': 'ABSTAIN'}]

COUNTEREXAMPLES = []
