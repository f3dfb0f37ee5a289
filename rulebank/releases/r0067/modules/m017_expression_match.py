"""expression match (learned in round 12, cluster cov1)

Module m017_expression_match, revision 2, card r12-cov1-0; template expression_match 39e55ef4a617.

Symbolic expressions and equations compared by value with the criterion's comparison
(``toolkit.criterion.compare_candidate``: numeric probing, bounded; labels, units and tolerance
as ``docs/criterion.md`` says).

``exact_cue_fails_decimal``: when the question asks for an exact value and the response
gives a decimal approximation of an irrational reference, FAIL.

``on_guard``: what a matching answer gives when the criterion forbids a PASS anyway (a form the
question asks for, a restatement, meaningful case: ``toolkit.criterion.pass_guard``): ABSTAIN,
or FAIL with the criterion's reason.

Why: corrects 0, saves 264 fallback calls, no new direct error; on the validation split 144 new direct decisions, 0 corrections. Learned in round 12 from cluster cov1: 219 examples the judge decided correctly, which a module can take over without a judge call (answer_object expression, extraction boxed).
"""

from verifier_runtime.toolkit.criterion import compare_candidate, pass_guard
from verifier_runtime.types import Decision

PARAMS = {'exact_cue_fails_decimal': False,
 'kinds': ['expression', 'equation'],
 'on_guard': 'ABSTAIN',
 'on_mismatch': 'FAIL'}


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
    c = compare_candidate(x.answer, x.ref, x.cues, x)
    if c is not None and c.correct:
        blocked = pass_guard(x)
        if blocked:
            return Decision.failed(blocked) if PARAMS["on_guard"] == "FAIL" else Decision.abstain(blocked)
        return Decision.passed(f"expr:{c.reason}")
    if c is not None and c.reason.startswith("differ") and PARAMS["on_mismatch"] == "FAIL":
        return Decision.failed(f"expr:{c.reason}")
    return Decision.abstain("expr:undecided")


MODULE = {'card_id': 'r12-cov1-0',
 'description': 'expression match (learned in round 12, cluster cov1)',
 'group': 'verdict_matching',
 'id': 'm017_expression_match',
 'priority': 314,
 'revision': 2,
 'template': 'expression_match'}
