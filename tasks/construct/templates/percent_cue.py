"""Percent versus fraction when the question asks for a percentage (or a probability).

Under the cue, ``45%``, ``45`` and ``0.45`` may all denote the same answer; which readings
count is what the drafter tunes (``bare_as_percent``: a bare number is read as percent).
"""

from fractions import Fraction

from verifier_runtime.types import Decision

GROUP = "numeric_unit"
PARAMS = {"cue": "percentage", "bare_as_percent": True, "on_mismatch": "ABSTAIN", "rel_tol": 0.0}
GRID = {
    "cue": ["percentage", "probability"],
    "bare_as_percent": [True, False],
    "on_mismatch": ["ABSTAIN", "FAIL"],
    "rel_tol": [0.0, 1e-3],
}
MEANING = {  # what each parameter means (shown on the module's card)
    "cue": "the question cue that turns the module on: percentage or probability",
    "bare_as_percent": "True: under the cue, a bare number (45) is read as a percent (45%)",
    "on_mismatch": ("what a confident mismatch gives: FAIL (mismatch detection) or ABSTAIN (leave it to "
                     "later modules and the judge)"),
    "rel_tol": "relative tolerance of the comparison (0: exact)",
}


def _readings(n):
    if n.is_percent:
        return {n.value / 100}
    if PARAMS["bare_as_percent"] and abs(n.value) > 1:
        return {n.value / 100}
    return {n.value, n.value / 100} if PARAMS["bare_as_percent"] else {n.value}


def _close(a, b):
    if a == b:
        return True
    tol = Fraction(PARAMS["rel_tol"]) * max(abs(a), abs(b))
    return tol > 0 and abs(a - b) <= tol


def decide(x):
    if x.number_answer is None or x.number_ref is None:
        return Decision.abstain("not_numbers")
    cues = x.cues
    cued = cues is not None and (cues.percentage if PARAMS["cue"] == "percentage" else cues.probability)
    if not cued or not x.answer or not x.ref:
        return Decision.abstain("no_cue")
    a, r = x.number_answer, x.number_ref
    if a is None or r is None or not (a.is_percent or r.is_percent or PARAMS["cue"] == "probability"):
        return Decision.abstain("not_percent_pair")
    ra, rr = _readings(a), _readings(r)
    if any(_close(p, q) for p in ra for q in rr):
        return Decision.passed("percent:same_value")
    if PARAMS["on_mismatch"] == "FAIL":
        return Decision.failed("percent:different_value")
    return Decision.abstain("percent:different_value")
