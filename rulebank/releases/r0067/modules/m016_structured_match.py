"""structured match (learned in round 10, cluster cov4)

Module m016_structured_match, revision 1, card r10-cov4-0; template structured_match a372f6f103e7.

Sets, intervals, tuples and matrices compared element by element (the criterion's comparison,
``toolkit.criterion.compare_candidate``: sets as sets, tuples in order, ``(0, 1)`` read by the question).

``on_guard``: what a matching answer gives when the criterion forbids a PASS anyway (a form the
question asks for, a restatement, meaningful case: ``toolkit.criterion.pass_guard``): ABSTAIN,
or FAIL with the criterion's reason.

Why: corrects 0, saves 226 fallback calls, no new direct error; on the validation split 59 new direct decisions, 0 corrections. Learned in round 10 from cluster cov4: 139 examples the judge decided correctly, which a module can take over without a judge call (answer_object tuple, extraction boxed).
"""

from verifier_runtime.toolkit.criterion import compare_candidate, pass_guard
from verifier_runtime.types import Decision

PARAMS = {'kinds': ['tuple'], 'on_guard': 'ABSTAIN', 'on_mismatch': 'FAIL'}


def decide(x):
    r = x.parsed_ref
    if r is None or r.kind not in PARAMS["kinds"]:
        return Decision.abstain("not_structured")
    a = x.parsed_answer
    if a is None:
        return Decision.abstain("not_structured")
    c = compare_candidate(x.answer, x.ref, x.cues, x)
    if c is not None and c.correct:
        blocked = pass_guard(x)
        if blocked:
            return Decision.failed(blocked) if PARAMS["on_guard"] == "FAIL" else Decision.abstain(blocked)
        return Decision.passed(f"{r.kind}:{c.reason}")
    if c is not None and c.reason.startswith("differ") and PARAMS["on_mismatch"] == "FAIL":
        return Decision.failed(f"{r.kind}:{c.reason}")
    return Decision.abstain(f"{r.kind}:undecided")


MODULE = {'card_id': 'r10-cov4-0',
 'description': 'structured match (learned in round 10, cluster cov4)',
 'group': 'verdict_matching',
 'id': 'm016_structured_match',
 'priority': 316,
 'revision': 1,
 'template': 'structured_match'}
