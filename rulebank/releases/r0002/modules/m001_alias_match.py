"""alias match (learned in round 1, cluster c0)

Template: alias_match (group verdict_matching). A reference that lists alternative answers (aliases): any alias found in the answer passes.

Why: corrects 318, saves 319 fallback calls, 1 new direct errors (within the allowed 1, listed on the card); cluster c0 of 319 residual examples: {"error_type": [["fallback_false_fail", 318], ["fallback_false_pass", 1]], "answer_object": [["long_text", 314], ["unparsed", 4], ["choice", 1]], "surface_form": [["whole|a", 41], ["whole|a a a a a a a a a a a a ", 41], ["whole|a a", 27], ["whole|a a a", 22], ["whole|a a a a a a a a a a a", 12]], "d
Card: r01-c0-0; revision 1.
"""

from verifier_runtime.toolkit.text import contains_answer, normalize_text, text_match
from verifier_runtime.types import Decision

PARAMS = {'max_answer_words': 12, 'min_alias_chars': 5, 'require_multiple': True, 'separator': '/'}
MATH_CHARS = "\\^=+*[]{}$"


def decide(x):
    a, r = x.answer, x.ref
    if not a or not r or PARAMS["separator"] not in r and PARAMS["require_multiple"]:
        return Decision.abstain("no_aliases")
    if len(a.split()) > PARAMS["max_answer_words"]:
        return Decision.abstain("answer_too_long")
    if x.number_ref is not None or any(ch in r for ch in MATH_CHARS):
        return Decision.abstain("mathematical_reference")
    aliases = [s.strip() for s in r.split(PARAMS["separator"])]
    aliases = [s for s in aliases if len(normalize_text(s)) >= PARAMS["min_alias_chars"]]
    if not aliases:
        return Decision.abstain("no_usable_alias")
    for alias in aliases:
        if text_match(a, alias):
            return Decision.passed("alias:equal")
        if contains_answer(a, alias):
            return Decision.passed("alias:in_answer")
    return Decision.abstain("alias:none_found")


MODULE = {'card_id': 'r01-c0-0',
 'description': 'alias match (learned in round 1, cluster c0)',
 'group': 'verdict_matching',
 'id': 'm001_alias_match',
 'priority': 301,
 'revision': 1,
 'template': 'alias_match'}

SUPPORT = [{'expected': 'PASS',
  'question': 'where is fulda and what is its significance',
  'reference': 'Hesse, Germany/on the river Fulda',
  'response': 'Hesse, Germany'},
 {'expected': 'PASS',
  'question': 'who sang the original song send in the clowns',
  'reference': 'Glynis Johns/the actress Glynis Johns',
  'response': 'glynis johns'},
 {'expected': 'PASS',
  'question': 'which is the ring finger for male in india',
  'reference': 'the left ring finger/left ring finger',
  'response': 'left ring finger'},
 {'expected': 'PASS',
  'question': 'what is the setting of a dolls house',
  'reference': 'a Norwegian town circa 1879/a Norwegian town',
  'response': 'a Norwegian town'}]

COUNTEREXAMPLES = [{'expected': 'ABSTAIN',
  'question': 'What is 7 x 8?\n(A) 54\n(B) 56\n(C) 58\n(D) 64',
  'reference': 'B',
  'response': 'The answer is 54.'},
 {'expected': 'ABSTAIN',
  'question': 'how many grams of alcohol in one beer',
  'reference': '14/about 14 grams of alcohol/14 grams',
  'response': '15.2'},
 {'expected': 'ABSTAIN',
  'question': 'when does jim propose to pam on the office',
  'reference': 'In the Season 5 premiere',
  'response': 'Casino Night'},
 {'expected': 'ABSTAIN',
  'question': 'Which of these is a prime number?\n(A) 21\n(B) 27\n(C) 29\n(D) 33',
  'reference': 'C',
  'response': 'The answer is 21.'}]
