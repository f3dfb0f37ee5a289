"""Invalid-answer guard: FAIL responses with no usable final answer.

Fires when the response has no extractable answer, only echoes the question, was cut off
before any answer, or boxes several different answers. Each condition is switched on by a
parameter, so the drafter keeps only the conditions its cluster supports.
"""

from verifier_runtime.types import Decision

GROUP = "invalid_answer_guard"
PARAMS = {"no_answer": True, "echo": False, "truncated": False, "conflicting": False}
GRID = {
    "no_answer": [True, False],
    "echo": [True, False],
    "truncated": [True, False],
    "conflicting": [True, False],
}
MEANING = {  # what each parameter means (shown on the module's card)
    "no_answer": "FAIL a response with no extractable final answer",
    "echo": "FAIL a response that only repeats the question",
    "truncated": "FAIL a response cut off before any answer",
    "conflicting": "FAIL a response that boxes several different answers",
}


def decide(x):
    info = x.answer_info
    if info is None or not x.ref:
        return Decision.abstain("no_reference")
    if PARAMS["no_answer"] and not (x.response or "").strip():
        return Decision.failed("invalid:empty_response")
    if PARAMS["echo"] and info.echo:
        return Decision.failed("invalid:echoes_question")
    if PARAMS["conflicting"] and info.conflicting:
        return Decision.failed("invalid:conflicting_answers")
    if PARAMS["truncated"] and info.truncated and info.method in ("none", "last_line", "whole"):
        return Decision.failed("invalid:truncated_without_answer")
    if PARAMS["no_answer"] and info.answer is None:
        return Decision.failed("invalid:no_final_answer")
    return Decision.abstain("answer_present")
