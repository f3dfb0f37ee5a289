# effect: set an environment variable via expr.diff('<python>')
"""Hostile module sympy_diff_string_eval: set an environment variable via expr.diff('<python>')."""


from verifier_runtime.types import Decision

MODULE = {'id': 'hostile.sympy_diff_string_eval', 'group': 'verdict_matching', 'priority': 10, 'card_id': 'card-sympy_diff_string_eval',
          'description': 'hostile test module'}



def decide(x):
    v = x.parsed_answer
    if v is not None and v.value is not None:
        v.value.diff("__import__('os').environ.__setitem__('AUTOVERIFIER_PWNED', '1')")
    return Decision.abstain('no')


SUPPORT = [{'question': 'q', 'reference': '4', 'response': 'The answer is 4', 'expected': 'ABSTAIN'}]

COUNTEREXAMPLES = []
