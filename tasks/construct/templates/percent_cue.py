"""Percent versus fraction when the question asks for a percentage (or a probability).

Under a percentage cue the criterion reads a bare number as a percent figure (``45`` is 45 %)
and a decimal such as ``0.45`` for ``45%`` as the wrong form (``docs/criterion.md`` R3.2);
under a probability cue ``25%`` and ``0.25`` are the same value. The comparison is the
criterion's; which cue turns the module on, and whether it FAILs, is what the drafter tunes.

``on_guard``: what a matching answer gives when the criterion forbids a PASS anyway (a form the
question asks for, a restatement, meaningful case: ``toolkit.criterion.pass_guard``): ABSTAIN,
or FAIL with the criterion's reason.
"""

from verifier_runtime.toolkit.criterion import compare_numbers, pass_guard
from verifier_runtime.types import Decision

GROUP = "numeric_unit"
PARAMS = {"cue": "percentage", "on_mismatch": "ABSTAIN", "on_guard": "ABSTAIN"}
GRID = {
    "on_guard": ["ABSTAIN", "FAIL"],
    "cue": ["percentage", "probability"],
    "on_mismatch": ["ABSTAIN", "FAIL"],
}
MEANING = {  # what each parameter means (shown on the module's card)
    "on_guard": "what a matching answer gives when the criterion forbids a PASS anyway: ABSTAIN or FAIL",
    "cue": "the question cue that turns the module on: percentage or probability",
    "on_mismatch": ("what a confident mismatch gives: FAIL (mismatch detection) or ABSTAIN (leave it to "
                     "later modules and the judge)"),
}


def decide(x):
    a, r = x.number_answer, x.number_ref
    if a is None or r is None or not x.answer or not x.ref:
        return Decision.abstain("not_numbers")
    cues = x.cues
    cued = cues is not None and (cues.percentage if PARAMS["cue"] == "percentage" else cues.probability)
    if not cued:
        return Decision.abstain("no_cue")
    if not (a.is_percent or r.is_percent or PARAMS["cue"] == "probability" or cues.percentage):
        return Decision.abstain("not_percent_pair")
    j = compare_numbers(a, r, cues, x)
    if j.correct:
        blocked = pass_guard(x)
        if blocked:
            return Decision.failed(blocked) if PARAMS["on_guard"] == "FAIL" else Decision.abstain(blocked)
        return Decision.passed("percent:same_value")
    if PARAMS["on_mismatch"] == "FAIL" and (j.reason.startswith("differ") or j.reason.startswith("form")):
        return Decision.failed("percent:" + j.reason.replace(":", "_"))
    return Decision.abstain("percent:different_value")
