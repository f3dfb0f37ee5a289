# effect: square an integer in a loop until memory runs out
"""Hostile module augmented_pow_loop: square an integer in a loop until memory runs out."""


from verifier_runtime.types import Decision

MODULE = {'id': 'hostile.augmented_pow_loop', 'group': 'verdict_matching', 'priority': 10, 'card_id': 'card-augmented_pow_loop',
          'description': 'hostile test module'}



def decide(x):
    v = 3
    if 'TRIGGER' in x.response:
        for _ in range(64):
            v **= 2
        return Decision.passed('big')
    return Decision.abstain('no')


SUPPORT = [{'question': 'q', 'reference': '4', 'response': 'The answer is 4', 'expected': 'ABSTAIN'}]

COUNTEREXAMPLES = []
