"""The fallback interface: what the verifier calls when every code module abstains."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, Protocol, runtime_checkable

from verifier_runtime.triple import Triple
from verifier_runtime.types import FallbackResult


@runtime_checkable
class Fallback(Protocol):
    """A judge for triples no code module decided: everything the verifier uses of one.

    - ``name``: shown in ``Verdict.decided_by`` as ``fallback:<name>``;
    - ``local``: ``True`` for an in-process judge, which the verifier runs under the call's
      hard time budget through ``judge_triple``; ``False`` for a networked judge (bounded by
      its own timeouts), called through ``judge`` and ``judge_batch``;
    - ``judge``: one triple, with the artifact's learned ``guidance`` (may be empty);
    - ``judge_triple``: one already-parsed :class:`Triple` (its cached views are reused);
    - ``judge_batch``: many triples, at most ``workers`` at a time, results in input order.

    Implementations never raise on bad input: they return ``FallbackResult(None, reason)``.
    :func:`as_fallback` completes an object that only has ``name`` and ``judge``.
    """

    name: str
    local: bool

    def judge(self, question: str, reference: str, response: str, *, guidance: str = "") -> FallbackResult: ...

    def judge_triple(self, x: Triple) -> FallbackResult: ...

    def judge_batch(
        self, rows: Sequence[tuple[str, str, str]], *, guidance: str = "", workers: int = 4
    ) -> list[FallbackResult]: ...


class CompletedFallback:
    """A judge with only ``name`` and ``judge`` (and optionally ``local`` or ``judge_batch``),
    completed to the :class:`Fallback` protocol with the documented defaults: not local, a
    batch judged one by one, a parsed triple judged through ``judge`` with ``guidance``."""

    def __init__(self, judge: Any, guidance: str = "") -> None:
        self.inner = judge
        self.name = str(judge.name)
        self.local = bool(getattr(judge, "local", False))
        self.guidance = guidance

    def judge(self, question: str, reference: str, response: str, *, guidance: str = "") -> FallbackResult:
        return self.inner.judge(question, reference, response, guidance=guidance)

    def judge_triple(self, x: Triple) -> FallbackResult:
        if hasattr(self.inner, "judge_triple"):
            return self.inner.judge_triple(x)
        return self.inner.judge(x.question, x.reference, x.response, guidance=self.guidance)

    def judge_batch(self, rows: Sequence[tuple[str, str, str]], *, guidance: str = "",
                    workers: int = 4) -> list[FallbackResult]:
        if hasattr(self.inner, "judge_batch"):
            return list(self.inner.judge_batch(rows, guidance=guidance, workers=workers))
        return [self.inner.judge(q, r, s, guidance=guidance) for q, r, s in rows]


def as_fallback(judge: Any, *, guidance: str = "") -> Fallback:
    """``judge`` as a complete :class:`Fallback` (unchanged when it already is one).

    Raises ``TypeError`` for an object without ``name`` and a callable ``judge``.
    """
    if isinstance(judge, Fallback):
        return judge
    if not isinstance(getattr(judge, "name", None), str) or not callable(getattr(judge, "judge", None)):
        raise TypeError(f"a fallback needs a 'name' and a 'judge' method, got {type(judge).__name__}")
    return CompletedFallback(judge, guidance)
