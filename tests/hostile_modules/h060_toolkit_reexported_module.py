# effect: reach a module object re-exported by a toolkit module
"""Hostile module toolkit_reexported_module: reach a module object re-exported by a toolkit module."""

from verifier_runtime.toolkit.text import re
from verifier_runtime.types import Decision

MODULE = {'id': 'hostile.toolkit_reexported_module', 'group': 'verdict_matching', 'priority': 10, 'card_id': 'card-toolkit_reexported_module',
          'description': 'hostile test module'}



def decide(x):
    return Decision.abstain('no')


SUPPORT = [{'question': 'q', 'reference': '4', 'response': 'The answer is 4', 'expected': 'ABSTAIN'}]

COUNTEREXAMPLES = []
