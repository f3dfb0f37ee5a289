# effect: enter a decimal context (changes the thread's context)
"""Hostile module decimal_localcontext: enter a decimal context (changes the thread's context)."""

from decimal import localcontext
from verifier_runtime.types import Decision

MODULE = {'id': 'hostile.decimal_localcontext', 'group': 'verdict_matching', 'priority': 10, 'card_id': 'card-decimal_localcontext',
          'description': 'hostile test module'}



def decide(x):
    return Decision.abstain('no')


SUPPORT = [{'question': 'q', 'reference': '4', 'response': 'The answer is 4', 'expected': 'ABSTAIN'}]

COUNTEREXAMPLES = []
