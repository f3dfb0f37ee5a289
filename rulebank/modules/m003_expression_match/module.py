"""Symbolic expressions and equations compared by value (numeric probing, bounded).

``exact_cue_fails_decimal``: when the question asks for an exact value and the response
gives a decimal approximation of an irrational reference, FAIL.
"""

from verifier_runtime.toolkit.compare import compare_answers
from verifier_runtime.types import Decision



def decide(x):
    r = x.parsed_ref
    if r is None or r.kind not in PARAMS["kinds"]:
        return Decision.abstain("not_expressions")
    a = x.parsed_answer
    if a is None or a.kind not in PARAMS["kinds"] + ["number"]:
        return Decision.abstain("not_expressions")
    if PARAMS["exact_cue_fails_decimal"] and a.kind == "number" and r.kind == "expression" and "." in a.text:
        cues = x.cues
        if cues is not None and cues.exact:
            return Decision.failed("expr:decimal_for_exact")
    c = compare_answers(a, r, rel_tol=PARAMS["rel_tol"])
    if c.equal is True:
        return Decision.passed(f"expr:{c.detail}")
    if c.equal is False and PARAMS["on_mismatch"] == "FAIL":
        return Decision.failed(f"expr:{c.detail}")
    return Decision.abstain("expr:undecided")
