"""One budget for the whole verify call: modules and judge together never exceed it."""

from __future__ import annotations

import threading
import time
from pathlib import Path

import pytest

from tests.helpers import build_release, module_source
from verifier_runtime import FallbackResult, load_verifier
from verifier_runtime.limits import DEFAULT_CALL_BUDGET_S, DEFAULT_REMOTE_CALL_BUDGET_S


class SpinningLocalJudge:
    """An in-process judge that never returns on its own (interrupted by the budget)."""

    name = "spin"
    local = True

    def judge(self, question, reference, response, *, guidance=""):
        while True:
            pass

    def judge_batch(self, rows, *, guidance="", workers=4):
        return [self.judge(*r, guidance=guidance) for r in rows]


class SlowRemoteJudge:
    """A networked judge stand-in: blocks (as a socket read does) for ``delay_s``."""

    name = "slow-remote"

    def __init__(self, delay_s: float) -> None:
        self.delay_s = delay_s
        self.finished = threading.Event()

    def judge(self, question, reference, response, *, guidance=""):
        time.sleep(self.delay_s)
        self.finished.set()
        return FallbackResult(True, "remote:yes")

    def judge_batch(self, rows, *, guidance="", workers=4):
        return [self.judge(*r, guidance=guidance) for r in rows]


@pytest.fixture()
def slow_release(tmp_path: Path) -> Path:
    spin = module_source("m1_spin", "n = 0\nwhile x.response == 'spin':\n    n += 1\nreturn Decision.abstain('no')")
    return build_release(tmp_path / "r0001", [("m1_spin", "slow", spin, 10)])


def test_module_time_and_local_judge_share_one_budget(slow_release: Path) -> None:
    # the module may take its whole 0.5 s; the judge gets only what is left of the 0.8 s call
    v = load_verifier(slow_release, fallback=SpinningLocalJudge(), budget_s=0.8, module_budget_s=0.5)
    t0 = time.monotonic()
    verdict = v.verify("q", "1", "spin")
    took = time.monotonic() - t0
    assert took < 0.8 + 0.25, took  # the watchdog polls every 50 ms; nudges every 100 ms
    assert verdict.fallback_called and verdict.correct is False
    assert verdict.reason == "fallback_undecided:fallback_timeout"
    assert ("m1_spin", "ABSTAIN", "module_timeout") in verdict.trace


def test_batch_rows_each_keep_one_budget(slow_release: Path) -> None:
    v = load_verifier(slow_release, fallback=SpinningLocalJudge(), budget_s=0.6, module_budget_s=0.4)
    t0 = time.monotonic()
    out = v.verify_batch([{"question": "q", "reference": "1", "response": "spin"}] * 3, workers=3)
    took = time.monotonic() - t0
    assert [o.reason for o in out] == ["fallback_undecided:fallback_timeout"] * 3
    # three rows in three threads, then three judges in turn with 0.2 s left each: 0.4 + 3 * 0.2
    assert took < 0.4 + 3 * 0.2 + 0.5, took


def test_networked_judge_wait_is_bounded_by_the_call_budget(slow_release: Path) -> None:
    judge = SlowRemoteJudge(delay_s=1.0)
    v = load_verifier(slow_release, fallback=judge, budget_s=0.3)
    t0 = time.monotonic()
    verdict = v.verify("q", "1", "not spinning")
    took = time.monotonic() - t0
    assert took < 0.5, took
    assert verdict.reason == "fallback_undecided:fallback_timeout" and verdict.fallback_called
    assert judge.finished.wait(3)  # the request was not cut: it finished in the background


def test_default_budgets_depend_on_where_the_judge_runs(slow_release: Path) -> None:
    assert load_verifier(slow_release, fallback="offline").budget_s == DEFAULT_CALL_BUDGET_S
    assert load_verifier(slow_release, fallback="none").budget_s == DEFAULT_CALL_BUDGET_S
    assert load_verifier(slow_release, fallback=SlowRemoteJudge(0.0)).budget_s == DEFAULT_REMOTE_CALL_BUDGET_S
    fast = load_verifier(slow_release, fallback=SlowRemoteJudge(0.0))
    assert fast.verify("q", "1", "x").correct is True


def test_a_spent_budget_skips_the_judge(slow_release: Path) -> None:
    v = load_verifier(slow_release, fallback=SpinningLocalJudge(), budget_s=0.3, module_budget_s=1.0)
    t0 = time.monotonic()
    verdict = v.verify("q", "1", "spin")  # the module alone spends the whole call budget
    assert time.monotonic() - t0 < 0.6
    assert verdict.reason == "fallback_undecided:budget_exhausted"
