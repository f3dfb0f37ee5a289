# effect: one uninterruptible C call: math.comb(10**7, 5*10**6)
"""Hostile module math_comb_huge: one uninterruptible C call: math.comb(10**7, 5*10**6)."""

from math import comb
from verifier_runtime.types import Decision

MODULE = {'id': 'hostile.math_comb_huge', 'group': 'verdict_matching', 'priority': 10, 'card_id': 'card-math_comb_huge',
          'description': 'hostile test module'}



def decide(x):
    return Decision.abstain('no')


SUPPORT = [{'question': 'q', 'reference': '4', 'response': 'The answer is 4', 'expected': 'ABSTAIN'}]

COUNTEREXAMPLES = []
