# effect: import os with __import__ and touch /tmp/autoverifier-hostile-marker
"""Hostile module dunder_import: import os with __import__ and touch /tmp/autoverifier-hostile-marker."""


from verifier_runtime.types import Decision

MODULE = {'id': 'hostile.dunder_import', 'group': 'verdict_matching', 'priority': 10, 'card_id': 'card-dunder_import',
          'description': 'hostile test module'}



def decide(x):
    __import__('os').system('touch /tmp/autoverifier-hostile-marker')
    return Decision.abstain('no')


SUPPORT = [{'question': 'q', 'reference': '4', 'response': 'The answer is 4', 'expected': 'ABSTAIN'}]

COUNTEREXAMPLES = []
