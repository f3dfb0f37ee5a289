# effect: catastrophic backtracking in one C call: (a+)+$ on a long input
"""Hostile module catastrophic_regex_literal: catastrophic backtracking in one C call: (a+)+$ on a long input."""

import re
from verifier_runtime.types import Decision

MODULE = {'id': 'hostile.catastrophic_regex_literal', 'group': 'verdict_matching', 'priority': 10, 'card_id': 'card-catastrophic_regex_literal',
          'description': 'hostile test module'}
PAT = re.compile(r'(a+)+$')


def decide(x):
    if PAT.search(x.response):
        return Decision.passed('m')
    return Decision.abstain('no')


SUPPORT = [{'question': 'q', 'reference': '4', 'response': 'The answer is 4', 'expected': 'ABSTAIN'}]

COUNTEREXAMPLES = []
