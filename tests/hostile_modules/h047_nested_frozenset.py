# effect: crash the host hashing a deep frozenset
"""Hostile module nested_frozenset: crash the host hashing a deep frozenset."""


from verifier_runtime.types import Decision

MODULE = {'id': 'hostile.nested_frozenset', 'group': 'verdict_matching', 'priority': 10, 'card_id': 'card-nested_frozenset',
          'description': 'hostile test module'}



def decide(x):
    if 'TRIGGER' in x.response:
        t = frozenset()
        for _ in range(1000000):
            t = frozenset([t])
        s = {t}
        return Decision.passed('k')
    return Decision.abstain('no')


SUPPORT = [{'question': 'q', 'reference': '4', 'response': 'The answer is 4', 'expected': 'ABSTAIN'}]

COUNTEREXAMPLES = []
