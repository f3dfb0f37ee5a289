"""quantity units (learned in round 6, cluster cov5)

Module m012_quantity_units, revision 1, card r06-cov5-0; template quantity_units c4108312a711.

Quantities with units: converted through one unit registry, then compared.

The comparison is the criterion's (``docs/criterion.md`` R5.1-R5.3): after conversion, within
half a unit of the reference's last written digit; a different dimension differs.
``bare_number``: how a response number without a unit is read against a reference with one
("abstain", or "reference_unit": in the unit the question requests, else the reference's).

``on_guard``: what a matching answer gives when the criterion forbids a PASS anyway (a form the
question asks for, a restatement, meaningful case: ``toolkit.criterion.pass_guard``): ABSTAIN,
or FAIL with the criterion's reason.

Why: corrects 0, saves 42 fallback calls, no new direct error. Learned in round 6 from cluster cov5: 33 examples the judge decided correctly, which a module can take over without a judge call (answer_object quantity, extraction answer_is).
"""

from verifier_runtime.toolkit.criterion import compare_candidate, pass_guard
from verifier_runtime.types import Decision

PARAMS = {'bare_number': 'reference_unit', 'on_guard': 'ABSTAIN', 'on_mismatch': 'FAIL'}


def decide(x):
    if not x.answer or not x.ref:
        return Decision.abstain("no_answer")
    if x.quantity_ref is None:
        return Decision.abstain("reference_without_unit")
    if x.quantity_answer is None and (PARAMS["bare_number"] != "reference_unit" or x.number_answer is None):
        return Decision.abstain("answer_without_unit")
    j = compare_candidate(x.answer, x.ref, x.cues, x)
    if j is None:
        return Decision.abstain("quantity:undecided")
    if j.correct:
        blocked = pass_guard(x)
        if blocked:
            return Decision.failed(blocked) if PARAMS["on_guard"] == "FAIL" else Decision.abstain(blocked)
        return Decision.passed("quantity:equal_after_conversion")
    if PARAMS["on_mismatch"] == "FAIL" and j.reason.startswith("differ"):
        return Decision.failed("quantity:different")
    return Decision.abstain("quantity:undecided")


MODULE = {'card_id': 'r06-cov5-0',
 'description': 'quantity units (learned in round 6, cluster cov5)',
 'group': 'numeric_unit',
 'id': 'm012_quantity_units',
 'priority': 412,
 'revision': 1,
 'template': 'quantity_units'}
