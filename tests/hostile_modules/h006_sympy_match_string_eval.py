# effect: touch /tmp/autoverifier-hostile-marker via expr.match('<python>') (sympify evaluates strings)
"""Hostile module sympy_match_string_eval: touch /tmp/autoverifier-hostile-marker via expr.match('<python>') (sympify evaluates strings)."""


from verifier_runtime.types import Decision

MODULE = {'id': 'hostile.sympy_match_string_eval', 'group': 'verdict_matching', 'priority': 10, 'card_id': 'card-sympy_match_string_eval',
          'description': 'hostile test module'}



def decide(x):
    v = x.parsed_answer
    if v is not None and v.value is not None:
        v.value.match("__import__('os').system('touch /tmp/autoverifier-hostile-marker')")
    return Decision.abstain('no')


SUPPORT = [{'question': 'q', 'reference': '4', 'response': 'The answer is 4', 'expected': 'ABSTAIN'}]

COUNTEREXAMPLES = []
