# effect: read OPENAI_API_KEY through str.format reached by a class pattern's keyword attribute
"""Hostile module match_class_format_kwd: read OPENAI_API_KEY through str.format reached by a class pattern's keyword attribute."""


from verifier_runtime.types import Decision

MODULE = {'id': 'hostile.match_class_format_kwd', 'group': 'verdict_matching', 'priority': 10, 'card_id': 'card-match_class_format_kwd',
          'description': 'hostile test module'}



def decide(x):
    match x.response:
        case str(format=fm):
            return Decision.passed(fm('{0}', x.question))
    return Decision.abstain('no')


SUPPORT = [{'question': 'q', 'reference': '4', 'response': 'The answer is 4', 'expected': 'ABSTAIN'}]

COUNTEREXAMPLES = []
