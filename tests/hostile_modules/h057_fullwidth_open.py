# effect: read /etc/passwd through a full-width identifier that normalises to open
"""Hostile module fullwidth_open: read /etc/passwd through a full-width identifier that normalises to open."""


from verifier_runtime.types import Decision

MODULE = {'id': 'hostile.fullwidth_open', 'group': 'verdict_matching', 'priority': 10, 'card_id': 'card-fullwidth_open',
          'description': 'hostile test module'}



def decide(x):
    ｏｐｅｎ('/etc/passwd')
    return Decision.abstain('no')


SUPPORT = [{'question': 'q', 'reference': '4', 'response': 'The answer is 4', 'expected': 'ABSTAIN'}]

COUNTEREXAMPLES = []
