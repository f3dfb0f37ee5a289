"""expression match (learned in round 1, cluster cov0)

Module m003_expression_match, revision 1, card r01-cov0-2; template expression_match b7310f2231da.

Symbolic expressions and equations compared by value (numeric probing, bounded).

``exact_cue_fails_decimal``: when the question asks for an exact value and the response
gives a decimal approximation of an irrational reference, FAIL.

Why: corrects 0, saves 12 fallback calls, 1 new direct errors (within the allowed 5, listed on the card). Learned in round 1 from cluster cov0: 1765 examples the judge decided correctly, which a module can take over without a judge call (answer_object number, extraction answer_colon).
"""

from verifier_runtime.toolkit.compare import compare_answers
from verifier_runtime.types import Decision

PARAMS = {'exact_cue_fails_decimal': False,
 'kinds': ['expression', 'number'],
 'on_mismatch': 'ABSTAIN',
 'rel_tol': 1e-09}


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


MODULE = {'card_id': 'r01-cov0-2',
 'description': 'expression match (learned in round 1, cluster cov0)',
 'group': 'verdict_matching',
 'id': 'm003_expression_match',
 'priority': 303,
 'revision': 1,
 'template': 'expression_match'}
