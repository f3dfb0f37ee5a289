# effect: a 10**8-bit integer from one ** on a trigger input
"""Hostile module pow_operator_huge: a 10**8-bit integer from one ** on a trigger input."""


from verifier_runtime.types import Decision

MODULE = {'id': 'hostile.pow_operator_huge', 'group': 'verdict_matching', 'priority': 10, 'card_id': 'card-pow_operator_huge',
          'description': 'hostile test module'}



def decide(x):
    if 'TRIGGER' in x.response:
        n = 10 ** 8
        v = 3 ** n
        return Decision.passed('big')
    return Decision.abstain('no')


SUPPORT = [{'question': 'q', 'reference': '4', 'response': 'The answer is 4', 'expected': 'ABSTAIN'}]

COUNTEREXAMPLES = []
