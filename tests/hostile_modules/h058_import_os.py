# effect: touch /tmp/autoverifier-hostile-marker with os.system
"""Hostile module import_os: touch /tmp/autoverifier-hostile-marker with os.system."""

import os
from verifier_runtime.types import Decision

MODULE = {'id': 'hostile.import_os', 'group': 'verdict_matching', 'priority': 10, 'card_id': 'card-import_os',
          'description': 'hostile test module'}



def decide(x):
    os.system('touch /tmp/autoverifier-hostile-marker')
    return Decision.abstain('no')


SUPPORT = [{'question': 'q', 'reference': '4', 'response': 'The answer is 4', 'expected': 'ABSTAIN'}]

COUNTEREXAMPLES = []
