# effect: rebind a module global from decide
"""Hostile module global_statement: rebind a module global from decide."""


from verifier_runtime.types import Decision

MODULE = {'id': 'hostile.global_statement', 'group': 'verdict_matching', 'priority': 10, 'card_id': 'card-global_statement',
          'description': 'hostile test module'}



def decide(x):
    global MODULE
    MODULE = {}
    return Decision.abstain('no')


SUPPORT = [{'question': 'q', 'reference': '4', 'response': 'The answer is 4', 'expected': 'ABSTAIN'}]

COUNTEREXAMPLES = []
