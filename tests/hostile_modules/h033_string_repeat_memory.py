# effect: allocate 10 GB with one string repetition
"""Hostile module string_repeat_memory: allocate 10 GB with one string repetition."""


from verifier_runtime.types import Decision

MODULE = {'id': 'hostile.string_repeat_memory', 'group': 'verdict_matching', 'priority': 10, 'card_id': 'card-string_repeat_memory',
          'description': 'hostile test module'}



def decide(x):
    if 'TRIGGER' in x.response:
        s = 'a' * (10 ** 10)
        return Decision.passed('big')
    return Decision.abstain('no')


SUPPORT = [{'question': 'q', 'reference': '4', 'response': 'The answer is 4', 'expected': 'ABSTAIN'}]

COUNTEREXAMPLES = []
