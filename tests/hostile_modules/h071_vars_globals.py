# effect: read the module namespace with vars()
"""Hostile module vars_globals: read the module namespace with vars()."""


from verifier_runtime.types import Decision

MODULE = {'id': 'hostile.vars_globals', 'group': 'verdict_matching', 'priority': 10, 'card_id': 'card-vars_globals',
          'description': 'hostile test module'}



def decide(x):
    v = vars()
    return Decision.abstain('no')


SUPPORT = [{'question': 'q', 'reference': '4', 'response': 'The answer is 4', 'expected': 'ABSTAIN'}]

COUNTEREXAMPLES = []
