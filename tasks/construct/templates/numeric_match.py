"""Numbers compared by exact value (or a relative tolerance), whatever their written form.

Both final answers must parse as plain numbers (integers, decimals, fractions, mixed
numbers, scientific notation). ``reference_kinds`` restricts the reference's written kind.
With ``on_mismatch`` FAIL it also rejects a different number (mismatch detection).
"""

from verifier_runtime.toolkit.numbers import numbers_close
from verifier_runtime.types import Decision

GROUP = "numeric_unit"
PARAMS = {"rel_tol": 0.0, "on_mismatch": "ABSTAIN", "reference_kinds": [], "skip_cued": True}
GRID = {
    "rel_tol": [0.0, 1e-6, 1e-3],
    "on_mismatch": ["ABSTAIN", "FAIL"],
    "reference_kinds": [[], ["integer"], ["integer", "decimal"], ["fraction", "mixed"]],
    "skip_cued": [True, False],
}
MEANING = {  # what each parameter means (shown on the module's card)
    "rel_tol": "relative tolerance between the two numbers (0: exact value)",
    "on_mismatch": ("what a confident mismatch gives: FAIL (mismatch detection) or ABSTAIN (leave it to "
                     "later modules and the judge)"),
    "reference_kinds": ("the written kinds of reference number considered (integer, decimal, fraction, "
                         "mixed); empty: all"),
    "skip_cued": ("True: abstain when the question asks for rounding, significant figures, a percentage or "
                   "a unit"),
}


def decide(x):
    if not x.answer or not x.ref:
        return Decision.abstain("no_answer")
    a, r = x.number_answer, x.number_ref
    if a is None or r is None:
        return Decision.abstain("not_numbers")
    if PARAMS["skip_cued"]:
        cues = x.cues
        if cues is not None and (cues.decimal_places is not None or cues.sig_figs is not None
                                 or cues.percentage or cues.unit):
            return Decision.abstain("cued_question")
    if PARAMS["reference_kinds"] and r.kind not in PARAMS["reference_kinds"]:
        return Decision.abstain("reference_kind")
    if a.is_percent != r.is_percent:
        return Decision.abstain("percent_mismatch")
    if numbers_close(a, r, rel_tol=PARAMS["rel_tol"]):
        return Decision.passed("number:equal")
    if PARAMS["on_mismatch"] == "FAIL":
        return Decision.failed("number:different")
    return Decision.abstain("number:different")
