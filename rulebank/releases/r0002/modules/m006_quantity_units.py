"""quantity units (learned in round 2, cluster cov5)

Template: quantity_units (group numeric_unit). Quantities with units: converted through one unit registry, then compared.

Why: corrects 6, saves 8 fallback calls, no new direct error; cluster cov5 of 33 coverage examples: {"answer_object": "quantity", "extraction": "answer_is"}
Card: r02-cov5-1; revision 2.
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

SUPPORT = [{'expected': 'FAIL',
  'question': 'Convert 1.5 hours to minutes.',
  'reference': '90 min',
  'response': 'The answer is 90 s.'},
 {'expected': 'FAIL',
  'question': 'Convert 2 hours to minutes.',
  'reference': '120 min',
  'response': 'The answer is 120 s.'},
 {'expected': 'FAIL',
  'question': 'Convert 4 hours to minutes.',
  'reference': '240 min',
  'response': 'The answer is 240 s.'},
 {'expected': 'FAIL',
  'question': 'Convert 0.75 kilograms to grams.',
  'reference': '750 g',
  'response': 'The answer is 751 g.'}]

COUNTEREXAMPLES = [{'expected': 'ABSTAIN',
  'question': 'Convert 2 kilometers to meters.',
  'reference': '2000 m',
  'response': 'So the result is 2,000 m.'},
 {'expected': 'ABSTAIN',
  'question': 'Convert 1.5 kilograms to grams.',
  'reference': '1500 g',
  'response': 'So the result is 1,500 g.'},
 {'expected': 'ABSTAIN',
  'question': 'Convert 2.25 kilograms to grams.',
  'reference': '2250 g',
  'response': 'So the result is 2,250 g.'},
 {'expected': 'ABSTAIN',
  'question': 'Convert 3.5 kilometers to meters.',
  'reference': '3500 m',
  'response': 'So the result is 3,500 m.'}]
