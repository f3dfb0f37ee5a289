# effect: define a class with a hostile __eq__
"""Hostile module class_definition: define a class with a hostile __eq__."""


from verifier_runtime.types import Decision

MODULE = {'id': 'hostile.class_definition', 'group': 'verdict_matching', 'priority': 10, 'card_id': 'card-class_definition',
          'description': 'hostile test module'}



def decide(x):
    class E:
        pass
    return Decision.abstain('no')


SUPPORT = [{'question': 'q', 'reference': '4', 'response': 'The answer is 4', 'expected': 'ABSTAIN'}]

COUNTEREXAMPLES = []
