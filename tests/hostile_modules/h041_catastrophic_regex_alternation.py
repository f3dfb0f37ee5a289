# effect: catastrophic backtracking: (a|aa)*b
"""Hostile module catastrophic_regex_alternation: catastrophic backtracking: (a|aa)*b."""

import re
from verifier_runtime.types import Decision

MODULE = {'id': 'hostile.catastrophic_regex_alternation', 'group': 'verdict_matching', 'priority': 10, 'card_id': 'card-catastrophic_regex_alternation',
          'description': 'hostile test module'}



def decide(x):
    if re.search(r'(a|aa)*b', x.response):
        return Decision.passed('m')
    return Decision.abstain('no')


SUPPORT = [{'question': 'q', 'reference': '4', 'response': 'The answer is 4', 'expected': 'ABSTAIN'}]

COUNTEREXAMPLES = []
