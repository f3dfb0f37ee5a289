# effect: touch /tmp/autoverifier-hostile-marker via expr.subs('y', '<python>') (sympify evaluates strings)
"""Hostile module sympy_subs_string_eval: touch /tmp/autoverifier-hostile-marker via expr.subs('y', '<python>') (sympify evaluates strings)."""


from verifier_runtime.types import Decision

MODULE = {'id': 'hostile.sympy_subs_string_eval', 'group': 'verdict_matching', 'priority': 10, 'card_id': 'card-sympy_subs_string_eval',
          'description': 'hostile test module'}



def decide(x):
    v = x.parsed_answer
    if v is not None:
        v.value.subs('y', "__import__('os').system('touch /tmp/autoverifier-hostile-marker')")
    return Decision.abstain('no')


SUPPORT = [{'question': 'q', 'reference': '4', 'response': 'The answer is 4', 'expected': 'ABSTAIN'}]

COUNTEREXAMPLES = []
