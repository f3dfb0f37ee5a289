"""The number stated in a short final sentence, compared with a numeric reference.

Final answers such as "So the result is 2,304." or "There are 203 members." carry one
number inside words. When the extracted answer holds exactly one number (thousands
separators allowed) and the reference is a number, compare the two by value.

``on_guard``: what a matching answer gives when the criterion forbids a PASS anyway (a form the
question asks for, a restatement, meaningful case: ``toolkit.criterion.pass_guard``): ABSTAIN,
or FAIL with the criterion's reason.
"""

import re

from verifier_runtime.toolkit.criterion import compare_numbers, pass_guard
from verifier_runtime.toolkit.numbers import parse_number
from verifier_runtime.types import Decision

GROUP = "answer_extraction"
PARAMS = {"max_answer_words": 12, "on_mismatch": "ABSTAIN", "on_guard": "ABSTAIN"}
GRID = {"on_guard": ["ABSTAIN", "FAIL"], "max_answer_words": [6, 12, 25], "on_mismatch": ["ABSTAIN", "FAIL"]}
MEANING = {  # what each parameter means (shown on the module's card)
    "on_guard": "what a matching answer gives when the criterion forbids a PASS anyway: ABSTAIN or FAIL",
    "max_answer_words": "the longest final sentence (in words) the single number is read from",
    "on_mismatch": ("what a confident mismatch gives: FAIL (mismatch detection) or ABSTAIN (leave it to "
                     "later modules and the judge)"),
}
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
