# effect: spin for ever in one C call: deque(itertools.count(), maxlen=0)
"""Hostile module deque_count_c_loop: spin for ever in one C call: deque(itertools.count(), maxlen=0)."""

import itertools
from collections import deque
from verifier_runtime.types import Decision

MODULE = {'id': 'hostile.deque_count_c_loop', 'group': 'verdict_matching', 'priority': 10, 'card_id': 'card-deque_count_c_loop',
          'description': 'hostile test module'}



def decide(x):
    deque(itertools.count(), maxlen=0)
    return Decision.abstain('no')


SUPPORT = [{'question': 'q', 'reference': '4', 'response': 'The answer is 4', 'expected': 'ABSTAIN'}]

COUNTEREXAMPLES = []
