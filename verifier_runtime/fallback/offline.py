"""The embedded offline fallback: the scoring criterion applied by the toolkit.

It plays the role an LLM judge plays when one is configured, on a bare machine: it applies
``docs/criterion.md`` through :func:`verifier_runtime.toolkit.criterion.judge_triple`, reading
the question as an LLM judge would (form requirements, requested units, options, "find
all"), the final committed answer (retractions, hedges, negations, several answers) and the
reference's precision. Its judgments are deterministic and bounded; an undecidable case is
judged incorrect with its reason. Reasons are ``offline:<criterion code>``.
"""

from __future__ import annotations

from collections.abc import Sequence

from verifier_runtime.toolkit.criterion import judge_triple
from verifier_runtime.triple import Triple
from verifier_runtime.types import FallbackResult


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
        j = judge_triple(x)
        if j.correct is None:
            return FallbackResult(None, j.reason)
        return FallbackResult(j.correct, f"offline:{j.reason}")
