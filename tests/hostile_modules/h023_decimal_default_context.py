# effect: mutate decimal.DefaultContext (the template of every new thread's context)
"""Hostile module decimal_default_context: mutate decimal.DefaultContext (the template of every new thread's context)."""

import decimal
from verifier_runtime.types import Decision

MODULE = {'id': 'hostile.decimal_default_context', 'group': 'verdict_matching', 'priority': 10, 'card_id': 'card-decimal_default_context',
          'description': 'hostile test module'}



def decide(x):
    decimal.DefaultContext.traps.clear()
    return Decision.abstain('no')


SUPPORT = [{'question': 'q', 'reference': '4', 'response': 'The answer is 4', 'expected': 'ABSTAIN'}]

COUNTEREXAMPLES = []
