"""Numbers under a rounding cue in the question (decimal places or significant figures).

PASS when the response's number is the reference rounded as the question asks (the
criterion's comparison, ``docs/criterion.md`` R5.3); with ``on_mismatch`` FAIL, a number
that still differs after rounding fails.

``on_guard``: what a matching answer gives when the criterion forbids a PASS anyway (a form the
question asks for, a restatement, meaningful case: ``toolkit.criterion.pass_guard``): ABSTAIN,
or FAIL with the criterion's reason.
"""

from verifier_runtime.toolkit.criterion import compare_numbers, pass_guard
from verifier_runtime.types import Decision

GROUP = "numeric_unit"
PARAMS = {"cue": "decimal_places", "on_mismatch": "ABSTAIN", "on_guard": "ABSTAIN"}
GRID = {"on_guard": ["ABSTAIN", "FAIL"], "cue": ["decimal_places", "sig_figs"], "on_mismatch": ["ABSTAIN", "FAIL"]}
MEANING = {  # what each parameter means (shown on the module's card)
    "on_guard": "what a matching answer gives when the criterion forbids a PASS anyway: ABSTAIN or FAIL",
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
    j = compare_numbers(x.number_answer, x.number_ref, cues, x)
    if j.correct:
        blocked = pass_guard(x)
        if blocked:
            return Decision.failed(blocked) if PARAMS["on_guard"] == "FAIL" else Decision.abstain(blocked)
        return Decision.passed(f"number:rounded_{PARAMS['cue']}")
    if PARAMS["on_mismatch"] == "FAIL" and j.reason.startswith("differ"):
        return Decision.failed(f"number:differs_after_rounding_{PARAMS['cue']}")
    return Decision.abstain("number:differs_after_rounding")
