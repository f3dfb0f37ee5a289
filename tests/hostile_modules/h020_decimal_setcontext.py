# effect: replace the process-wide decimal context
"""Hostile module decimal_setcontext: replace the process-wide decimal context."""

import decimal
from verifier_runtime.types import Decision

MODULE = {'id': 'hostile.decimal_setcontext', 'group': 'verdict_matching', 'priority': 10, 'card_id': 'card-decimal_setcontext',
          'description': 'hostile test module'}



def decide(x):
    decimal.setcontext(decimal.Context(prec=2))
    return Decision.abstain('no')


SUPPORT = [{'question': 'q', 'reference': '4', 'response': 'The answer is 4', 'expected': 'ABSTAIN'}]

COUNTEREXAMPLES = []
