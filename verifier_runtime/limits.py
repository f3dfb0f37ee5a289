"""Hard limits and the per-call time budget.

The budget works in any thread (never ``signal.alarm``): a call registers its deadline
with one watchdog thread per process; pure-Python work is interrupted cooperatively by
:func:`check_deadline` and, as a backstop, the watchdog raises :class:`BudgetExceeded`
asynchronously in the overdue thread. Work inside one long C call (a huge integer power)
cannot be interrupted that way, which is why inputs are bounded *before* any symbolic
work (see the ``MAX_*`` constants and the guards in the toolkit).
"""

from __future__ import annotations

import contextvars
import ctypes
import gc
import itertools
import os
import threading
import time
from contextlib import contextmanager

# Input sizes (characters). Longer inputs are cut (responses: the tail is kept, where final
# answers live) or refused with an abstention.
MAX_QUESTION_CHARS = 20_000
MAX_REFERENCE_CHARS = 20_000
MAX_RESPONSE_CHARS = 1_000_000  # larger responses abstain outright
RESPONSE_TAIL_CHARS = 16_000  # extraction looks at most at this much of the response's end
MAX_ANSWER_CHARS = 1_000  # an extracted answer longer than this is not parsed symbolically
# Expression size: nesting depth, node count, digits in a literal, exponent magnitude.
MAX_EXPR_DEPTH = 40
MAX_EXPR_NODES = 400
MAX_LITERAL_DIGITS = 400
MAX_EXPONENT = 10_000
MAX_FACTORIAL_ARG = 1_000
# Time budgets (seconds).
DEFAULT_CALL_BUDGET_S = 1.5  # a whole verify call: modules and an in-process judge
DEFAULT_REMOTE_CALL_BUDGET_S = 60.0  # a whole verify call whose judge is networked (an LLM needs seconds)
DEFAULT_MODULE_BUDGET_S = 0.5


#: Reasons a size estimate refused some work in the current call (``limit:<what>``), collected
#: for the verdict; ``None`` outside a collecting call. Inside one: ``[thread id, codes, codes ...]``,
#: one list of codes per collection begun and not yet ended, the innermost last. A nested
#: collection (a parse cache's, :mod:`~verifier_runtime.toolkit._memo`, several per triple) adds
#: a list to its thread's own stack instead of setting the variable: a plain append and delete
#: instead of a set and a reset of the variable, with the same codes collected.
_limit_notes: contextvars.ContextVar[list | None] = contextvars.ContextVar("autoverifier_limit_notes", default=None)


def note_limit(code: str) -> None:
    """Record that a hard limit refused work (``limit:<what>``) in the current verify call."""
    stack = _limit_notes.get()
    if stack is not None:
        notes = stack[-1]
        if code not in notes and len(notes) < 8:
            notes.append(code)


def start_limit_notes() -> tuple:
    """Begin collecting :func:`note_limit` codes for one call; pass the token to :func:`end_limit_notes`."""
    stack = _limit_notes.get()
    if stack is not None and stack[0] == threading.get_ident():  # nested, in the thread that began the stack
        depth = len(stack)
        stack.append([])
        return stack, depth, None
    stack = [threading.get_ident(), []]
    return stack, 1, _limit_notes.set(stack)


def end_limit_notes(token: tuple) -> list[str]:
    """Stop collecting and return the codes noted since :func:`start_limit_notes`."""
    stack, depth, var_token = token
    notes = stack[depth] if len(stack) > depth else []
    if var_token is not None:
        _limit_notes.reset(var_token)
    else:
        del stack[depth:]  # with any begun inside and never ended (an interrupt between their steps)
    return notes


# --- the collector's pauses ---------------------------------------------------------------
# A module's budget is meant for its own work. A full garbage collection stops every thread of
# the process (it holds the interpreter lock), and in a process with a large heap (a training
# job's) one takes a quarter of a second or more: charged to whichever module was running, it
# turned a 5 ms decision into a time-out, and the next module (or the judge) decided instead,
# so the verdict depended on when the collector ran. So a module's turn that overruns its
# budget in a verify call during which a full collection ran gets its budget once more, never
# past the call's own deadline (which stays on the wall clock: a caller's latency bound holds).
# The count of full collections is read once per call and again only on an overrun; the
# collector's callbacks (``gc.callbacks``) are not used, since an interrupt that lands inside
# one is swallowed by the collector.


def full_collections() -> int:
    """How many full (oldest-generation) garbage collections this process has run."""
    return gc.get_stats()[-1]["collections"]


def _extended(deadline: float, budget_s: float, gc_mark: int, cap: float) -> float:
    """A turn's deadline once more its budget if a full collection ran since ``gc_mark``, at most ``cap``."""
    if budget_s <= 0.0 or full_collections() == gc_mark:
        return deadline
    return min(deadline + budget_s, cap)


def _current_turn() -> _Entry | None:
    """This thread's watch in a module turn (:meth:`Watch.call`), for an overdue cooperative check
    (rare, so a scan of the watchdog's table is cheaper than keeping it at every turn)."""
    me = threading.get_ident()
    for e in list(_WATCHDOG._entries.values()):
        if e.thread_id == me and e.active and e.turn_budget > 0.0 and e.deadline != _IDLE:
            return e
    return None


class BudgetExceeded(BaseException):  # noqa: N818 - BaseException so `except Exception` cannot swallow it
    """Raised inside a call whose time budget is spent."""


_deadline: contextvars.ContextVar[float | None] = contextvars.ContextVar("autoverifier_deadline", default=None)


def remaining() -> float | None:
    """Seconds left in the current budget, or ``None`` outside any budget."""
    d = _deadline.get()
    return None if d is None else d - time.monotonic()


def check_deadline() -> None:
    """Cooperative check: raise :class:`BudgetExceeded` if the current budget is spent (a module's
    turn gets its budget once more after a full collection: see :func:`full_collections`)."""
    d = _deadline.get()
    if d is not None:
        now = time.monotonic()
        if now > d:
            e = _current_turn()
            if e is None or now > _extended(d, e.turn_budget, e.gc_mark, e.cap):
                raise BudgetExceeded("time budget exceeded")


class _Entry:
    """One watch: its deadline, the deadline it replaced in the context variable, and the
    flags the watched thread and the watchdog use to hand an interrupt over without a lock."""

    __slots__ = ("thread_id", "deadline", "previous", "token", "restore", "active", "armed", "fired",
                 "injecting", "nudged_at", "turn", "gc_mark", "turn_budget", "cap")

    def __init__(self, thread_id: int, deadline: float, previous: float | None) -> None:
        self.thread_id = thread_id
        self.deadline = deadline
        self.turn = 0  # a reused watch (:class:`Watch`) counts its calls: an interrupt is for one turn only
        self.previous = previous  # the context variable's value before this watch
        self.token: int | None = None  # key in the watchdog's table while registered
        self.restore = False  # the context variable may hold this watch's deadline: put ``previous`` back
        self.active = True
        self.armed = False  # set once registered: the watchdog may interrupt from then on
        self.fired = False
        self.injecting = False
        self.nudged_at = 0.0
        self.gc_mark = 0  # a reused watch: full collections when its call began
        self.turn_budget = 0.0  # the current turn's budget (0: its deadline never moves)
        self.cap = 0.0  # and the latest its deadline may move to


_NUDGE_EVERY_S = 0.1  # repeat the interrupt while the call has not ended (it may have landed in C code)
_POLL_MAX_S = 0.05


class _Watchdog:
    """One daemon thread per process that interrupts overdue calls.

    The watched threads never take a lock here: an asynchronous exception that lands while a
    thread holds a lock would leave the lock held for ever. Their side is atomic operations
    only (a dict store and pop, attribute writes); the watchdog polls at most every 50 ms.
    """

    def __init__(self) -> None:
        self._entries: dict[int, _Entry] = {}
        self._counter = itertools.count()
        self._pid = os.getpid()
        self._thread: threading.Thread | None = None
        self._start_lock = threading.Lock()

    def _ensure_thread(self) -> None:
        # The thread never returns (its loop outlives errors), so "started in this process" is
        # enough: ``Thread.is_alive`` takes a lock, and cost several per cent of a verify call.
        if self._thread is not None and self._pid == _PID[0]:
            return
        with self._start_lock:  # only on first use in a process (or after fork), before any deadline
            if self._pid != _PID[0]:  # forked: the parent's thread and entries are gone
                self._entries = {}
                self._pid = _PID[0]
                self._thread = None
            if self._thread is None:
                self._thread = threading.Thread(target=self._run, name="autoverifier-watchdog", daemon=True)
                self._thread.start()

    def _run(self) -> None:
        while True:
            try:
                self._poll()
            except Exception:  # noqa: BLE001 - the watchdog must outlive any surprise: keep polling
                time.sleep(_POLL_MAX_S)

    def _poll(self) -> None:
        while True:
            now = time.monotonic()
            nearest = now + _POLL_MAX_S
            for token, entry in list(self._entries.items()):
                if not entry.active or (not entry.armed and entry.deadline < now - 1.0):
                    self._entries.pop(token, None)  # ended, or never armed (its caller was interrupted)
                    continue
                turn = entry.turn  # read before the deadline: a turn that ends meanwhile is not interrupted
                deadline = entry.deadline
                if deadline <= now and entry.cap > deadline:  # a full collection ran: once more the budget
                    deadline = _extended(deadline, entry.turn_budget, entry.gc_mark, entry.cap)
                if deadline > now:
                    nearest = min(nearest, deadline)
                    continue
                if entry.fired and now - entry.nudged_at < _NUDGE_EVERY_S:
                    continue
                entry.nudged_at = now
                entry.injecting = True  # _finish() waits for this flag to drop before it withdraws
                try:
                    if entry.active and entry.armed and entry.turn == turn:
                        entry.fired = True
                        _set_async_exc(entry.thread_id, BudgetExceeded)
                finally:
                    entry.injecting = False
            time.sleep(max(0.001, min(_POLL_MAX_S, nearest - time.monotonic())))


def _set_async_exc(thread_id: int, exc: type[BaseException] | None) -> None:
    ctypes.pythonapi.PyThreadState_SetAsyncExc(ctypes.c_ulong(thread_id), None if exc is None else ctypes.py_object(exc))


_PID = [os.getpid()]  # this process's id, refreshed in a forked child (os.getpid is a system call)
if hasattr(os, "register_at_fork"):
    os.register_at_fork(after_in_child=lambda: _PID.__setitem__(0, os.getpid()))
_WATCHDOG = _Watchdog()


def _start(seconds: float, hard: bool, set_context: bool = True) -> _Entry:
    """Begin a watch: set the context deadline (the tighter of ``seconds`` and an enclosing
    budget; with ``set_context`` false it is left as it is, for a :class:`Watch`, whose turns set
    their own) and, when ``hard``, register with the watchdog. On an interrupt landing midway it
    undoes what it did and re-raises. Every step that changes state is a plain store or a C
    call whose effect is recorded beforehand, so the undo never misses one."""
    e = None
    try:
        outer = _deadline.get()
        deadline = time.monotonic() + max(0.0, seconds)
        e = _Entry(threading.get_ident(), deadline if outer is None or deadline < outer else outer, outer)
        e.restore = True  # recorded first: an interrupt can only land after the set below returned
        if set_context:
            _deadline.set(e.deadline)
        if hard:
            _WATCHDOG._ensure_thread()
            e.token = next(_WATCHDOG._counter)
            _WATCHDOG._entries[e.token] = e
            e.armed = True
        return e
    except BaseException:
        if e is not None:
            e.active = False
            while True:
                try:
                    _finish(e)
                    break
                except BudgetExceeded:  # one that was already pending: it is spent
                    continue
        raise


def _finish(e: _Entry) -> None:
    """End a watch whose ``active`` flag the caller already cleared (a plain store, so no new
    interrupt can be started for it). Idempotent: an interrupt that was already pending may
    land inside, and the caller then simply calls it again."""
    e.active = False
    while e.injecting:  # the watchdog is between its check and its interrupt: let it finish
        time.sleep(0)
    if e.fired:
        e.fired = False
        _set_async_exc(e.thread_id, None)  # withdraw one still pending
    if e.token is not None:
        _WATCHDOG._entries.pop(e.token, None)
        e.token = None
    if e.restore:
        _deadline.set(e.previous)  # by value, not by token: repeating it is harmless
        e.restore = False


def call_with_budget(seconds: float, fn, arg):
    """``fn(arg)`` under a hard time budget: the verifier's hot path (one per module call).

    The same watch as :func:`budget`, without a generator-based context manager, which cost
    about three times the watch itself. Raises :class:`BudgetExceeded` when the budget is spent.
    """
    e = None
    try:
        e = _start(seconds, True)
        return fn(arg)
    finally:
        # Inline on purpose, here and in budget(): a helper's first line is itself a point where
        # a pending interrupt lands, and it would then skip the whole cleanup.
        if e is not None:
            e.active = False  # first, and not a call: nothing can interrupt before it
            while True:
                try:
                    _finish(e)
                    break
                except BudgetExceeded:  # one that was already pending: it is spent
                    continue


_IDLE = float("inf")  # the deadline of a reused watch between two calls: never overdue


class Watch:
    """One watchdog registration for a series of budgeted calls in one thread (the modules of a
    cascade call): :meth:`call` is :func:`call_with_budget` without registering and
    withdrawing a watch each time, which cost about half of a module call's overhead.

    Between calls the watch is idle (its deadline is infinite), so the watchdog never
    interrupts the caller's own code. Each call is a *turn*: an interrupt the watchdog decided
    on for a turn that has ended is not sent, and one already sent is withdrawn, so it never
    lands in a later call. Made only by :func:`run_watched`, which ends it.

    The context deadline (what :func:`remaining` and :func:`check_deadline` read) is the turn's
    during a turn. A turn that raises puts the enclosing one back before the exception reaches
    the caller; one that returns leaves it until the next turn sets its own or
    :func:`run_watched` ends (which puts it back, as every watch's end does): the code between
    two turns (the cascade's bookkeeping) reads no deadline, and one set fewer per turn is a
    tenth of a turn's cost.
    """

    __slots__ = ("_e",)

    def __init__(self, entry: _Entry) -> None:
        self._e = entry

    def call(self, seconds: float, fn, arg, deadline: float | None = None):
        """``fn(arg)`` under a hard budget of ``seconds``, capped by ``deadline`` (``time.monotonic``
        clock) and by any enclosing budget. Raises :class:`BudgetExceeded` when it is spent."""
        e = self._e
        returned = False
        try:
            end = time.monotonic() + (seconds if seconds > 0.0 else 0.0)  # max(0.0, seconds), without the call
            cap = _IDLE if deadline is None else deadline
            outer = e.previous
            if outer is not None and outer < cap:
                cap = outer
            if cap < end:
                end = cap
            e.turn_budget = seconds
            e.cap = cap
            _deadline.set(end)  # the cooperative checks inside fn
            e.deadline = end  # the watchdog may interrupt from here on
            value = fn(arg)
            returned = True
            return value
        finally:
            e.deadline = _IDLE  # first, and not a call: nothing can interrupt before it
            # Close the turn, written out (a helper's call would be one more place for a pending
            # interrupt to land). Idempotent, like _finish(): after an interrupt inside, it runs again.
            while True:
                try:
                    e.turn += 1  # a decision the watchdog took on this turn's deadline is void from here on
                    while e.injecting:  # the watchdog is between its check and its interrupt: let it finish
                        time.sleep(0)
                    if e.fired:
                        e.fired = False
                        _set_async_exc(e.thread_id, None)  # withdraw one still pending
                    if not returned:  # the caller's handler may ask what is left (see the class)
                        _deadline.set(e.previous)
                    break
                except BudgetExceeded:  # one that was already pending: it is spent
                    continue


def run_watched(body, *args):
    """``body(watch, *args)`` with one hard :class:`Watch` for all the budgeted calls it makes."""
    e = None
    try:
        e = _start(_IDLE, True, False)  # the context keeps the enclosing budget: between calls only it holds
        e.deadline = _IDLE  # _start caps the deadline by an enclosing budget: idle until a call
        e.gc_mark = full_collections()
        return body(Watch(e), *args)
    finally:
        if e is not None:
            e.active = False  # first, and not a call: nothing can interrupt before it
            while True:
                try:
                    _finish(e)
                    break
                except BudgetExceeded:  # one that was already pending: it is spent
                    continue


@contextmanager
def budget(seconds: float, *, hard: bool = True):
    """Run the body under a time budget of ``seconds`` (nested budgets keep the tighter one).

    Raises :class:`BudgetExceeded` from the body when the budget is spent. With ``hard=True``
    the watchdog also interrupts code that never calls :func:`check_deadline`.
    ``with budget(s) as deadline`` gives the absolute deadline (``time.monotonic`` clock).
    """
    e = None
    try:
        e = _start(seconds, hard)
        yield e.deadline
    finally:
        if e is not None:
            e.active = False  # first, and not a call: nothing can interrupt before it
            while True:
                try:
                    _finish(e)
                    break
                except BudgetExceeded:  # one that was already pending: it is spent
                    continue


# --- bounded waits on work that cannot be interrupted (network calls) ----------------------

_POOL_WORKERS = 32
_pool: list = [None, 0]  # [executor, pid it was made in]
_pool_lock = threading.Lock()


def _executor():
    from concurrent.futures import ThreadPoolExecutor

    pool, pid = _pool
    if pool is None or pid != _PID[0]:
        with _pool_lock:
            if _pool[0] is None or _pool[1] != _PID[0]:  # first use, or a forked child (threads are gone)
                _pool[0] = ThreadPoolExecutor(max_workers=_POOL_WORKERS, thread_name_prefix="autoverifier-wait")
                _pool[1] = _PID[0]
            pool = _pool[0]
    return pool


def call_in_pool(seconds: float, fn, arg):
    """``fn(arg)`` on a pooled thread; the caller waits at most ``seconds``.

    For work that must not be interrupted (a network request holds connection-pool locks): on
    time-out the work goes on in the background and :class:`BudgetExceeded` is raised here. At
    most 32 such calls run at once per process; a call that waits for a free thread spends its
    own budget doing so.
    """
    from concurrent.futures import TimeoutError as FutureTimeout

    future = _executor().submit(fn, arg)
    try:
        return future.result(timeout=max(0.0, seconds))
    except FutureTimeout:
        future.cancel()  # still queued: never starts
        raise BudgetExceeded("time budget exceeded while waiting") from None
