# effect: allocate with str.zfill(10**10)
"""Hostile module str_zfill_memory: allocate with str.zfill(10**10)."""


from verifier_runtime.types import Decision

MODULE = {'id': 'hostile.str_zfill_memory', 'group': 'verdict_matching', 'priority': 10, 'card_id': 'card-str_zfill_memory',
          'description': 'hostile test module'}



def decide(x):
    x.response.zfill(10 ** 10)
    return Decision.abstain('no')


SUPPORT = [{'question': 'q', 'reference': '4', 'response': 'The answer is 4', 'expected': 'ABSTAIN'}]

COUNTEREXAMPLES = []
