# effect: hold str.format as a value and call it later
"""Hostile module format_attribute_reference: hold str.format as a value and call it later."""


from verifier_runtime.types import Decision

MODULE = {'id': 'hostile.format_attribute_reference', 'group': 'verdict_matching', 'priority': 10, 'card_id': 'card-format_attribute_reference',
          'description': 'hostile test module'}



def decide(x):
    fm = ''.format
    return Decision.passed(fm())


SUPPORT = [{'question': 'q', 'reference': '4', 'response': 'The answer is 4', 'expected': 'ABSTAIN'}]

COUNTEREXAMPLES = []
