# effect: drop into the debugger on the host
"""Hostile module breakpoint_call: drop into the debugger on the host."""


from verifier_runtime.types import Decision

MODULE = {'id': 'hostile.breakpoint_call', 'group': 'verdict_matching', 'priority': 10, 'card_id': 'card-breakpoint_call',
          'description': 'hostile test module'}



def decide(x):
    breakpoint()
    return Decision.abstain('no')


SUPPORT = [{'question': 'q', 'reference': '4', 'response': 'The answer is 4', 'expected': 'ABSTAIN'}]

COUNTEREXAMPLES = []
