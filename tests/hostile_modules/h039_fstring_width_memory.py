# effect: allocate with an f-string width
"""Hostile module fstring_width_memory: allocate with an f-string width."""


from verifier_runtime.types import Decision

MODULE = {'id': 'hostile.fstring_width_memory', 'group': 'verdict_matching', 'priority': 10, 'card_id': 'card-fstring_width_memory',
          'description': 'hostile test module'}



def decide(x):
    n = 10 ** 10
    s = f'{x.response:>{n}}'
    return Decision.abstain('no')


SUPPORT = [{'question': 'q', 'reference': '4', 'response': 'The answer is 4', 'expected': 'ABSTAIN'}]

COUNTEREXAMPLES = []
