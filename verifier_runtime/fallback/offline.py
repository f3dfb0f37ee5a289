"""The embedded offline fallback: a generic, best-effort judge built from the toolkit.

It plays the role an LLM judge plays when one is configured, on a bare machine: extract
both final answers, then compare them by the first applicable generic rule (choice
letters, booleans, typed values at exact equality, normalised text, reference phrase in a
short answer). It knows nothing of question cues (rounding, requested units, percent
conventions): those are what construction learns as code modules. Its judgments are
deterministic and bounded; an undecidable case is judged incorrect with its reason.
"""

from __future__ import annotations

from collections.abc import Sequence

from verifier_runtime.toolkit.choices import choice_matches
from verifier_runtime.toolkit.compare import compare_answers
from verifier_runtime.toolkit.text import contains_answer, parse_bool, text_match
from verifier_runtime.triple import Triple
from verifier_runtime.types import FallbackResult

_MAX_CONTAINS_WORDS = 60


class OfflineJudge:
    """``Fallback`` implementation with no model behind it (no key, no network)."""

    name = "offline"
    local = True  # runs in-process: the verifier puts it under the hard time budget

    def judge(self, question: str, reference: str, response: str, *, guidance: str = "") -> FallbackResult:
        return self.judge_triple(Triple(question, reference, response))

    def judge_triple(self, x: Triple) -> FallbackResult:
        """Judge a :class:`Triple` the verifier already parsed (its cached views are reused)."""
        try:
            return self._judge(x)
        except Exception as e:
            return FallbackResult(None, f"offline_error:{type(e).__name__}")

    def judge_batch(self, rows: Sequence[tuple[str, str, str]], *, guidance: str = "",
                    workers: int = 4) -> list[FallbackResult]:
        return [self.judge(q, r, s, guidance=guidance) for q, r, s in rows]

    @staticmethod
    def _judge(x: Triple) -> FallbackResult:
        if x.oversized:
            return FallbackResult(False, "invalid:input_too_large")
        ref, ans = x.ref, x.answer
        if not ref:
            return FallbackResult(None, "no_reference_answer")
        if not ans:
            return FallbackResult(False, "invalid:no_final_answer")
        if x.options:
            same = choice_matches(ans, ref, x.options)
            if same is not None:
                return FallbackResult(same, "offline:choice")
        rb, ab = parse_bool(ref), parse_bool(ans)
        if rb is not None and ab is not None:
            return FallbackResult(rb == ab, "offline:boolean")
        pr = x.parsed_ref
        typed_ref = pr is not None and pr.kind != "text"
        pa = x.parsed_answer if typed_ref else None  # a text reference needs no typed answer
        if typed_ref and pa is not None and pa.kind != "text":
            c = compare_answers(pa, pr)
            if c.equal is not None:
                return FallbackResult(c.equal, f"offline:{c.detail}")
        if text_match(ans, ref):
            return FallbackResult(True, "offline:text_equal")
        if len(ans.split()) <= _MAX_CONTAINS_WORDS and contains_answer(ans, ref):
            return FallbackResult(True, "offline:reference_in_answer")
        if typed_ref and (pa is None or pa.kind == "text"):
            return FallbackResult(False, "offline:answer_not_comparable")
        return FallbackResult(False, "offline:different")
