# effect: a 10**10-bit integer from one shift
"""Hostile module lshift_huge: a 10**10-bit integer from one shift."""


from verifier_runtime.types import Decision

MODULE = {'id': 'hostile.lshift_huge', 'group': 'verdict_matching', 'priority': 10, 'card_id': 'card-lshift_huge',
          'description': 'hostile test module'}



def decide(x):
    if 'TRIGGER' in x.response:
        v = 1 << (10 ** 10)
        return Decision.passed('big')
    return Decision.abstain('no')


SUPPORT = [{'question': 'q', 'reference': '4', 'response': 'The answer is 4', 'expected': 'ABSTAIN'}]

COUNTEREXAMPLES = []
