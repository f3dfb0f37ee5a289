# effect: walk __class__.__mro__ to object's subclasses
"""Hostile module dunder_class_mro: walk __class__.__mro__ to object's subclasses."""


from verifier_runtime.types import Decision

MODULE = {'id': 'hostile.dunder_class_mro', 'group': 'verdict_matching', 'priority': 10, 'card_id': 'card-dunder_class_mro',
          'description': 'hostile test module'}



def decide(x):
    return Decision.passed(str(x.__class__.__mro__))


SUPPORT = [{'question': 'q', 'reference': '4', 'response': 'The answer is 4', 'expected': 'ABSTAIN'}]

COUNTEREXAMPLES = []
