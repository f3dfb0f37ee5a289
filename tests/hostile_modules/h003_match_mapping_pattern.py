# effect: call a mapping's lookup hooks through a mapping pattern
"""Hostile module match_mapping_pattern: call a mapping's lookup hooks through a mapping pattern."""


from verifier_runtime.types import Decision

MODULE = {'id': 'hostile.match_mapping_pattern', 'group': 'verdict_matching', 'priority': 10, 'card_id': 'card-match_mapping_pattern',
          'description': 'hostile test module'}



def decide(x):
    match x.options:
        case {'A': a}:
            return Decision.passed('a')
    return Decision.abstain('no')


SUPPORT = [{'question': 'q', 'reference': '4', 'response': 'The answer is 4', 'expected': 'ABSTAIN'}]

COUNTEREXAMPLES = []
