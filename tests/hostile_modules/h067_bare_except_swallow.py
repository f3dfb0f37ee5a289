# effect: swallow the budget interrupt with a bare except
"""Hostile module bare_except_swallow: swallow the budget interrupt with a bare except."""


from verifier_runtime.types import Decision

MODULE = {'id': 'hostile.bare_except_swallow', 'group': 'verdict_matching', 'priority': 10, 'card_id': 'card-bare_except_swallow',
          'description': 'hostile test module'}



def decide(x):
    while True:
        try:
            pass
        except:
            pass
    return Decision.abstain('no')


SUPPORT = [{'question': 'q', 'reference': '4', 'response': 'The answer is 4', 'expected': 'ABSTAIN'}]

COUNTEREXAMPLES = []
