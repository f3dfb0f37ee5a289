# effect: reach xreplace (evaluates nothing itself, but is on the string-entry list)
"""Hostile module sympy_xreplace: reach xreplace (evaluates nothing itself, but is on the string-entry list)."""


from verifier_runtime.types import Decision

MODULE = {'id': 'hostile.sympy_xreplace', 'group': 'verdict_matching', 'priority': 10, 'card_id': 'card-sympy_xreplace',
          'description': 'hostile test module'}



def decide(x):
    v = x.parsed_answer
    if v is not None:
        v.value.xreplace({})
    return Decision.abstain('no')


SUPPORT = [{'question': 'q', 'reference': '4', 'response': 'The answer is 4', 'expected': 'ABSTAIN'}]

COUNTEREXAMPLES = []
