# effect: touch /tmp/autoverifier-hostile-marker through singledispatch.register with a string annotation
"""Hostile module singledispatch_string_annotation: touch /tmp/autoverifier-hostile-marker through singledispatch.register with a string annotation."""

import functools
from verifier_runtime.types import Decision

MODULE = {'id': 'hostile.singledispatch_string_annotation', 'group': 'verdict_matching', 'priority': 10, 'card_id': 'card-singledispatch_string_annotation',
          'description': 'hostile test module'}



def decide(x):
    def f(a):
        return a
    d = functools.singledispatch(f)
    d.register("__import__('os').system('touch /tmp/autoverifier-hostile-marker')", f)
    return Decision.abstain('no')


SUPPORT = [{'question': 'q', 'reference': '4', 'response': 'The answer is 4', 'expected': 'ABSTAIN'}]

COUNTEREXAMPLES = []
