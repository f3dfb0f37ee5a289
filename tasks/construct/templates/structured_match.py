"""Sets, intervals, tuples and matrices compared element by element."""

from verifier_runtime.toolkit.compare import compare_answers
from verifier_runtime.types import Decision

GROUP = "verdict_matching"
PARAMS = {"kinds": ["set", "interval", "tuple", "matrix"], "on_mismatch": "ABSTAIN", "rel_tol": 0.0}
GRID = {
    "kinds": [["set", "interval", "tuple", "matrix"], ["set"], ["interval"], ["tuple"], ["matrix"]],
    "on_mismatch": ["ABSTAIN", "FAIL"],
    "rel_tol": [0.0, 1e-6],
}
MEANING = {  # what each parameter means (shown on the module's card)
    "kinds": "which structures are compared (set, interval, tuple, matrix)",
    "on_mismatch": ("what a confident mismatch gives: FAIL (mismatch detection) or ABSTAIN (leave it to "
                     "later modules and the judge)"),
    "rel_tol": "relative tolerance of element-wise numeric comparison (0: exact)",
}


def decide(x):
    r = x.parsed_ref
    if r is None or r.kind not in PARAMS["kinds"]:
        return Decision.abstain("not_structured")
    a = x.parsed_answer
    if a is None:
        return Decision.abstain("not_structured")
    c = compare_answers(a, r, rel_tol=PARAMS["rel_tol"])
    if c.equal is True:
        return Decision.passed(f"{r.kind}:{c.detail}")
    if c.equal is False and PARAMS["on_mismatch"] == "FAIL":
        return Decision.failed(f"{r.kind}:{c.detail}")
    return Decision.abstain(f"{r.kind}:undecided")
