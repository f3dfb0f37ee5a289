# effect: register str as a Callable process-wide through collections.abc
"""Hostile module abc_register_attribute: register str as a Callable process-wide through collections.abc."""

import collections
from verifier_runtime.types import Decision

MODULE = {'id': 'hostile.abc_register_attribute', 'group': 'verdict_matching', 'priority': 10, 'card_id': 'card-abc_register_attribute',
          'description': 'hostile test module'}



def decide(x):
    collections.abc.Callable.register(str)
    return Decision.abstain('no')


SUPPORT = [{'question': 'q', 'reference': '4', 'response': 'The answer is 4', 'expected': 'ABSTAIN'}]

COUNTEREXAMPLES = []
