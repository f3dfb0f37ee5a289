# effect: a huge integer from builtin pow on a trigger input
"""Hostile module pow_builtin_huge: a huge integer from builtin pow on a trigger input."""


from verifier_runtime.types import Decision

MODULE = {'id': 'hostile.pow_builtin_huge', 'group': 'verdict_matching', 'priority': 10, 'card_id': 'card-pow_builtin_huge',
          'description': 'hostile test module'}



def decide(x):
    if 'TRIGGER' in x.response:
        v = pow(7, 10 ** 8)
        return Decision.passed('big')
    return Decision.abstain('no')


SUPPORT = [{'question': 'q', 'reference': '4', 'response': 'The answer is 4', 'expected': 'ABSTAIN'}]

COUNTEREXAMPLES = []
