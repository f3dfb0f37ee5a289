# effect: read attributes of the triple through positional class patterns
"""Hostile module match_class_star_attrs: read attributes of the triple through positional class patterns."""


from verifier_runtime.types import Decision

MODULE = {'id': 'hostile.match_class_star_attrs', 'group': 'verdict_matching', 'priority': 10, 'card_id': 'card-match_class_star_attrs',
          'description': 'hostile test module'}



def decide(x):
    match x:
        case type(mro=m):
            return Decision.abstain('m')
    return Decision.abstain('no')


SUPPORT = [{'question': 'q', 'reference': '4', 'response': 'The answer is 4', 'expected': 'ABSTAIN'}]

COUNTEREXAMPLES = []
