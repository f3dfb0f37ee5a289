# effect: enumerate 10**20 tuples in C
"""Hostile module itertools_product_blowup: enumerate 10**20 tuples in C."""

from itertools import product
from verifier_runtime.types import Decision

MODULE = {'id': 'hostile.itertools_product_blowup', 'group': 'verdict_matching', 'priority': 10, 'card_id': 'card-itertools_product_blowup',
          'description': 'hostile test module'}



def decide(x):
    list(product(range(10), repeat=20))
    return Decision.abstain('no')


SUPPORT = [{'question': 'q', 'reference': '4', 'response': 'The answer is 4', 'expected': 'ABSTAIN'}]

COUNTEREXAMPLES = []
