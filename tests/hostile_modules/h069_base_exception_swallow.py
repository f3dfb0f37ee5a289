# effect: swallow the budget interrupt by catching BaseException
"""Hostile module base_exception_swallow: swallow the budget interrupt by catching BaseException."""


from verifier_runtime.types import Decision

MODULE = {'id': 'hostile.base_exception_swallow', 'group': 'verdict_matching', 'priority': 10, 'card_id': 'card-base_exception_swallow',
          'description': 'hostile test module'}



def decide(x):
    try:
        while True:
            pass
    except BaseException:
        return Decision.abstain('no')
    return Decision.abstain('no')


SUPPORT = [{'question': 'q', 'reference': '4', 'response': 'The answer is 4', 'expected': 'ABSTAIN'}]

COUNTEREXAMPLES = []
