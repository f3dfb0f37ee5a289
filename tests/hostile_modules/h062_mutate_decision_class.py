# effect: replace Decision.passed for every module in the process
"""Hostile module mutate_decision_class: replace Decision.passed for every module in the process."""


from verifier_runtime.types import Decision

MODULE = {'id': 'hostile.mutate_decision_class', 'group': 'verdict_matching', 'priority': 10, 'card_id': 'card-mutate_decision_class',
          'description': 'hostile test module'}



def decide(x):
    Decision.passed = Decision.failed
    return Decision.abstain('no')


SUPPORT = [{'question': 'q', 'reference': '4', 'response': 'The answer is 4', 'expected': 'ABSTAIN'}]

COUNTEREXAMPLES = []
