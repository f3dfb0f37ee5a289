# effect: materialise a 10**12 range in one C call
"""Hostile module range_list_memory: materialise a 10**12 range in one C call."""


from verifier_runtime.types import Decision

MODULE = {'id': 'hostile.range_list_memory', 'group': 'verdict_matching', 'priority': 10, 'card_id': 'card-range_list_memory',
          'description': 'hostile test module'}



def decide(x):
    if 'TRIGGER' in x.response:
        s = list(range(10 ** 12))
        return Decision.passed('big')
    return Decision.abstain('no')


SUPPORT = [{'question': 'q', 'reference': '4', 'response': 'The answer is 4', 'expected': 'ABSTAIN'}]

COUNTEREXAMPLES = []
