# effect: hang load_verifier on a module-level constant (factorial at import)
"""Hostile module module_constant_c_loop: hang load_verifier on a module-level constant (factorial at import)."""

import math
from verifier_runtime.types import Decision

MODULE = {'id': 'hostile.module_constant_c_loop', 'group': 'verdict_matching', 'priority': 10, 'card_id': 'card-module_constant_c_loop',
          'description': 'hostile test module'}
BIG = math.factorial(10000000)


def decide(x):
    return Decision.abstain('no')


SUPPORT = [{'question': 'q', 'reference': '4', 'response': 'The answer is 4', 'expected': 'ABSTAIN'}]

COUNTEREXAMPLES = []
