"""Numbers under a rounding cue in the question (decimal places or significant figures).

PASS when the response's number equals the reference once both are rounded as the
question asks; with ``on_mismatch`` FAIL, a number that still differs after rounding fails.
"""

from verifier_runtime.toolkit.numbers import matches_with_rounding
from verifier_runtime.types import Decision

GROUP = "numeric_unit"
PARAMS = {"cue": "decimal_places", "on_mismatch": "ABSTAIN"}
GRID = {"cue": ["decimal_places", "sig_figs"], "on_mismatch": ["ABSTAIN", "FAIL"]}
MEANING = {  # what each parameter means (shown on the module's card)
    "cue": "the rounding cue the question must carry: decimal_places or sig_figs",
    "on_mismatch": ("what a confident mismatch gives: FAIL (mismatch detection) or ABSTAIN (leave it to "
                     "later modules and the judge)"),
}


def decide(x):
    if x.number_answer is None or x.number_ref is None:
        return Decision.abstain("not_numbers")
    cues = x.cues
    if cues is None:
        return Decision.abstain("no_cue")
    places = cues.decimal_places if PARAMS["cue"] == "decimal_places" else None
    figs = cues.sig_figs if PARAMS["cue"] == "sig_figs" else None
    if places is None and figs is None:
        return Decision.abstain("no_cue")
    a, r = x.number_answer, x.number_ref
    if matches_with_rounding(a, r, decimals=places, sig_figs=figs):
        return Decision.passed(f"number:rounded_{PARAMS['cue']}")
    if PARAMS["on_mismatch"] == "FAIL":
        return Decision.failed(f"number:differs_after_rounding_{PARAMS['cue']}")
    return Decision.abstain("number:differs_after_rounding")
