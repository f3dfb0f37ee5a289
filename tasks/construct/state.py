"""The construction pool in memory: triples with cached views, module decisions, fallback verdicts."""

from __future__ import annotations

import hashlib
import threading
from collections.abc import Callable, Sequence

from tasks.data.schema import Example
from verifier_runtime.cascade import judge_with_fallback, run_decide
from verifier_runtime.fallback.base import Fallback, as_fallback
from verifier_runtime.triple import Triple


class PoolState:
    """The construction pool in memory. Triples cache their parsed views across all steps."""

    def __init__(self, examples: Sequence[Example], fallback: Fallback | None, guidance: str = "",
                 fallback_budget_s: float = 2.0) -> None:
        self.examples = list(examples)
        self.triples = [Triple(e.question, e.reference, e.response) for e in self.examples]
        self.labels = [bool(e.label) for e in self.examples]
        self.index = {e.id: i for i, e in enumerate(self.examples)}
        self.fallback = None if fallback is None else as_fallback(fallback, guidance=guidance)
        self.guidance = guidance
        self.fallback_budget_s = fallback_budget_s
        self._fallback: dict[int, bool] = {}
        self._lock = threading.Lock()
        self.decisions: dict[str, list[str]] = {}  # module id -> label per example
        # the perturbation stage's rewrites of support examples, made once per example and seed
        self.perturbations: dict[tuple[int, str, int], list] = {}
        self.perturbation_context: dict = {}

    def __len__(self) -> int:
        return len(self.examples)

    def fallback_verdict(self, i: int) -> bool:
        """The fallback's verdict on example ``i`` (computed once; undecided counts as incorrect)."""
        v = self._fallback.get(i)
        if v is not None:
            return v
        v = self.fallback is not None and bool(judge_with_fallback(
            self.fallback, self.triples[i], guidance=self.guidance, budget_s=self.fallback_budget_s).correct)
        with self._lock:
            self._fallback[i] = v
        return v

    def pool_hash(self) -> str:
        h = hashlib.sha256()
        for e in sorted(self.examples, key=lambda e: e.id):
            h.update(e.id.encode())
            h.update(b"1" if e.label else b"0")
        return h.hexdigest()[:16]


def decisions_for(decide: Callable, state: PoolState, indices: Sequence[int] | None = None,
                  budget_s: float = 0.5) -> list[str]:
    """One module's labels (PASS/FAIL/ABSTAIN) on the pool (or on ``indices``)."""
    idx = range(len(state)) if indices is None else indices
    return [run_decide(decide, state.triples[i], budget_s).label for i in idx]

