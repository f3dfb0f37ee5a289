# effect: allocate without bound: list(itertools.repeat(0, 10**10))
"""Hostile module itertools_repeat_memory: allocate without bound: list(itertools.repeat(0, 10**10))."""

import itertools
from verifier_runtime.types import Decision

MODULE = {'id': 'hostile.itertools_repeat_memory', 'group': 'verdict_matching', 'priority': 10, 'card_id': 'card-itertools_repeat_memory',
          'description': 'hostile test module'}



def decide(x):
    list(itertools.repeat(0, 10000000000))
    return Decision.abstain('no')


SUPPORT = [{'question': 'q', 'reference': '4', 'response': 'The answer is 4', 'expected': 'ABSTAIN'}]

COUNTEREXAMPLES = []
