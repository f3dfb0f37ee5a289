"""Invalid-answer guard: FAIL responses that commit to no answer a comparison could use.

Fires when the response has no extractable answer, only echoes the question, was cut off
before any answer, or commits to no single answer by the criterion (``docs/criterion.md`` R1.2,
R2.1-R2.5, read by ``toolkit.criterion.invalid_reason``): a retraction with nothing after it,
only a negated value, alternatives or a list where one value is asked. Each condition is
switched on by a parameter, so the drafter keeps only the conditions its cluster supports.
"""

from verifier_runtime.toolkit.criterion import invalid_reason
from verifier_runtime.types import Decision

GROUP = "invalid_answer_guard"
PARAMS = {"no_answer": True, "echo": False, "truncated": False, "commitment": False}
GRID = {
    "no_answer": [True, False],
    "echo": [True, False],
    "truncated": [True, False],
    "commitment": [True, False],
}
MEANING = {  # what each parameter means (shown on the module's card)
    "no_answer": "FAIL a response with no extractable final answer",
    "echo": "FAIL a response that only repeats the question",
    "truncated": "FAIL a response cut off before any answer",
    "commitment": "FAIL a hedge, a list where one value is asked, a lone negation or a retraction with no answer after it",
}


def decide(x):
    info = x.answer_info
    if info is None or not x.ref:
        return Decision.abstain("no_reference")
    if PARAMS["no_answer"] and not (x.response or "").strip():
        return Decision.failed("invalid:empty_response")
    if PARAMS["echo"] and info.echo:
        return Decision.failed("invalid:echoes_question")
    if PARAMS["truncated"] and info.truncated and info.method in ("none", "last_line", "whole"):
        return Decision.failed("invalid:truncated_without_answer")
    if PARAMS["no_answer"] and info.answer is None:
        return Decision.failed("invalid:no_final_answer")
    if PARAMS["commitment"]:
        why = invalid_reason(x)
        if why:
            return Decision.failed(why)
    return Decision.abstain("answer_present")
