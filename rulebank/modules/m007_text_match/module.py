"""Short text answers: normalised equality, or the reference phrase inside a short answer.

``mode`` "exact": PASS when the normalised answers are equal. ``mode`` "contains": PASS when
the reference appears as a whole phrase in an answer of at most ``max_answer_words`` words
that names no other candidate (it contains no "or"). Never FAILs: differing text is not
evidence of a wrong answer.
"""

from verifier_runtime.toolkit.text import contains_answer, normalize_text, text_match
from verifier_runtime.types import Decision



def decide(x):
    a, r = x.answer, x.ref
    if not a or not r:
        return Decision.abstain("no_answer")
    na, nr = normalize_text(a), normalize_text(r)
    if not na or not nr or any(ch.isdigit() for ch in nr):
        return Decision.abstain("not_text")
    if len(nr.split()) > PARAMS["max_reference_words"] or len(na.split()) > PARAMS["max_answer_words"]:
        return Decision.abstain("too_long")
    if text_match(a, r):
        return Decision.passed("text:equal")
    if PARAMS["mode"] == "contains" and " or " not in f" {na} " and contains_answer(a, r):
        return Decision.passed("text:reference_phrase_in_answer")
    return Decision.abstain("text:different")
