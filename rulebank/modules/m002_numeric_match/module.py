"""Numbers compared by exact value (or a relative tolerance), whatever their written form.

Both final answers must parse as plain numbers (integers, decimals, fractions, mixed
numbers, scientific notation). ``reference_kinds`` restricts the reference's written kind.
With ``on_mismatch`` FAIL it also rejects a different number (mismatch detection).
"""

from verifier_runtime.toolkit.numbers import numbers_close
from verifier_runtime.types import Decision



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
