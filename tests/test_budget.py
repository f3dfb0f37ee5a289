"""The time budget: interrupts in any thread, never deadlocks, never leaks an interrupt."""

from __future__ import annotations

import threading
import time

from verifier_runtime.limits import BudgetExceeded, budget, check_deadline, remaining


def _spin(seconds: float) -> None:
    end = time.monotonic() + seconds
    while time.monotonic() < end:
        pass


def _run_in_threads(worker, n: int) -> list[threading.Thread]:
    """``worker(i)`` in ``n`` daemon threads at once; fails if any is still running after 60 s."""
    threads = [threading.Thread(target=worker, args=(i,), daemon=True) for i in range(n)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(60)
    assert not any(t.is_alive() for t in threads), "deadlocked"
    return threads


def test_interrupts_a_busy_loop_that_never_checks() -> None:
    t0 = time.monotonic()
    try:
        with budget(0.1):
            _spin(5)
        raise AssertionError("not interrupted")
    except BudgetExceeded:
        pass
    assert time.monotonic() - t0 < 1.0


def test_cooperative_check_and_remaining() -> None:
    assert remaining() is None
    check_deadline()  # no budget: no-op
    try:
        with budget(0.05, hard=False):
            assert 0 < remaining() <= 0.05
            time.sleep(0.06)
            check_deadline()
        raise AssertionError("not interrupted")
    except BudgetExceeded:
        pass


def test_nested_budget_keeps_the_tighter_deadline() -> None:
    with budget(5):
        outer = remaining()
        with budget(0.2):
            assert remaining() <= 0.2 < outer


def test_many_threads_tight_budgets_no_deadlock_no_leak() -> None:
    """Thousands of budgets that expire right at the boundary, from 8 threads at once."""
    leaked: list[BaseException] = []
    counts = {"interrupted": 0, "finished": 0}
    lock = threading.Lock()

    def worker(seed: int) -> None:
        try:
            for k in range(300):
                try:
                    with budget(0.0005 * ((seed + k) % 7)):
                        _spin(0.0005 * ((seed * 3 + k) % 5))
                    with lock:
                        counts["finished"] += 1
                except BudgetExceeded:
                    with lock:
                        counts["interrupted"] += 1
            # after the last budget: nothing may land here any more
            _spin(0.3)
        except BaseException as e:  # noqa: BLE001 - a leaked interrupt is the failure we look for
            leaked.append(e)

    t0 = time.monotonic()
    _run_in_threads(worker, 8)
    assert not leaked, leaked
    assert counts["interrupted"] + counts["finished"] == 8 * 300
    assert counts["interrupted"] > 0 and counts["finished"] > 0
    assert time.monotonic() - t0 < 60


class _InterruptAfterRestore:
    """A deadline variable hit by an interrupt just after the call that restores the previous
    deadline returned (before the cleanup recorded that it was done)."""

    def __init__(self, var) -> None:
        self.var = var
        self.sets = 0

    def get(self):
        return self.var.get()

    def set(self, value):
        self.sets += 1
        token = self.var.set(value)
        if self.sets == 2:  # the first set starts the budget, the second restores
            raise BudgetExceeded("landed after the restore")
        return token


def test_interrupt_landing_after_the_restore_is_absorbed(monkeypatch) -> None:
    from verifier_runtime import limits

    fake = _InterruptAfterRestore(limits._deadline)
    monkeypatch.setattr(limits, "_deadline", fake)
    with budget(5):
        pass  # leaving must not raise the spent interrupt
    assert fake.sets == 3 and remaining() is None
    assert limits.call_with_budget(5, lambda v: v + 1, 1) == 2 and remaining() is None


def test_watchdog_check_takes_no_lock() -> None:
    """Registering does not ask the thread whether it is alive (that takes a lock per call)."""
    from verifier_runtime import limits

    with budget(1):
        pass
    thread = limits._WATCHDOG._thread
    assert thread is not None and thread.is_alive()
    calls = []
    original = type(thread).is_alive
    try:
        type(thread).is_alive = lambda self: calls.append(1) or original(self)
        with budget(1):
            pass
    finally:
        type(thread).is_alive = original
    assert not calls


def test_budget_holds_in_a_forked_child() -> None:
    """A child forked after the parent started its watchdog gets a watchdog of its own."""
    import os

    with budget(1):
        pass
    pid = os.fork()
    if pid == 0:  # the child: exit 0 only if the busy loop was interrupted
        code = 1
        try:
            with budget(0.1):
                _spin(3)
        except BudgetExceeded:
            code = 0
        finally:
            os._exit(code)
    _, status = os.waitpid(pid, 0)
    assert os.waitstatus_to_exitcode(status) == 0


# --- one watch for a series of calls (a cascade call's modules) ------------------------------


def test_one_watch_interrupts_each_runaway_call_and_the_next_call_still_runs() -> None:
    from verifier_runtime.limits import run_watched

    def body(watch):
        out = []
        for spin_s in (5.0, 0.0, 5.0, 0.0):
            t0 = time.monotonic()
            try:
                watch.call(0.1, _spin, spin_s)
                out.append(("returned", time.monotonic() - t0))
            except BudgetExceeded:
                out.append(("interrupted", time.monotonic() - t0))
        _spin(0.4)  # idle between calls: an earlier call's spent deadline never fires here
        return out

    out = run_watched(body)
    assert [kind for kind, _ in out] == ["interrupted", "returned", "interrupted", "returned"]
    assert all(took < 1.0 for _, took in out), out
    assert remaining() is None


def test_one_watch_keeps_the_enclosing_budget_and_the_call_deadline() -> None:
    from verifier_runtime.limits import run_watched

    def body(watch):
        seen = watch.call(10.0, lambda _: remaining(), None)
        capped = watch.call(10.0, lambda _: remaining(), None, time.monotonic() + 0.05)
        after = remaining()
        return seen, capped, after

    with budget(0.3):
        seen, capped, after = run_watched(body)
        assert 0 < seen <= 0.3 and 0 < capped <= 0.05 and 0 < after <= 0.3
    assert remaining() is None


def test_one_watch_leaves_the_watchdog_table_and_leaks_no_interrupt_from_many_threads() -> None:
    """Calls that overrun right at their deadline, from 8 threads, each thread one watch for 200."""
    from verifier_runtime import limits

    leaked: list[BaseException] = []
    counts = {"interrupted": 0, "finished": 0}
    lock = threading.Lock()

    def body(watch, seed):
        for k in range(200):
            try:
                watch.call(0.0005 * ((seed + k) % 7), _spin, 0.0005 * ((seed * 3 + k) % 5))
                with lock:
                    counts["finished"] += 1
            except BudgetExceeded:
                with lock:
                    counts["interrupted"] += 1

    def worker(seed: int) -> None:
        try:
            limits.run_watched(body, seed)
            _spin(0.3)  # after the watch ended: nothing may land here any more
        except BaseException as e:  # noqa: BLE001 - a leaked interrupt is the failure we look for
            leaked.append(e)

    threads = _run_in_threads(worker, 8)
    assert not leaked, leaked
    assert counts["interrupted"] + counts["finished"] == 8 * 200
    assert counts["interrupted"] > 0 and counts["finished"] > 0
    mine = {t.ident for t in threads}
    time.sleep(0.2)  # the watchdog drops ended watches on its next poll
    assert not [e for e in list(limits._WATCHDOG._entries.values()) if e.thread_id in mine and e.active]



def _collect_and_spin(args: tuple[float, bool]) -> str:
    """A full collection, then work until ``seconds`` after the start (with cooperative checks when
    asked): the collection counts in the turn's time, however long it takes on a loaded machine."""
    import gc

    seconds, checking = args
    end = time.monotonic() + seconds
    gc.collect()
    while time.monotonic() < end:
        if checking:
            check_deadline()
    return "done"


def test_a_module_turn_overrunning_after_a_full_collection_gets_its_budget_once_more() -> None:
    """A full collection during a verify call (it stops every thread) gives an overrunning turn
    its budget once more, for the watchdog and the cooperative check alike; never twice, never
    past the call's deadline; without a collection nothing changes."""
    from verifier_runtime.limits import full_collections, run_watched

    def attempt(watch, budget_s, seconds, checking, deadline=None):
        t0 = time.monotonic()
        try:
            out = watch.call(budget_s, _collect_and_spin, (seconds, checking), deadline)
        except BudgetExceeded:
            out = "interrupted"
        return out, time.monotonic() - t0

    def body(watch):
        n0 = full_collections()
        # budgets large against a full collection of this test process's heap on a loaded machine
        rows = [attempt(watch, 1.0, 1.3, False), attempt(watch, 1.0, 1.3, True),  # 1.3 budgets: done
                attempt(watch, 1.0, 6.0, False), attempt(watch, 1.0, 6.0, True),  # more than 2: not
                attempt(watch, 5.0, 6.0, True, time.monotonic() + 0.3)]  # the call's deadline holds
        return rows, full_collections() - n0

    rows, collections = run_watched(body)
    assert collections >= 5
    assert [r for r, _ in rows] == ["done", "done", "interrupted", "interrupted", "interrupted"], rows
    assert all(took < 4.0 for _, took in rows[2:4]) and rows[4][1] < 2.0, rows
    # and a call in which no full collection ran keeps the plain budget
    import gc

    gc.disable()
    try:
        def plain(watch):
            t0 = time.monotonic()
            try:
                watch.call(0.2, _spin, 0.3)
                return "done", time.monotonic() - t0
            except BudgetExceeded:
                return "interrupted", time.monotonic() - t0
        assert run_watched(plain)[0] == "interrupted"
    finally:
        gc.enable()
    assert remaining() is None
