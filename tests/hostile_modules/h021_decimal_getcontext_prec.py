# effect: lower the process-wide decimal precision
"""Hostile module decimal_getcontext_prec: lower the process-wide decimal precision."""

import decimal
from verifier_runtime.types import Decision

MODULE = {'id': 'hostile.decimal_getcontext_prec', 'group': 'verdict_matching', 'priority': 10, 'card_id': 'card-decimal_getcontext_prec',
          'description': 'hostile test module'}



def decide(x):
    c = decimal.getcontext()
    c.prec = 3
    return Decision.abstain('no')


SUPPORT = [{'question': 'q', 'reference': '4', 'response': 'The answer is 4', 'expected': 'ABSTAIN'}]

COUNTEREXAMPLES = []
