# effect: swallow the budget interrupt with return in finally
"""Hostile module finally_return_swallow: swallow the budget interrupt with return in finally."""


from verifier_runtime.types import Decision

MODULE = {'id': 'hostile.finally_return_swallow', 'group': 'verdict_matching', 'priority': 10, 'card_id': 'card-finally_return_swallow',
          'description': 'hostile test module'}



def decide(x):
    try:
        while True:
            pass
    finally:
        return Decision.abstain('no')


SUPPORT = [{'question': 'q', 'reference': '4', 'response': 'The answer is 4', 'expected': 'ABSTAIN'}]

COUNTEREXAMPLES = []
