"""Baselines compared with AutoVerifier: Math-Verify (``from math_verify import parse, verify``)."""

from __future__ import annotations

import threading
import time
from collections.abc import Iterable, Mapping
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass
from multiprocessing import get_context
from typing import Any


def _math_verify_one(reference: str, response: str, opts: Mapping[str, Any]) -> tuple[bool, str]:
    """Math-Verify on one pair: ``verify(parse(reference), parse(response))``; any error is 'incorrect'."""
    try:
        from math_verify import parse, verify

        pt = int(opts.get("parsing_timeout", 5))
        gold = parse(reference, parsing_timeout=pt)
        if not gold:
            return False, "gold_unparsed"
        pred = parse(response, parsing_timeout=pt)
        if not pred:
            return False, "answer_unparsed"
        ok = verify(
            gold,
            pred,
            float_rounding=int(opts.get("float_rounding", 6)),
            timeout_seconds=int(opts.get("timeout_seconds", 5)),
        )
        return bool(ok), "equivalent" if ok else "not_equivalent"
    except BaseException as e:  # noqa: BLE001 - a baseline error counts as 'incorrect', never a crash
        if isinstance(e, KeyboardInterrupt):
            raise
        return False, f"error:{type(e).__name__}"


def _math_verify_many(pairs: list[tuple[str, str]], opts: dict[str, Any]) -> list[tuple[bool, str]]:
    return [_math_verify_one(r, s, opts) for r, s in pairs]


@dataclass(frozen=True, slots=True)
class _BaselineVerdict:
    correct: bool | None
    decided_by: str
    reason: str
    fallback_called: bool
    elapsed_ms: float


class MathVerifyBaseline:
    """The Math-Verify baseline (``from math_verify import parse, verify``), run sequentially.

    Math-Verify's timeouts use ``signal.alarm``, which works only in a process's main thread:
    in the main thread it runs inline; elsewhere (a Prefect worker thread) the whole batch
    runs in one spawned child process, whose main thread can take the alarm.
    """

    name = "math_verify"

    def __init__(self, options: Mapping[str, Any] | None = None) -> None:
        self.options = dict(options or {})

    def verify_batch(self, rows: Iterable[Mapping[str, Any]], workers: int = 1) -> list[_BaselineVerdict]:
        pairs = [(str(r.get("reference") or ""), str(r.get("response") or "")) for r in rows]
        t0 = time.perf_counter()
        if threading.current_thread() is threading.main_thread():
            raw = _math_verify_many(pairs, self.options)
        else:
            with ProcessPoolExecutor(max_workers=1, mp_context=get_context("spawn")) as ex:
                raw = ex.submit(_math_verify_many, pairs, self.options).result()
        per = (time.perf_counter() - t0) * 1000.0 / max(1, len(pairs))
        return [_BaselineVerdict(ok, self.name, why, False, per) for ok, why in raw]
