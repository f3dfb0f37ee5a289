"""The one cascade: modules in priority order, the first direct decision wins, the judge on abstain.

Everything that turns module decisions into a verdict goes through here: ``Verifier.verify``
and ``verify_batch``, construction replay (which also records every later module's label,
for validation), validation's replays over recorded decisions (:func:`first_direct`), and
``autoverifier rules explain``. What is validated is what ships.

The rules, in order:

1. An input over the size limits (``Triple.oversized``) is decided by no module
   (``input_too_large``).
2. Modules run in the release's order, each under its own time budget (``module_budget_s``),
   capped by what is left of the whole call's budget (and of any enclosing one).
3. The first ``PASS`` or ``FAIL`` wins; a later module never overrides it. An error, a bad
   return value or an overrun is an abstention with its reason.
4. Once the call's deadline has passed no further module starts (``budget_exhausted``).
5. When every module abstained, the judge (the fallback) is asked with what is left of the
   call's budget; an undecided judge counts as incorrect.

An *exhaustive* run (construction replay) keeps going after the first direct decision, so
that validation sees every module's label; each later module still runs under its own
budget, and the decision and the trace up to it are exactly those of a normal run.
"""

from __future__ import annotations

import re
import time
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from typing import Any

from verifier_runtime.fallback.base import Fallback
from verifier_runtime.limits import (
    BudgetExceeded,
    Watch,
    call_in_pool,
    call_with_budget,
    remaining,
    run_watched,
)
from verifier_runtime.sandbox import in_sandbox, sandboxed_decide
from verifier_runtime.triple import Triple
from verifier_runtime.types import ABSTAIN, Decision, FallbackResult

TraceEntry = tuple[str, str, str]  # (module id or "*", label, reason)
_REASON_CODE = re.compile(r"[A-Za-z0-9_:.+\-=/]{0,80}")


def first_direct(labels: Iterable[str]) -> int | None:
    """The position of the first direct (``PASS``/``FAIL``) label, or ``None`` when all abstain.

    The cascade's selection rule, shared by live runs and replays over recorded decisions.

    >>> first_direct(["ABSTAIN", "FAIL", "PASS"]), first_direct(["ABSTAIN"])
    (1, None)
    """
    for k, label in enumerate(labels):
        if label != ABSTAIN:
            return k
    return None


def run_decide(decide: Any, x: Triple, budget_s: float, *, strict: bool = False, module_id: str = "",
               call_deadline: float | None = None, watch: Watch | None = None) -> Decision:
    """Run one module's ``decide`` under its time budget; errors and overruns become abstentions.

    ``call_deadline`` (``time.monotonic`` clock): the whole call's deadline, which caps the
    module's budget; an overrun past it is reported as ``budget_exhausted``. ``watch``: the
    cascade call's one watchdog registration (:func:`~verifier_runtime.limits.run_watched`),
    else the module gets a watch of its own.
    """
    try:
        if watch is not None:
            d = watch.call(budget_s, decide, x, call_deadline)
        else:
            if call_deadline is not None:
                budget_s = min(budget_s, call_deadline - time.monotonic())
            d = call_with_budget(budget_s, decide, x)
    except BudgetExceeded:
        if strict:
            raise
        return _overran(call_deadline)
    except Exception as e:
        if strict:
            raise
        return Decision(ABSTAIN, f"module_error:{type(e).__name__}")
    return _checked(d, strict, module_id)


def _overran(call_deadline: float | None) -> Decision:
    """The abstention of a module whose budget ran out."""
    left = remaining()
    spent = (left is not None and left <= 0) or (call_deadline is not None and time.monotonic() >= call_deadline)
    return Decision(ABSTAIN, "budget_exhausted" if spent else "module_timeout")


_LABELS = ("PASS", "FAIL", "ABSTAIN")


def _checked(d: Any, strict: bool, module_id: str) -> Decision:
    """What a module returned, as the cascade takes it: a :class:`Decision` with a short reason code."""
    if not isinstance(d, Decision) or d.label not in _LABELS:
        if strict:
            raise TypeError(f"module {module_id} returned {d!r}, not a Decision")
        return Decision(ABSTAIN, "module_bad_return")
    reason = d.reason
    if type(reason) is not str or (reason not in _CODES and not _reason_code(reason)):
        # a reason is a short code; anything else (long, free text, computed from the input or
        # the host) never reaches the caller
        return Decision(d.label, "module_reason_refused")
    return d


_CODES: dict[str, None] = {}  # reason codes already accepted (modules use a few fixed ones), at most 4096


def _reason_code(reason: str) -> bool:
    if not _REASON_CODE.fullmatch(reason):
        return False
    if len(_CODES) < 4096:
        _CODES[reason] = None
    return True


def judge_with_fallback(fallback: Fallback, x: Triple, *, guidance: str, budget_s: float,
                        strict: bool = False, wait_s: float | None = None) -> FallbackResult:
    """Ask ``fallback`` about ``x``. An in-process judge (``local``) runs under the time budget and
    reuses the triple's parsed views (``judge_triple``); errors and overruns become an undecided
    result (``strict`` raises). A networked judge is bounded by its own timeouts, and with
    ``wait_s`` the caller waits at most that long (the request then finishes on a pooled thread;
    its answer still reaches the judge's cache)."""
    try:
        if budget_s <= 0 or (wait_s is not None and wait_s <= 0):
            return FallbackResult(None, "budget_exhausted")
        if fallback.local:
            return call_with_budget(budget_s, fallback.judge_triple, x)
        if wait_s is not None:
            return call_in_pool(wait_s, lambda t: fallback.judge(t.question, t.reference, t.response,
                                                                 guidance=guidance), x)
        return fallback.judge(x.question, x.reference, x.response, guidance=guidance)
    except BudgetExceeded:
        if strict:
            raise
        return FallbackResult(None, "fallback_timeout")
    except Exception as e:
        if strict:
            raise
        return FallbackResult(None, f"fallback_error:{type(e).__name__}")


@dataclass(frozen=True, slots=True)
class CascadeRun:
    """One triple through the modules.

    ``decided``: the position of the deciding module (``None``: every module abstained);
    ``decision``: its decision; ``trace``: ``(module, label, reason)`` in the order they ran,
    up to the decision (``"*"`` marks a rule of the cascade itself: size, budget);
    ``labels``: one label per module (exhaustive runs only, else empty).
    """

    decided: int | None
    decision: Decision | None
    trace: tuple[TraceEntry, ...]
    labels: tuple[str, ...] = ()


class Cascade:
    """The modules of a release, in order, with the cascade's budget rules.

    ``modules``: ``(module_id, decide)`` pairs in priority order.
    """

    def __init__(self, modules: Sequence[tuple[str, Callable[[Triple], Decision]]], *,
                 module_budget_s: float, strict: bool = False) -> None:
        self.modules = modules
        self.module_budget_s = float(module_budget_s)
        self.strict = bool(strict)

    @property
    def modules(self) -> tuple[tuple[str, Callable[[Triple], Decision]], ...]:
        return self._modules_given

    @modules.setter
    def modules(self, modules: Sequence[tuple[str, Callable[[Triple], Decision]]]) -> None:
        self._modules_given = tuple(modules)
        self.ids = tuple(m for m, _ in self._modules_given)
        # When every module is sandboxed module code (a release's), a run sets the sandbox flag once
        # and calls each module's code directly: the same calls as through each one's own wrapper.
        inner = tuple(sandboxed_decide(d) for _, d in self._modules_given)
        self._inner = inner if inner and all(f is not None for f in inner) else None
        self._inner_ids = tuple(zip(self.ids, inner, strict=True)) if self._inner is not None else ()

    def __len__(self) -> int:
        return len(self.modules)

    def run(self, x: Triple, deadline: float, *, exhaustive: bool = False) -> CascadeRun:
        """Run the modules on ``x`` until the first direct decision (``exhaustive``: all of them).

        ``deadline``: the call's deadline on the ``time.monotonic`` clock.
        """
        n = len(self.modules)
        if x.oversized:
            return CascadeRun(None, None, (("*", ABSTAIN, "input_too_large"),), (ABSTAIN,) * n if exhaustive else ())
        trace: list[TraceEntry] = []
        labels: list[str] = []
        found: list[Any] = [None, None]  # the deciding module's position and its decision
        try:
            # one watchdog registration for all the modules of this call, each under its own budget
            if self._inner is not None and not self.strict and not exhaustive:
                in_sandbox(run_watched, self._first_direct, x, deadline, trace, found)
            else:
                run_watched(self._modules, x, deadline, exhaustive, trace, labels, found)
        except BudgetExceeded:  # an enclosing budget's interrupt, between modules
            if self.strict:
                raise
            trace.append(("*", ABSTAIN, "budget_exhausted"))
        if exhaustive:
            labels += [ABSTAIN] * (n - len(labels))
        return CascadeRun(found[0], found[1], tuple(trace), tuple(labels) if exhaustive else ())

    def _modules(self, watch: Watch, x: Triple, deadline: float, exhaustive: bool, trace: list[TraceEntry],
                 labels: list[str], found: list[Any]) -> None:
        decided = None
        for k, (mid, decide) in enumerate(self.modules):
            if decided is None:
                if time.monotonic() >= deadline:
                    trace.append(("*", ABSTAIN, "budget_exhausted"))
                    return
                d = run_decide(decide, x, self.module_budget_s, strict=self.strict, module_id=mid,
                               call_deadline=deadline, watch=watch)
                trace.append((mid, d.label, d.reason))
                labels.append(d.label)
                if d.direct:
                    decided = found[0] = k
                    found[1] = d
                    if not exhaustive:
                        return
            else:  # exhaustive, after the decision: each later module under its own budget
                labels.append(run_decide(decide, x, self.module_budget_s, module_id=mid, watch=watch).label)

    def _first_direct(self, watch: Watch, x: Triple, deadline: float, trace: list[TraceEntry],
                      found: list[Any]) -> None:
        """:meth:`_modules` for a normal run of sandboxed modules (inside :func:`in_sandbox`), with
        :func:`run_decide` written out: this loop is most of the cascade's own cost per call."""
        call = watch.call
        budget_s = self.module_budget_s
        monotonic = time.monotonic
        append = trace.append
        for k, (mid, decide) in enumerate(self._inner_ids):  # type: ignore[arg-type]
            if monotonic() >= deadline:
                append(("*", ABSTAIN, "budget_exhausted"))
                return
            try:
                d = call(budget_s, decide, x, deadline)
            except BudgetExceeded:
                d = _overran(deadline)
            except Exception as e:
                d = Decision(ABSTAIN, f"module_error:{type(e).__name__}")
            else:
                if type(d) is Decision and type(d.reason) is str and d.reason in _CODES:
                    label = d.label  # a Decision's own: its ``direct`` is ``label != ABSTAIN``
                    if label == ABSTAIN:
                        append((mid, label, d.reason))
                        continue
                    if label in _LABELS:
                        append((mid, label, d.reason))
                        found[0] = k
                        found[1] = d
                        return
                d = _checked(d, False, mid)  # a label or reason met for the first time: the full check
            append((mid, d.label, d.reason))
            if d.direct:
                found[0] = k
                found[1] = d
                return

    def decide_all(self, x: Triple) -> list[tuple[str, Decision]]:
        """Every module's decision on ``x`` without short-circuit, each under its own budget."""
        if x.oversized:
            return [(mid, Decision(ABSTAIN, "input_too_large")) for mid in self.ids]
        return run_watched(self._decide_each, x)

    def _decide_each(self, watch: Watch, x: Triple) -> list[tuple[str, Decision]]:
        return [(mid, run_decide(decide, x, self.module_budget_s, strict=self.strict, module_id=mid, watch=watch))
                for mid, decide in self.modules]


__all__ = ["Cascade", "CascadeRun", "first_direct", "judge_with_fallback", "run_decide"]
