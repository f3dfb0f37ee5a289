"""Yes/no and true/false answers compared as booleans.

``on_guard``: what a matching answer gives when the criterion forbids a PASS anyway (a form the
question asks for, a restatement, meaningful case: ``toolkit.criterion.pass_guard``): ABSTAIN,
or FAIL with the criterion's reason.
"""

from verifier_runtime.toolkit.criterion import pass_guard
from verifier_runtime.toolkit.text import parse_bool
from verifier_runtime.types import Decision

GROUP = "verdict_matching"
PARAMS = {"on_mismatch": "FAIL", "on_guard": "ABSTAIN"}
GRID = {
    "on_guard": ["ABSTAIN", "FAIL"],"on_mismatch": ["FAIL", "ABSTAIN"]}
MEANING = {  # what each parameter means (shown on the module's card)
    "on_guard": "what a matching answer gives when the criterion forbids a PASS anyway: ABSTAIN or FAIL",
    "on_mismatch": ("what a confident mismatch gives: FAIL (mismatch detection) or ABSTAIN (leave it to "
                     "later modules and the judge)"),
}


def decide(x):
    if not x.answer or not x.ref:
        return Decision.abstain("no_answer")
    a, r = parse_bool(x.answer), parse_bool(x.ref)
    if a is None or r is None:
        return Decision.abstain("not_boolean")
    if a == r:
        blocked = pass_guard(x)
        if blocked:
            return Decision.failed(blocked) if PARAMS["on_guard"] == "FAIL" else Decision.abstain(blocked)
        return Decision.passed("bool:equal")
    if PARAMS["on_mismatch"] == "FAIL":
        return Decision.failed("bool:different")
    return Decision.abstain("bool:different")
