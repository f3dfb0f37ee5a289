"""Replay: the current release on every pool example; the cascade over recorded decisions; figures."""

from __future__ import annotations

import time
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from tasks.construct.state import PoolState
from verifier_runtime.cascade import first_direct
from verifier_runtime.triple import Triple
from verifier_runtime.types import ABSTAIN, PASS
from verifier_runtime.verifier import Verifier


@dataclass
class ReplayRecord:
    example_id: str
    predicted: bool | None
    decided_by: str
    reason: str
    fallback_called: bool
    correct: bool
    latency_ms: float


def replay_rows(verifier: Verifier, rows: Sequence[Sequence[str]]) -> list[dict[str, Any]]:
    """Replay on raw ``(question, reference, response)`` rows through the verifier's own cascade
    (exhaustive: every module's label, for validation), and the fallback's verdict where all
    abstain, with what is left of the call's budget. The decision and the verdict are exactly
    ``verifier.verify``'s. Pure and self-contained, so it runs in any worker."""
    out = []
    for q, r, s in rows:
        t0 = time.perf_counter()
        deadline = verifier.deadline()
        x = Triple(q, r, s)
        run = verifier.run_cascade(x, deadline, exhaustive=True)
        decided_by = None if run.decided is None else verifier.cascade.ids[run.decided]
        fallback = None
        if decided_by is None and verifier.fallback is not None:
            fallback = bool(verifier.fallback_result(x, deadline - time.monotonic()).correct)
        out.append({"labels": list(run.labels), "decided_by": decided_by,
                    "reason": run.decision.reason if run.decision is not None else "", "fallback": fallback,
                    "latency_ms": (time.perf_counter() - t0) * 1000.0})
    return out


def absorb_replay(state: PoolState, module_ids: Sequence[str], indices: Sequence[int],
                  results: Sequence[dict[str, Any]], fallback_name: str) -> list[ReplayRecord]:
    """Merge one chunk's replay results into the pool state; one record per example."""
    for mid in module_ids:
        with state._lock:
            state.decisions.setdefault(mid, [ABSTAIN] * len(state))
    out = []
    for i, res in zip(indices, results, strict=True):
        for mid, lab in zip(module_ids, res["labels"], strict=True):
            state.decisions[mid][i] = lab
        if res["decided_by"] is not None:
            predicted, by, reason, called = res["labels"][module_ids.index(res["decided_by"])] == PASS, \
                res["decided_by"], res["reason"], False
        else:
            if res["fallback"] is not None:
                with state._lock:
                    state._fallback[i] = res["fallback"]
            predicted, by, reason, called = state.fallback_verdict(i), f"fallback:{fallback_name}", "fallback", True
        out.append(ReplayRecord(state.examples[i].id, predicted, by, reason, called, predicted == state.labels[i],
                                res["latency_ms"]))
    return out


def chunk_indices(n: int, chunk_size: int) -> list[list[int]]:
    return [list(range(s, min(n, s + chunk_size))) for s in range(0, n, max(1, chunk_size))]


def cascade(order: Sequence[str], decisions: dict[str, list[str]], state: PoolState,
            indices: Sequence[int] | None = None) -> tuple[list[bool], list[str]]:
    """Final verdicts and deciders for modules in ``order`` over the recorded decisions: the
    runtime cascade's rule (:func:`~verifier_runtime.cascade.first_direct`), the fallback's
    verdict where every module abstains."""
    idx = range(len(state)) if indices is None else indices
    columns = [decisions[mid] for mid in order]
    preds, by = [], []
    for i in idx:
        k = first_direct(col[i] for col in columns)
        if k is None:
            preds.append(state.fallback_verdict(i))
            by.append("fallback")
        else:
            preds.append(columns[k][i] == PASS)
            by.append(order[k])
    return preds, by


def round_figures(preds: Sequence[bool], by: Sequence[str], labels: Sequence[bool]) -> dict[str, Any]:
    n = len(labels)
    direct = [i for i in range(n) if by[i] != "fallback"]
    direct_correct = sum(1 for i in direct if preds[i] == labels[i])
    correct = sum(1 for i in range(n) if preds[i] == labels[i])
    return {
        "n": n,
        "direct": len(direct),
        "coverage": len(direct) / n if n else 0.0,
        "direct_errors": len(direct) - direct_correct,
        "direct_precision": direct_correct / len(direct) if direct else None,
        "accuracy": correct / n if n else 0.0,
        "fallback_calls": n - len(direct),
        "errors": n - correct,
    }

