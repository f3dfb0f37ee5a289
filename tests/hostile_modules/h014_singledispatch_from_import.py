# effect: register a dispatch implementation process-wide
"""Hostile module singledispatch_from_import: register a dispatch implementation process-wide."""

from functools import singledispatch
from verifier_runtime.types import Decision

MODULE = {'id': 'hostile.singledispatch_from_import', 'group': 'verdict_matching', 'priority': 10, 'card_id': 'card-singledispatch_from_import',
          'description': 'hostile test module'}



def decide(x):
    return Decision.abstain('no')


SUPPORT = [{'question': 'q', 'reference': '4', 'response': 'The answer is 4', 'expected': 'ABSTAIN'}]

COUNTEREXAMPLES = []
