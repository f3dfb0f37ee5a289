# effect: evaluate a string annotation with typing.get_type_hints
"""Hostile module get_type_hints: evaluate a string annotation with typing.get_type_hints."""

from typing import get_type_hints
from verifier_runtime.types import Decision

MODULE = {'id': 'hostile.get_type_hints', 'group': 'verdict_matching', 'priority': 10, 'card_id': 'card-get_type_hints',
          'description': 'hostile test module'}



def decide(x):
    return Decision.abstain('no')


SUPPORT = [{'question': 'q', 'reference': '4', 'response': 'The answer is 4', 'expected': 'ABSTAIN'}]

COUNTEREXAMPLES = []
