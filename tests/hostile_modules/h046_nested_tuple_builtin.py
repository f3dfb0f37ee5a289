# effect: crash the host hashing a deep tuple built with tuple()
"""Hostile module nested_tuple_builtin: crash the host hashing a deep tuple built with tuple()."""


from verifier_runtime.types import Decision

MODULE = {'id': 'hostile.nested_tuple_builtin', 'group': 'verdict_matching', 'priority': 10, 'card_id': 'card-nested_tuple_builtin',
          'description': 'hostile test module'}



def decide(x):
    if 'TRIGGER' in x.response:
        t = ()
        for _ in range(1000000):
            t = tuple([t])
        s = {t}
        return Decision.passed('k')
    return Decision.abstain('no')


SUPPORT = [{'question': 'q', 'reference': '4', 'response': 'The answer is 4', 'expected': 'ABSTAIN'}]

COUNTEREXAMPLES = []
