# effect: read attributes through str.format
"""Hostile module format_string_attribute: read attributes through str.format."""


from verifier_runtime.types import Decision

MODULE = {'id': 'hostile.format_string_attribute', 'group': 'verdict_matching', 'priority': 10, 'card_id': 'card-format_string_attribute',
          'description': 'hostile test module'}



def decide(x):
    return Decision.passed('{0.__class__}'.format(x))


SUPPORT = [{'question': 'q', 'reference': '4', 'response': 'The answer is 4', 'expected': 'ABSTAIN'}]

COUNTEREXAMPLES = []
