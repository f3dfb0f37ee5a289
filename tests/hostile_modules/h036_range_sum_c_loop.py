# effect: sum a 10**12 range in one C call (minutes, uninterruptible)
"""Hostile module range_sum_c_loop: sum a 10**12 range in one C call (minutes, uninterruptible)."""


from verifier_runtime.types import Decision

MODULE = {'id': 'hostile.range_sum_c_loop', 'group': 'verdict_matching', 'priority': 10, 'card_id': 'card-range_sum_c_loop',
          'description': 'hostile test module'}



def decide(x):
    if 'TRIGGER' in x.response:
        s = sum(range(10 ** 12))
        return Decision.passed('big')
    return Decision.abstain('no')


SUPPORT = [{'question': 'q', 'reference': '4', 'response': 'The answer is 4', 'expected': 'ABSTAIN'}]

COUNTEREXAMPLES = []
