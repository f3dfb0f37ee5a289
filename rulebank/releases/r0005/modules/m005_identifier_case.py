"""identifier case (learned in round 2, cluster cov3)

Module m005_identifier_case, revision 1, card r02-cov3-1; template identifier_case 88070a832bd1.

Whole terminal identifiers (chemical formulas, symbols, codes) compared with case rules.

Fires only when both final answers are single identifiers; mixed-case identifiers and
chemical formulas keep their case (``Co`` is not ``CO``).

Why: corrects 0, saves 2 fallback calls, no new direct error. Learned in round 2 from cluster cov3: 37 examples the judge decided correctly, which a module can take over without a judge call (answer_object number, extraction answer_is).
"""

from verifier_runtime.toolkit.text import identifiers_equal, parse_identifier
from verifier_runtime.types import Decision

PARAMS = {'kinds': ['chemical_formula', 'identifier'], 'on_mismatch': 'ABSTAIN'}


def decide(x):
    if not x.answer or not x.ref:
        return Decision.abstain("no_answer")
    a, r = parse_identifier(x.answer), parse_identifier(x.ref)
    if a is None or r is None or r.kind not in PARAMS["kinds"]:
        return Decision.abstain("not_identifiers")
    same = identifiers_equal(a, r)
    if same is True:
        return Decision.passed(f"identifier:{r.kind}_equal")
    if same is False and PARAMS["on_mismatch"] == "FAIL":
        return Decision.failed(f"identifier:{r.kind}_different")
    return Decision.abstain("identifier:undecided")


MODULE = {'card_id': 'r02-cov3-1',
 'description': 'identifier case (learned in round 2, cluster cov3)',
 'group': 'verdict_matching',
 'id': 'm005_identifier_case',
 'priority': 305,
 'revision': 1,
 'template': 'identifier_case'}
