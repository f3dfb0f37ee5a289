# effect: use string.Template substitution machinery
"""Hostile module string_template: use string.Template substitution machinery."""

from string import Template
from verifier_runtime.types import Decision

MODULE = {'id': 'hostile.string_template', 'group': 'verdict_matching', 'priority': 10, 'card_id': 'card-string_template',
          'description': 'hostile test module'}



def decide(x):
    return Decision.abstain('no')


SUPPORT = [{'question': 'q', 'reference': '4', 'response': 'The answer is 4', 'expected': 'ABSTAIN'}]

COUNTEREXAMPLES = []
