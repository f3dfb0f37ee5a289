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
import heapq
import itertools
import os
import threading
import time
from collections.abc import Callable
from contextlib import contextmanager
from typing import TypeVar

T = TypeVar("T")

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
DEFAULT_CALL_BUDGET_S = 1.5
DEFAULT_MODULE_BUDGET_S = 0.5


class BudgetExceeded(BaseException):  # noqa: N818 - BaseException so `except Exception` cannot swallow it
    """Raised inside a call whose time budget is spent."""


_deadline: contextvars.ContextVar[float | None] = contextvars.ContextVar("autoverifier_deadline", default=None)


def remaining() -> float | None:
    """Seconds left in the current budget, or ``None`` outside any budget."""
    d = _deadline.get()
    return None if d is None else d - time.monotonic()


def check_deadline() -> None:
    """Cooperative check: raise :class:`BudgetExceeded` if the current budget is spent."""
    d = _deadline.get()
    if d is not None and time.monotonic() > d:
        raise BudgetExceeded("time budget exceeded")


class _Watchdog:
    """One daemon thread per process that interrupts overdue calls."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._cond = threading.Condition(self._lock)
        self._heap: list[tuple[float, int]] = []
        self._entries: dict[int, list] = {}  # token -> [thread_id, deadline, fired]
        self._counter = itertools.count()
        self._pid = os.getpid()
        self._thread: threading.Thread | None = None

    def _ensure_thread(self) -> None:
        if self._thread is None or not self._thread.is_alive() or self._pid != os.getpid():
            if self._pid != os.getpid():  # forked: the parent's thread and entries are gone
                self._heap.clear()
                self._entries.clear()
                self._pid = os.getpid()
            self._thread = threading.Thread(target=self._run, name="autoverifier-watchdog", daemon=True)
            self._thread.start()

    def register(self, deadline: float) -> int:
        with self._cond:
            self._ensure_thread()
            token = next(self._counter)
            self._entries[token] = [threading.get_ident(), deadline, False]
            heapq.heappush(self._heap, (deadline, token))
            self._cond.notify()
            return token

    def unregister(self, token: int) -> bool:
        with self._cond:
            entry = self._entries.pop(token, None)
            return bool(entry and entry[2])

    def _run(self) -> None:
        while True:
            with self._cond:
                now = time.monotonic()
                while self._heap and (self._heap[0][1] not in self._entries):
                    heapq.heappop(self._heap)
                if not self._heap:
                    self._cond.wait(timeout=1.0)
                    continue
                deadline, token = self._heap[0]
                if deadline > now:
                    self._cond.wait(timeout=min(deadline - now, 1.0))
                    continue
                heapq.heappop(self._heap)
                entry = self._entries.get(token)
                if entry is None:
                    continue
                entry[2] = True
                ctypes.pythonapi.PyThreadState_SetAsyncExc(ctypes.c_ulong(entry[0]), ctypes.py_object(BudgetExceeded))
                # Nudge again until the call unregisters (the first one may land in code that swallows it).
                heapq.heappush(self._heap, (now + 0.05, token))


_WATCHDOG = _Watchdog()


def _clear_pending(thread_id: int) -> None:
    ctypes.pythonapi.PyThreadState_SetAsyncExc(ctypes.c_ulong(thread_id), None)


@contextmanager
def budget(seconds: float, *, hard: bool = True):
    """Run the body under a time budget of ``seconds`` (nested budgets keep the tighter one).

    Raises :class:`BudgetExceeded` from the body when the budget is spent. With ``hard=True``
    the watchdog also interrupts code that never calls :func:`check_deadline`.
    """
    now = time.monotonic()
    outer = _deadline.get()
    deadline = now + max(0.0, seconds)
    if outer is not None:
        deadline = min(deadline, outer)
    reset = _deadline.set(deadline)
    token = _WATCHDOG.register(deadline) if hard else None
    try:
        yield deadline
    finally:
        if token is not None:
            while True:  # an asynchronous exception may land while we unregister: retry, then clear it
                try:
                    fired = _WATCHDOG.unregister(token)
                    if fired:
                        _clear_pending(threading.get_ident())
                    break
                except BudgetExceeded:
                    continue
        _deadline.reset(reset)


def call_with_budget(fn: Callable[[], T], seconds: float, *, hard: bool = True) -> T:
    """``fn()`` under :func:`budget`; raises :class:`BudgetExceeded` when it runs over."""
    with budget(seconds, hard=hard):
        return fn()
