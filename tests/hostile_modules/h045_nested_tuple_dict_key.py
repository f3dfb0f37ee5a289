# effect: crash the host (SIGSEGV) hashing a million-deep tuple used as a dict key
"""Hostile module nested_tuple_dict_key: crash the host (SIGSEGV) hashing a million-deep tuple used as a dict key."""


from verifier_runtime.types import Decision

MODULE = {'id': 'hostile.nested_tuple_dict_key', 'group': 'verdict_matching', 'priority': 10, 'card_id': 'card-nested_tuple_dict_key',
          'description': 'hostile test module'}



def decide(x):
    if 'TRIGGER' in x.response:
        t = ()
        for _ in range(1000000):
            t = (t,)
        d = {t: 1}
        return Decision.passed('k')
    return Decision.abstain('no')


SUPPORT = [{'question': 'q', 'reference': '4', 'response': 'The answer is 4', 'expected': 'ABSTAIN'}]

COUNTEREXAMPLES = []
