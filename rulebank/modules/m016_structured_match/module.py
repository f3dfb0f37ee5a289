"""Sets, intervals, tuples and matrices compared element by element (the criterion's comparison,
``toolkit.criterion.compare_candidate``: sets as sets, tuples in order, ``(0, 1)`` read by the question).

``on_guard``: what a matching answer gives when the criterion forbids a PASS anyway (a form the
question asks for, a restatement, meaningful case: ``toolkit.criterion.pass_guard``): ABSTAIN,
or FAIL with the criterion's reason.
"""

from verifier_runtime.toolkit.criterion import compare_candidate, pass_guard
from verifier_runtime.types import Decision



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
