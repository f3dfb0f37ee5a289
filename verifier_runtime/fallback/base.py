"""The fallback interface: what the verifier calls when every code module abstains."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Protocol, runtime_checkable

from verifier_runtime.types import FallbackResult


@runtime_checkable
class Fallback(Protocol):
    """A judge for triples no code module decided.

    ``guidance`` is the learned prompt guidance carried by the artifact (may be empty).
    Implementations never raise on bad input: they return ``FallbackResult(None, reason)``.
    """

    name: str

    def judge(self, question: str, reference: str, response: str, *, guidance: str = "") -> FallbackResult: ...

    def judge_batch(
        self, rows: Sequence[tuple[str, str, str]], *, guidance: str = "", workers: int = 4
    ) -> list[FallbackResult]: ...
