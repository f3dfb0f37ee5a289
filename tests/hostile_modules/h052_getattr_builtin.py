# effect: reach any attribute with getattr
"""Hostile module getattr_builtin: reach any attribute with getattr."""


from verifier_runtime.types import Decision

MODULE = {'id': 'hostile.getattr_builtin', 'group': 'verdict_matching', 'priority': 10, 'card_id': 'card-getattr_builtin',
          'description': 'hostile test module'}



def decide(x):
    return Decision.passed(getattr(x, 'response'))


SUPPORT = [{'question': 'q', 'reference': '4', 'response': 'The answer is 4', 'expected': 'ABSTAIN'}]

COUNTEREXAMPLES = []
