# effect: ask sympy for a billion digits (unbounded precision)
"""Hostile module sympy_evalf_precision: ask sympy for a billion digits (unbounded precision)."""


from verifier_runtime.types import Decision

MODULE = {'id': 'hostile.sympy_evalf_precision', 'group': 'verdict_matching', 'priority': 10, 'card_id': 'card-sympy_evalf_precision',
          'description': 'hostile test module'}



def decide(x):
    v = x.parsed_answer
    if v is not None:
        v.value.evalf(10 ** 9)
    return Decision.abstain('no')


SUPPORT = [{'question': 'q', 'reference': '4', 'response': 'The answer is 4', 'expected': 'ABSTAIN'}]

COUNTEREXAMPLES = []
