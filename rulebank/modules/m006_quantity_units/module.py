"""Quantities with units: converted through one unit registry, then compared.

``bare_number``: how a response number without a unit is read against a reference with
one ("abstain", or "reference_unit": read in the reference's unit, or the unit the question
requests).
"""

from verifier_runtime.toolkit.units import parse_quantity, quantities_equal
from verifier_runtime.types import Decision



def decide(x):
    if not x.answer or not x.ref:
        return Decision.abstain("no_answer")
    r = x.quantity_ref
    if r is None:
        return Decision.abstain("reference_without_unit")
    a = x.quantity_answer
    if a is None:
        if PARAMS["bare_number"] != "reference_unit":
            return Decision.abstain("answer_without_unit")
        n = x.number_answer
        cues = x.cues
        unit = (cues.unit if cues is not None and cues.unit else None) or r.unit
        a = parse_quantity(f"{n.text} {unit}") if n is not None else None
        if a is None:
            return Decision.abstain("answer_without_unit")
    same = quantities_equal(a, r, rel_tol=PARAMS["rel_tol"])
    if same is True:
        return Decision.passed("quantity:equal_after_conversion")
    if same is False and PARAMS["on_mismatch"] == "FAIL":
        return Decision.failed("quantity:different")
    return Decision.abstain("quantity:undecided")
