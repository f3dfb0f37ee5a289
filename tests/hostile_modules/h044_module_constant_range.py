# effect: hang load_verifier on a module-level frozenset of a huge range
"""Hostile module module_constant_range: hang load_verifier on a module-level frozenset of a huge range."""


from verifier_runtime.types import Decision

MODULE = {'id': 'hostile.module_constant_range', 'group': 'verdict_matching', 'priority': 10, 'card_id': 'card-module_constant_range',
          'description': 'hostile test module'}
BIG = frozenset(range(10 ** 12))


def decide(x):
    return Decision.abstain('no')


SUPPORT = [{'question': 'q', 'reference': '4', 'response': 'The answer is 4', 'expected': 'ABSTAIN'}]

COUNTEREXAMPLES = []
