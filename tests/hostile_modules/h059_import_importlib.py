# effect: import anything with importlib
"""Hostile module import_importlib: import anything with importlib."""

import importlib
from verifier_runtime.types import Decision

MODULE = {'id': 'hostile.import_importlib', 'group': 'verdict_matching', 'priority': 10, 'card_id': 'card-import_importlib',
          'description': 'hostile test module'}



def decide(x):
    return Decision.abstain('no')


SUPPORT = [{'question': 'q', 'reference': '4', 'response': 'The answer is 4', 'expected': 'ABSTAIN'}]

COUNTEREXAMPLES = []
