# effect: allocate with str.center(10**10)
"""Hostile module str_center_memory: allocate with str.center(10**10)."""


from verifier_runtime.types import Decision

MODULE = {'id': 'hostile.str_center_memory', 'group': 'verdict_matching', 'priority': 10, 'card_id': 'card-str_center_memory',
          'description': 'hostile test module'}



def decide(x):
    x.response.center(10 ** 10)
    return Decision.abstain('no')


SUPPORT = [{'question': 'q', 'reference': '4', 'response': 'The answer is 4', 'expected': 'ABSTAIN'}]

COUNTEREXAMPLES = []
