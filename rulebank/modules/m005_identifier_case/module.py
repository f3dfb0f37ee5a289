"""Whole terminal identifiers (chemical formulas, symbols, codes) compared with case rules.

Fires only when both final answers are single identifiers; mixed-case identifiers and
chemical formulas keep their case (``Co`` is not ``CO``).
"""

from verifier_runtime.toolkit.text import identifiers_equal, parse_identifier
from verifier_runtime.types import Decision



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
