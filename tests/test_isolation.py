"""Process isolation: pooled workers under a memory limit, killed and replaced when they stall."""

from __future__ import annotations

import os
import signal
import time
from pathlib import Path

import pytest

from verifier_runtime import load_verifier


@pytest.fixture(scope="module")
def isolated():
    v = load_verifier(fallback="offline", isolation="process", processes=2, memory_mb=3072, budget_s=0.5,
                      grace_s=0.3)
    yield v
    v.close()


def _pids(v) -> list[int]:
    return v.worker_pids()


def test_same_verdicts_as_in_process(isolated):
    local = load_verifier(fallback="offline")
    triples = [("What is 2+2?", "4", "The answer is 4"), ("Simplify.", "x+1", r"so $\boxed{1+x}$"),
               ("Capital?", "Paris", "Lyon"), ("?", "12", "")]
    for t in triples:
        a, b = isolated.verify(*t), local.verify(*t)
        assert (a.correct, a.decided_by, a.reason) == (b.correct, b.decided_by, b.reason)
    assert isolated.artifact_version == local.artifact_version
    assert [m.id for m in isolated.modules] == [m.id for m in local.modules]
    rows = [{"question": q, "reference": r, "response": s} for q, r, s in triples]
    assert [v.correct for v in isolated.verify_batch(rows, workers=2)] == [v.correct for v in local.verify_batch(rows)]


def test_workers_run_under_the_memory_limit(isolated):
    for pid in _pids(isolated):
        limits = Path(f"/proc/{pid}/limits").read_text()
        line = next(ln for ln in limits.splitlines() if ln.startswith("Max address space"))
        assert str(3072 * 1024 * 1024) in line


def test_a_stalled_worker_is_killed_and_replaced(isolated):
    before = set(_pids(isolated))
    for pid in before:
        os.kill(pid, signal.SIGSTOP)  # a worker stuck in one long C call answers nothing
    try:
        t0 = time.monotonic()
        v = isolated.verify("What is 2+2?", "4", "The answer is 4")
        took = time.monotonic() - t0
    finally:
        for pid in before:
            try:
                os.kill(pid, signal.SIGCONT)
            except ProcessLookupError:
                pass
    assert v.decided_by == "error" and v.reason == "limit:worker_killed" and v.correct is False
    assert took < 0.5 + 0.3 + 0.3, took  # the call's budget plus the grace, not longer
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        ok = isolated.verify("What is 2+2?", "4", "The answer is 4")
        if ok.decided_by != "error":
            break
        time.sleep(0.5)
    assert ok.correct is True  # a replacement worker took over
    assert isolated.kills >= 1


def test_a_crashed_worker_is_replaced(isolated):
    deadline = time.monotonic() + 60
    while len(_pids(isolated)) < 2 and time.monotonic() < deadline:
        time.sleep(0.2)
    for pid in _pids(isolated):
        os.kill(pid, signal.SIGKILL)
    time.sleep(0.1)
    v = isolated.verify("What is 2+2?", "4", "The answer is 4")
    assert v.reason in ("limit:worker_crashed", "expr:identical") or v.correct is True
    while time.monotonic() < deadline:
        v = isolated.verify("What is 2+2?", "4", "The answer is 4")
        if v.correct is True:
            break
        time.sleep(0.5)
    assert v.correct is True


def test_callers_get_workers_first_come_first_served(isolated):
    """Two busy callers returning and retaking workers must not starve a third one."""
    import threading

    deadline = time.monotonic() + 60
    while len(_pids(isolated)) < 2 and time.monotonic() < deadline:
        time.sleep(0.2)
    stop = threading.Event()

    def busy() -> None:
        while not stop.is_set():
            isolated.verify("What is 2+2?", "4", "The answer is 4")

    threads = [threading.Thread(target=busy) for _ in range(2)]
    for t in threads:
        t.start()
    try:
        worst = 0.0
        for _ in range(30):
            t0 = time.monotonic()
            v = isolated.verify("Capital?", "Paris", "Paris")
            worst = max(worst, time.monotonic() - t0)
            assert v.decided_by != "error", v.reason
    finally:
        stop.set()
        for t in threads:
            t.join(10)
    assert worst < 0.5, worst
