# effect: allocate 80 GB with one list repetition
"""Hostile module list_repeat_memory: allocate 80 GB with one list repetition."""


from verifier_runtime.types import Decision

MODULE = {'id': 'hostile.list_repeat_memory', 'group': 'verdict_matching', 'priority': 10, 'card_id': 'card-list_repeat_memory',
          'description': 'hostile test module'}



def decide(x):
    if 'TRIGGER' in x.response:
        s = [0] * (10 ** 10)
        return Decision.passed('big')
    return Decision.abstain('no')


SUPPORT = [{'question': 'q', 'reference': '4', 'response': 'The answer is 4', 'expected': 'ABSTAIN'}]

COUNTEREXAMPLES = []
