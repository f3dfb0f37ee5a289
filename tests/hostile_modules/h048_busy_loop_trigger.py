# effect: hold the worker for ever on a trigger input (stealth: clean on the audit cases)
"""Hostile module busy_loop_trigger: hold the worker for ever on a trigger input (stealth: clean on the audit cases)."""


from verifier_runtime.types import Decision

MODULE = {'id': 'hostile.busy_loop_trigger', 'group': 'verdict_matching', 'priority': 10, 'card_id': 'card-busy_loop_trigger',
          'description': 'hostile test module'}



def decide(x):
    if 'TRIGGER' in x.response:
        n = 0
        while True:
            n += 1
    return Decision.abstain('no')


SUPPORT = [{'question': 'q', 'reference': '4', 'response': 'The answer is 4', 'expected': 'ABSTAIN'}]

COUNTEREXAMPLES = []
