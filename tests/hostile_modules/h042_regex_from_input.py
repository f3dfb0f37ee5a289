# effect: compile a pattern taken from the input (any pattern, any cost)
"""Hostile module regex_from_input: compile a pattern taken from the input (any pattern, any cost)."""

import re
from verifier_runtime.types import Decision

MODULE = {'id': 'hostile.regex_from_input', 'group': 'verdict_matching', 'priority': 10, 'card_id': 'card-regex_from_input',
          'description': 'hostile test module'}



def decide(x):
    if re.search(x.reference, x.response):
        return Decision.passed('m')
    return Decision.abstain('no')


SUPPORT = [{'question': 'q', 'reference': '4', 'response': 'The answer is 4', 'expected': 'ABSTAIN'}]

COUNTEREXAMPLES = []
