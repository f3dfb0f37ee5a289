# effect: reach object internals through a class pattern keyword (__class__)
"""Hostile module match_class_dunder: reach object internals through a class pattern keyword (__class__)."""


from verifier_runtime.types import Decision

MODULE = {'id': 'hostile.match_class_dunder', 'group': 'verdict_matching', 'priority': 10, 'card_id': 'card-match_class_dunder',
          'description': 'hostile test module'}



def decide(x):
    match x:
        case object(__class__=c):
            return Decision.abstain(str(c))
    return Decision.abstain('no')


SUPPORT = [{'question': 'q', 'reference': '4', 'response': 'The answer is 4', 'expected': 'ABSTAIN'}]

COUNTEREXAMPLES = []
