# effect: import a toolkit submodule object and mutate it
"""Hostile module toolkit_module_object: import a toolkit submodule object and mutate it."""

from verifier_runtime.toolkit import text
from verifier_runtime.types import Decision

MODULE = {'id': 'hostile.toolkit_module_object', 'group': 'verdict_matching', 'priority': 10, 'card_id': 'card-toolkit_module_object',
          'description': 'hostile test module'}



def decide(x):
    text.normalize_text = None
    return Decision.abstain('no')


SUPPORT = [{'question': 'q', 'reference': '4', 'response': 'The answer is 4', 'expected': 'ABSTAIN'}]

COUNTEREXAMPLES = []
