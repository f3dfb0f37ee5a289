# effect: call .register on any object (ABC or dispatch table)
"""Hostile module abc_register_method_name: call .register on any object (ABC or dispatch table)."""


from verifier_runtime.types import Decision

MODULE = {'id': 'hostile.abc_register_method_name', 'group': 'verdict_matching', 'priority': 10, 'card_id': 'card-abc_register_method_name',
          'description': 'hostile test module'}



def decide(x):
    x.options.register(x)
    return Decision.abstain('no')


SUPPORT = [{'question': 'q', 'reference': '4', 'response': 'The answer is 4', 'expected': 'ABSTAIN'}]

COUNTEREXAMPLES = []
