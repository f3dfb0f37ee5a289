# effect: evaluate a string through typing.ForwardRef
"""Hostile module forward_ref: evaluate a string through typing.ForwardRef."""

import typing
from verifier_runtime.types import Decision

MODULE = {'id': 'hostile.forward_ref', 'group': 'verdict_matching', 'priority': 10, 'card_id': 'card-forward_ref',
          'description': 'hostile test module'}
REF = typing.ForwardRef("__import__('os')")


def decide(x):
    return Decision.abstain('no')


SUPPORT = [{'question': 'q', 'reference': '4', 'response': 'The answer is 4', 'expected': 'ABSTAIN'}]

COUNTEREXAMPLES = []
