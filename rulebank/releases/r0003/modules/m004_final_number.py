"""final number (learned in round 2, cluster cov2)

Template: final_number (group answer_extraction). The number stated in a short final sentence, compared with a numeric reference.

Why: corrects 16, saves 95 fallback calls, no new direct error; cluster cov2 of 333 coverage examples: {"answer_object": "number", "extraction": "whole"}
Card: r02-cov2-0; revision 1.
"""

import re

from verifier_runtime.toolkit.numbers import numbers_close, parse_number
from verifier_runtime.types import Decision

PARAMS = {'max_answer_words': 25, 'on_mismatch': 'ABSTAIN', 'rel_tol': 0.0}
NUMBER_RE = re.compile(r"(?<![\w.,])-?(?:\d{1,3}(?:,\d{3})+|\d+)(?:\.\d+)?(?![\w,]|\.\d)")


def decide(x):
    a, r = x.answer, x.number_ref
    if not a or r is None or r.is_percent:
        return Decision.abstain("no_numeric_reference")
    if x.number_answer is not None or len(a.split()) > PARAMS["max_answer_words"]:
        return Decision.abstain("not_a_sentence_answer")
    found = NUMBER_RE.findall(a)
    if len(found) != 1:
        return Decision.abstain("not_exactly_one_number")
    n = parse_number(found[0])
    if n is None:
        return Decision.abstain("unparsed_number")
    if numbers_close(n, r, rel_tol=PARAMS["rel_tol"]):
        return Decision.passed("final_number:equal")
    if PARAMS["on_mismatch"] == "FAIL":
        return Decision.failed("final_number:different")
    return Decision.abstain("final_number:different")


MODULE = {'card_id': 'r02-cov2-0',
 'description': 'final number (learned in round 2, cluster cov2)',
 'group': 'answer_extraction',
 'id': 'm004_final_number',
 'priority': 154,
 'revision': 1,
 'template': 'final_number'}

SUPPORT = [{'expected': 'PASS',
  'question': 'when did the name of bombay change to mumbai',
  'reference': '1995',
  'response': 'November 1995'},
 {'expected': 'PASS',
  'question': 'when did the new day win the tag team titles',
  'reference': '2016',
  'response': 'December 14, 2016'},
 {'expected': 'PASS',
  'question': 'when was the 50th star added to the united states flag',
  'reference': '1960',
  'response': 'July 4, 1960'},
 {'expected': 'PASS',
  'question': 'when did last podcast on the left start',
  'reference': '2011',
  'response': 'Last Podcast on the Left started in 2011.'}]

COUNTEREXAMPLES = [{'expected': 'ABSTAIN',
  'question': 'Solve for x: 2x + 6 = 14.',
  'reference': '4',
  'response': 'The answer is 4.'},
 {'expected': 'ABSTAIN',
  'question': 'when did the eagles win the super bowl',
  'reference': '2017',
  'response': '2017'},
 {'expected': 'ABSTAIN',
  'question': 'when did the right to buy scheme start',
  'reference': '1980',
  'response': '1980'},
 {'expected': 'ABSTAIN',
  'question': 'how many episodes is ash vs evil dead season 3',
  'reference': '10',
  'response': '10'}]
