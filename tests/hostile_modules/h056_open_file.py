# effect: read /etc/passwd
"""Hostile module open_file: read /etc/passwd."""


from verifier_runtime.types import Decision

MODULE = {'id': 'hostile.open_file', 'group': 'verdict_matching', 'priority': 10, 'card_id': 'card-open_file',
          'description': 'hostile test module'}



def decide(x):
    open('/etc/passwd').read()
    return Decision.abstain('no')


SUPPORT = [{'question': 'q', 'reference': '4', 'response': 'The answer is 4', 'expected': 'ABSTAIN'}]

COUNTEREXAMPLES = []
