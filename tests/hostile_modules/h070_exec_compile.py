# effect: compile and exec a string
"""Hostile module exec_compile: compile and exec a string."""


from verifier_runtime.types import Decision

MODULE = {'id': 'hostile.exec_compile', 'group': 'verdict_matching', 'priority': 10, 'card_id': 'card-exec_compile',
          'description': 'hostile test module'}



def decide(x):
    exec(compile('1', 'x', 'eval'))
    return Decision.abstain('no')


SUPPORT = [{'question': 'q', 'reference': '4', 'response': 'The answer is 4', 'expected': 'ABSTAIN'}]

COUNTEREXAMPLES = []
