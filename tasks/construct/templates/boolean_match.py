"""Yes/no and true/false answers compared as booleans."""

from verifier_runtime.toolkit.text import parse_bool
from verifier_runtime.types import Decision

GROUP = "verdict_matching"
PARAMS = {"on_mismatch": "FAIL"}
GRID = {"on_mismatch": ["FAIL", "ABSTAIN"]}
MEANING = {  # what each parameter means (shown on the module's card)
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
        return Decision.passed("bool:equal")
    if PARAMS["on_mismatch"] == "FAIL":
        return Decision.failed("bool:different")
    return Decision.abstain("bool:different")
