# effect: reach a function's code object
"""Hostile module lambda_code: reach a function's code object."""


from verifier_runtime.types import Decision

MODULE = {'id': 'hostile.lambda_code', 'group': 'verdict_matching', 'priority': 10, 'card_id': 'card-lambda_code',
          'description': 'hostile test module'}



def decide(x):
    f = lambda: 0
    c = f.__code__
    return Decision.abstain('no')


SUPPORT = [{'question': 'q', 'reference': '4', 'response': 'The answer is 4', 'expected': 'ABSTAIN'}]

COUNTEREXAMPLES = []
