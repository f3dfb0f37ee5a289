"""quantity units (learned in round 2, cluster cov5)

Module m006_quantity_units, revision 2, card r02-cov5-1; template quantity_units d8ce24aee2f9.

Quantities with units: converted through one unit registry, then compared.

``bare_number``: how a response number without a unit is read against a reference with
one ("abstain", or "reference_unit": read in the reference's unit, or the unit the question
requests).

Why: corrects 6, saves 8 fallback calls, no new direct error. Learned in round 2 from cluster cov5: 33 examples the judge decided correctly, which a module can take over without a judge call (answer_object quantity, extraction answer_is).
"""

from verifier_runtime.toolkit.units import parse_quantity, quantities_equal
from verifier_runtime.types import Decision

PARAMS = {'bare_number': 'reference_unit', 'on_mismatch': 'FAIL', 'rel_tol': 1e-06}


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


MODULE = {'card_id': 'r02-cov5-1',
 'description': 'quantity units (learned in round 2, cluster cov5)',
 'group': 'numeric_unit',
 'id': 'm006_quantity_units',
 'priority': 406,
 'revision': 2,
 'template': 'quantity_units'}
