# effect: make int a Sized for the whole process (collections.abc registration)
"""Hostile module abc_register_from_import: make int a Sized for the whole process (collections.abc registration)."""

from collections.abc import Sized
from verifier_runtime.types import Decision

MODULE = {'id': 'hostile.abc_register_from_import', 'group': 'verdict_matching', 'priority': 10, 'card_id': 'card-abc_register_from_import',
          'description': 'hostile test module'}



def decide(x):
    Sized.register(int)
    return Decision.abstain('no')


SUPPORT = [{'question': 'q', 'reference': '4', 'response': 'The answer is 4', 'expected': 'ABSTAIN'}]

COUNTEREXAMPLES = []
