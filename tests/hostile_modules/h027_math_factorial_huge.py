# effect: one uninterruptible C call: math.factorial(2*10**6)
"""Hostile module math_factorial_huge: one uninterruptible C call: math.factorial(2*10**6)."""

import math
from verifier_runtime.types import Decision

MODULE = {'id': 'hostile.math_factorial_huge', 'group': 'verdict_matching', 'priority': 10, 'card_id': 'card-math_factorial_huge',
          'description': 'hostile test module'}



def decide(x):
    math.factorial(2000000)
    return Decision.abstain('no')


SUPPORT = [{'question': 'q', 'reference': '4', 'response': 'The answer is 4', 'expected': 'ABSTAIN'}]

COUNTEREXAMPLES = []
