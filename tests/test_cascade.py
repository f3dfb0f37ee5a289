"""One cascade: construction replay, validation's replays and ``Verifier.verify`` decide alike."""

from __future__ import annotations

import time
from pathlib import Path

from tasks.construct.replay import cascade, replay_rows
from tasks.construct.state import PoolState
from tasks.data.pool import build_pool
from tasks.paths import repo_path
from tests.helpers import build_release, module_source
from verifier_runtime import load_verifier
from verifier_runtime.artifact import newest_release
from verifier_runtime.cascade import Cascade, first_direct
from verifier_runtime.triple import Triple
from verifier_runtime.types import Decision

REPO = Path(__file__).resolve().parent.parent


def test_replay_and_verify_agree_on_every_pool_example() -> None:
    """The construction pool (the real one when the shared data is there, else the built-in
    seed pool) through construction replay and through ``Verifier.verify``."""
    pool = build_pool(repo_path("configs/pool.yaml"))
    examples = pool.split("construction") or pool.examples
    v = load_verifier(newest_release(REPO / "rulebank"), fallback="offline", budget_s=30.0)
    rows = [(e.question, e.reference, e.response) for e in examples]
    replayed = replay_rows(v, rows)
    disagreements = []
    for (q, r, s), rep in zip(rows, replayed, strict=True):
        verdict = v.verify(q, r, s)
        by = rep["decided_by"] or f"fallback:{v.fallback_name}"
        correct = rep["labels"][v.cascade.ids.index(rep["decided_by"])] == "PASS" if rep["decided_by"] \
            else rep["fallback"]
        if (by, correct) != (verdict.decided_by, verdict.correct):
            disagreements.append((q[:60], by, correct, verdict.decided_by, verdict.correct, verdict.trace))
    assert len(replayed) == len(examples) > 100
    assert not disagreements, disagreements[:5]
    # validation's replay over the recorded labels picks the same deciders
    state = PoolState(examples, v.fallback)
    ids = list(v.cascade.ids)
    state.decisions = {mid: [rep["labels"][k] for rep in replayed] for k, mid in enumerate(ids)}
    for i, rep in enumerate(replayed):
        if rep["fallback"] is not None:
            state._fallback[i] = rep["fallback"]
    _, by = cascade(ids, state.decisions, state)
    assert by == [rep["decided_by"] or "fallback" for rep in replayed]


def test_first_direct_and_exhaustive_runs() -> None:
    assert first_direct([]) is None and first_direct(["ABSTAIN", "ABSTAIN"]) is None
    assert first_direct(["ABSTAIN", "PASS", "FAIL"]) == 1
    calls = []

    def mod(label):
        def decide(x):
            calls.append(label)
            return Decision(label, label.lower())
        return decide

    c = Cascade([("a", mod("ABSTAIN")), ("b", mod("FAIL")), ("c", mod("PASS"))], module_budget_s=1.0)
    run = c.run(Triple("q", "r", "s"), time.monotonic() + 5)
    assert run.decided == 1 and run.decision.label == "FAIL" and calls == ["ABSTAIN", "FAIL"]
    assert [t[0] for t in run.trace] == ["a", "b"] and run.labels == ()
    full = c.run(Triple("q", "r", "s"), time.monotonic() + 5, exhaustive=True)
    assert full.decided == 1 and full.labels == ("ABSTAIN", "FAIL", "PASS") and full.trace == run.trace
    # size rule and deadline rule
    big = c.run(Triple("q", "r", "x" * 10_000_000), time.monotonic() + 5, exhaustive=True)
    assert big.decided is None and big.trace == (("*", "ABSTAIN", "input_too_large"),) and set(big.labels) == {"ABSTAIN"}
    late = c.run(Triple("q", "r", "s"), time.monotonic() - 1)
    assert late.decided is None and late.trace == (("*", "ABSTAIN", "budget_exhausted"),)


def test_verifier_uses_the_cascade(tmp_path: Path) -> None:
    rel = build_release(tmp_path / "r0001", [
        ("m1", "g", module_source("m1", "return Decision.abstain('no')"), 1),
        ("m2", "g", module_source("m2", "return Decision.failed('always')"), 2),
    ])
    v = load_verifier(rel, fallback="none")
    assert v.cascade.ids == ("m1", "m2")
    verdict = v.verify("q", "r", "s")
    assert verdict.decided_by == "m2" and verdict.correct is False
    assert list(verdict.trace) == [("m1", "ABSTAIN", "no"), ("m2", "FAIL", "always")]
    assert [r["decided_by"] for r in replay_rows(v, [("q", "r", "s")])] == ["m2"]


def test_a_runaway_module_is_cut_at_its_own_budget_and_the_next_one_decides() -> None:
    """The cascade call's one watch interrupts each runaway module at its module budget; the
    interrupt never reaches the modules after it, in any thread, and a reason code seen once is
    still checked by content (a cached code is never a free pass for another string)."""
    import threading

    def spin(x):
        end = time.monotonic() + 5
        while time.monotonic() < end:
            pass
        return Decision.abstain("never")

    def slow_pass(x):
        time.sleep(0.05)  # longer than the watchdog's first nudge: a stale interrupt would land here
        return Decision.passed("equal")

    # budgets with room for a loaded machine: "ok" needs 0.05 s of its 0.5 s
    c = Cascade([("spin1", spin), ("spin2", spin), ("ok", slow_pass)], module_budget_s=0.5)
    results = []

    def run():
        t0 = time.monotonic()
        results.append((c.run(Triple("q", "r", "s"), time.monotonic() + 10), time.monotonic() - t0))

    threads = [threading.Thread(target=run) for _ in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(20)
    assert len(results) == 4
    for run_, took in results:
        assert run_.trace == (("spin1", "ABSTAIN", "module_timeout"), ("spin2", "ABSTAIN", "module_timeout"),
                              ("ok", "PASS", "equal")), run_.trace
        assert run_.decided == 2 and took < 5.0
    # a call deadline tighter than the module budget: the rest of the call is skipped
    late = c.run(Triple("q", "r", "s"), time.monotonic() + 0.2)
    assert late.trace[0] == ("spin1", "ABSTAIN", "budget_exhausted") and late.decided is None
    odd = Cascade([("a", lambda x: Decision.passed("has space"))], module_budget_s=1.0)
    assert odd.run(Triple("q", "r", "s"), time.monotonic() + 5).decision.reason == "module_reason_refused"
