"""final number (learned in round 6, cluster cov2)

Module m011_final_number, revision 1, card r06-cov2-1; template final_number a144e3cd5450.

The number stated in a short final sentence, compared with a numeric reference.

Final answers such as "So the result is 2,304." or "There are 203 members." carry one
number inside words. When the extracted answer holds exactly one number (thousands
separators allowed) and the reference is a number, compare the two by value.

``on_guard``: what a matching answer gives when the criterion forbids a PASS anyway (a form the
question asks for, a restatement, meaningful case: ``toolkit.criterion.pass_guard``): ABSTAIN,
or FAIL with the criterion's reason.

Why: corrects 0, saves 89 fallback calls, no new direct error. Learned in round 6 from cluster cov2: 355 examples the judge decided correctly, which a module can take over without a judge call (answer_object number, extraction whole).
"""

import re

from verifier_runtime.toolkit.criterion import compare_numbers, pass_guard
from verifier_runtime.toolkit.numbers import parse_number
from verifier_runtime.types import Decision

PARAMS = {'max_answer_words': 25, 'on_guard': 'ABSTAIN', 'on_mismatch': 'ABSTAIN'}

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
    j = compare_numbers(n, r, x.cues, x)
    if j.correct:
        blocked = pass_guard(x)
        if blocked:
            return Decision.failed(blocked) if PARAMS["on_guard"] == "FAIL" else Decision.abstain(blocked)
        return Decision.passed("final_number:equal")
    if PARAMS["on_mismatch"] == "FAIL" and j.reason.startswith("differ"):
        return Decision.failed("final_number:different")
    return Decision.abstain("final_number:different")


MODULE = {'card_id': 'r06-cov2-1',
 'description': 'final number (learned in round 6, cluster cov2)',
 'group': 'answer_extraction',
 'id': 'm011_final_number',
 'priority': 161,
 'revision': 1,
 'template': 'final_number'}
