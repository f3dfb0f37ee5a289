# effect: generate code with dataclasses.make_dataclass
"""Hostile module make_dataclass_exec: generate code with dataclasses.make_dataclass."""

import dataclasses
from verifier_runtime.types import Decision

MODULE = {'id': 'hostile.make_dataclass_exec', 'group': 'verdict_matching', 'priority': 10, 'card_id': 'card-make_dataclass_exec',
          'description': 'hostile test module'}
D = dataclasses.make_dataclass('D', ['a'])


def decide(x):
    return Decision.abstain('no')


SUPPORT = [{'question': 'q', 'reference': '4', 'response': 'The answer is 4', 'expected': 'ABSTAIN'}]

COUNTEREXAMPLES = []
