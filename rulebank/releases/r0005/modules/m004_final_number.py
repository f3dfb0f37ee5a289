"""final number (learned in round 2, cluster cov2)

Module m004_final_number, revision 1, card r02-cov2-0; template final_number 1b7658cc18c5.

The number stated in a short final sentence, compared with a numeric reference.

Final answers such as "So the result is 2,304." or "There are 203 members." carry one
number inside words. When the extracted answer holds exactly one number (thousands
separators allowed) and the reference is a number, compare the two by value.

Why: corrects 16, saves 95 fallback calls, no new direct error. Learned in round 2 from cluster cov2: 333 examples the judge decided correctly, which a module can take over without a judge call (answer_object number, extraction whole).
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
