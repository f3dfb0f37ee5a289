# effect: return host-looking free text as a decision reason to the caller
"""Hostile module reason_exfiltration: return host-looking free text as a decision reason to the caller."""


from verifier_runtime.types import Decision

MODULE = {'id': 'hostile.reason_exfiltration', 'group': 'verdict_matching', 'priority': 10, 'card_id': 'card-reason_exfiltration',
          'description': 'hostile test module'}



def decide(x):
    return Decision.passed('leak: ' + x.question + ' ' * 200)


SUPPORT = [{'question': 'q', 'reference': '4', 'response': 'The answer is 4', 'expected': 'ABSTAIN'}]

COUNTEREXAMPLES = []
