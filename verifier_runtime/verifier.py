"""The frozen-inference verifier: code modules in priority order, then the fallback."""

from __future__ import annotations

import os
import re
import time
from collections.abc import Iterable, Mapping, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, replace
from typing import Any

from verifier_runtime.artifact import (
    Artifact,
    ArtifactError,
    ModuleEntry,
    empty_release_manifest,
    load_artifact,
    newest_release,
)
from verifier_runtime.fallback.base import Fallback
from verifier_runtime.limits import (
    DEFAULT_CALL_BUDGET_S,
    DEFAULT_MODULE_BUDGET_S,
    DEFAULT_REMOTE_CALL_BUDGET_S,
    BudgetExceeded,
    call_in_pool,
    call_with_budget,
    end_limit_notes,
    remaining,
    start_limit_notes,
)
from verifier_runtime.triple import Triple
from verifier_runtime.types import ABSTAIN, Decision, FallbackResult, Verdict

_REASON_CODE = re.compile(r"[A-Za-z0-9_:.+\-=/]{0,80}")

ModuleInfo = ModuleEntry  # what ``Verifier.modules`` lists: the manifest entry of each loaded module


@dataclass(frozen=True)
class LoadedModule:
    info: ModuleInfo
    decide: Any


def _load_modules(artifact: Artifact, exclude_groups: frozenset[str]) -> tuple[LoadedModule, ...]:
    from verifier_runtime.sandbox import ModulePolicyError, load_module_source

    out = []
    for entry in artifact.modules:
        if entry.group in exclude_groups:
            continue
        try:
            ns = load_module_source(artifact.files[entry.file], filename=f"{artifact.version}/{entry.file}")
        except ModulePolicyError as e:
            raise ArtifactError(f"module {entry.id} violates the module policy: {e}") from e
        except SyntaxError as e:
            raise ArtifactError(f"module {entry.id} does not compile: {e}") from e
        out.append(LoadedModule(entry, ns.decide))
    return tuple(out)


def run_decide(decide: Any, x: Triple, budget_s: float, *, strict: bool = False, module_id: str = "",
               call_deadline: float | None = None) -> Decision:
    """Run one module's ``decide`` under its time budget; errors and overruns become abstentions.

    ``call_deadline`` (``time.monotonic`` clock): the whole call's deadline, which caps the
    module's budget; an overrun past it is reported as ``budget_exhausted``.
    """
    if call_deadline is not None:
        budget_s = min(budget_s, call_deadline - time.monotonic())
    try:
        d = call_with_budget(budget_s, decide, x)
    except BudgetExceeded:
        if strict:
            raise
        left = remaining()
        spent = (left is not None and left <= 0) or (call_deadline is not None and time.monotonic() >= call_deadline)
        return Decision(ABSTAIN, "budget_exhausted" if spent else "module_timeout")
    except Exception as e:
        if strict:
            raise
        return Decision(ABSTAIN, f"module_error:{type(e).__name__}")
    if not isinstance(d, Decision) or d.label not in ("PASS", "FAIL", "ABSTAIN"):
        if strict:
            raise TypeError(f"module {module_id} returned {d!r}, not a Decision")
        return Decision(ABSTAIN, "module_bad_return")
    if type(d.reason) is not str or not _REASON_CODE.fullmatch(d.reason):
        # a reason is a short code; anything else (long, free text, computed from the input or
        # the host) never reaches the caller
        return Decision(d.label, "module_reason_refused")
    return d


def judge_with_fallback(fallback: Fallback, x: Triple, *, guidance: str, budget_s: float,
                        strict: bool = False, wait_s: float | None = None) -> FallbackResult:
    """Ask ``fallback`` about ``x``. An in-process judge runs under the time budget and reuses
    the triple's parsed views; errors and overruns become an undecided result (``strict`` raises).
    A networked judge is bounded by its own timeouts, and with ``wait_s`` the caller waits at most
    that long (the request then finishes on a pooled thread; its answer still reaches the judge's cache)."""
    try:
        if budget_s <= 0 or (wait_s is not None and wait_s <= 0):
            return FallbackResult(None, "budget_exhausted")
        if getattr(fallback, "local", False):
            if hasattr(fallback, "judge_triple"):
                return call_with_budget(budget_s, fallback.judge_triple, x)
            return call_with_budget(budget_s, lambda t: fallback.judge(t.question, t.reference, t.response,
                                                                       guidance=guidance), x)
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


class Verifier:
    """Verify (question, reference, response) triples with a frozen artifact.

    >>> v = load_verifier(fallback="offline")          # doctest: +SKIP
    >>> v.verify("What is 1/2 + 1/4?", "3/4", "The answer is \\boxed{0.75}").correct  # doctest: +SKIP
    True
    """

    def __init__(
        self,
        artifact: Artifact,
        fallback: Fallback | None,
        *,
        budget_s: float | None = None,
        module_budget_s: float = DEFAULT_MODULE_BUDGET_S,
        fallback_budget_s: float | None = None,
        strict: bool = False,
        exclude_groups: Iterable[str] = (),
        warmup: bool = True,
    ) -> None:
        if warmup:
            from verifier_runtime.toolkit import warm_up

            warm_up()
        self.artifact = artifact
        self.fallback = fallback
        # One budget for the whole call: modules, then the judge, never more than ``budget_s`` in
        # all. A networked judge needs seconds, so its default whole-call budget is larger.
        remote = fallback is not None and not getattr(fallback, "local", False)
        default = DEFAULT_REMOTE_CALL_BUDGET_S if remote else DEFAULT_CALL_BUDGET_S
        self.budget_s = float(default if budget_s is None else budget_s)
        self.module_budget_s = float(module_budget_s)
        # the judge's share is capped by what is left of the call (and by this, when given)
        self.fallback_budget_s = self.budget_s if fallback_budget_s is None else float(fallback_budget_s)
        self.strict = bool(strict)
        self.exclude_groups = frozenset(exclude_groups)
        self._modules = _load_modules(artifact, self.exclude_groups)
        self.guidance = artifact.guidance

    # --- introspection ----------------------------------------------------------------
    @property
    def artifact_version(self) -> str:
        return self.artifact.version

    @property
    def modules(self) -> tuple[ModuleInfo, ...]:
        return tuple(m.info for m in self._modules)

    def module_callables(self) -> list[tuple[ModuleInfo, Any]]:
        """``(info, decide)`` for each loaded module in priority order (for replay analysis)."""
        return [(m.info, m.decide) for m in self._modules]

    @property
    def fallback_name(self) -> str:
        return "none" if self.fallback is None else self.fallback.name

    # --- the cascade ------------------------------------------------------------------
    def _run_module(self, mod: LoadedModule, x: Triple) -> Decision:
        return run_decide(mod.decide, x, self.module_budget_s, strict=self.strict, module_id=mod.info.id)

    def _deadline(self) -> float:
        """The whole call's deadline (``time.monotonic`` clock), tightened by any enclosing budget."""
        deadline = time.monotonic() + self.budget_s
        outer = remaining()
        return deadline if outer is None else min(deadline, time.monotonic() + outer)

    def _cascade(self, x: Triple, *, first_only: bool = True,
                 deadline: float | None = None) -> tuple[LoadedModule | None, Decision | None, list]:
        """Modules in order until the first direct decision. Each module runs under its own
        hard budget, capped by what is left of the call's budget (and of any enclosing one)."""
        trace: list[tuple[str, str, str]] = []
        if x.oversized:
            return None, None, [("*", ABSTAIN, "input_too_large")]
        if deadline is None:
            deadline = self._deadline()
        try:
            for mod in self._modules:
                if time.monotonic() >= deadline:
                    trace.append(("*", ABSTAIN, "budget_exhausted"))
                    break
                d = run_decide(mod.decide, x, self.module_budget_s, strict=self.strict, module_id=mod.info.id,
                               call_deadline=deadline)
                trace.append((mod.info.id, d.label, d.reason))
                if d.direct and first_only:
                    return mod, d, trace
        except BudgetExceeded:  # an enclosing budget's interrupt, between modules
            if self.strict:
                raise
            trace.append(("*", ABSTAIN, "budget_exhausted"))
        return None, None, trace

    def _fallback_result(self, x: Triple, left_s: float | None = None) -> FallbackResult:
        """The judge on ``x`` with ``left_s`` seconds left of the call's budget (``None``: all of it)."""
        assert self.fallback is not None
        left = self.budget_s if left_s is None else left_s
        return judge_with_fallback(self.fallback, x, guidance=self.guidance, budget_s=min(self.fallback_budget_s, left),
                                   strict=self.strict, wait_s=left)

    def _verdict_from_fallback(self, res: FallbackResult, trace: list, t0: float) -> Verdict:
        correct = res.correct
        reason = res.reason or ""
        if correct is None:
            # An undecided judge counts as incorrect, as the benchmarks score unparseable judgments.
            correct, reason = False, f"fallback_undecided:{reason}"
        return Verdict(
            correct=correct,
            decided_by=f"fallback:{self.fallback_name}",
            reason=reason,
            fallback_called=True,
            artifact_version=self.artifact.version,
            elapsed_ms=(time.perf_counter() - t0) * 1000.0,
            trace=tuple(trace),
        )

    def _abstained(self, trace: list, t0: float) -> Verdict:
        last = next((r for (_m, label, r) in reversed(trace) if label == ABSTAIN and r), "all_modules_abstained")
        return Verdict(None, "none", f"abstain:{last}" if trace else "abstain:no_modules", False,
                       self.artifact.version, (time.perf_counter() - t0) * 1000.0, tuple(trace))

    def verify(self, question: Any, reference: Any, response: Any) -> Verdict:
        """Verify one triple. Never raises (unless ``strict=True``)."""
        token = start_limit_notes()
        try:
            verdict = self._verify(question, reference, response)
        finally:
            notes = end_limit_notes(token)
        return _with_limit_notes(verdict, notes) if notes else verdict

    def _verify(self, question: Any, reference: Any, response: Any) -> Verdict:
        t0 = time.perf_counter()
        try:
            deadline = self._deadline()
            x = Triple(question, reference, response)
            mod, d, trace = self._cascade(x, deadline=deadline)
            if mod is not None and d is not None:
                return Verdict(d.correct, mod.info.id, d.reason, False, self.artifact.version,
                               (time.perf_counter() - t0) * 1000.0, tuple(trace))
            if self.fallback is None:
                return self._abstained(trace, t0)
            return self._verdict_from_fallback(self._fallback_result(x, deadline - time.monotonic()), trace, t0)
        except (Exception, BudgetExceeded) as e:
            if self.strict:
                raise
            return Verdict(None if self.fallback is None else False, "error", f"internal_error:{type(e).__name__}",
                           False, self.artifact.version, (time.perf_counter() - t0) * 1000.0)

    def verify_batch(self, rows: Iterable[Mapping[str, Any]], workers: int = 1) -> list[Verdict]:
        """Verify many triples; results keep the input order.

        Modules run first for every row (in ``workers`` threads); the rows every module
        abstained on then go to the fallback together, through its bounded-concurrency batch call.
        """
        rows = list(rows)
        t0s = [0.0] * len(rows)
        spent = [0.0] * len(rows)  # each row's module time: its judge gets the rest of its budget

        def first_pass(i: int):
            t0s[i] = time.perf_counter()
            row = rows[i]
            try:
                x = Triple(row.get("question"), row.get("reference"), row.get("response"))
                mod, d, trace = self._cascade(x)
            except (Exception, BudgetExceeded) as e:
                if self.strict:
                    raise
                return None, None, [("*", ABSTAIN, f"internal_error:{type(e).__name__}")], None
            finally:
                spent[i] = time.perf_counter() - t0s[i]
            return mod, d, trace, x

        workers = max(1, min(int(workers or 1), 64))
        if workers == 1 or len(rows) < 2:
            firsts = [first_pass(i) for i in range(len(rows))]
        else:
            with ThreadPoolExecutor(max_workers=workers) as pool:
                firsts = list(pool.map(first_pass, range(len(rows))))
        out: list[Verdict | None] = [None] * len(rows)
        pending: list[int] = []
        for i, (mod, d, trace, x) in enumerate(firsts):
            if mod is not None and d is not None:
                out[i] = Verdict(d.correct, mod.info.id, d.reason, False, self.artifact.version,
                                 (time.perf_counter() - t0s[i]) * 1000.0, tuple(trace))
            elif x is None:
                out[i] = Verdict(None if self.fallback is None else False, "error", trace[-1][2], False,
                                 self.artifact.version, (time.perf_counter() - t0s[i]) * 1000.0, tuple(trace))
            elif self.fallback is None:
                out[i] = self._abstained(trace, t0s[i])
            else:
                pending.append(i)
        if pending:
            results = self._fallback_batch([firsts[i][3] for i in pending], workers,
                                           [self.budget_s - spent[i] for i in pending])
            for i, res in zip(pending, results, strict=True):
                out[i] = self._verdict_from_fallback(res, firsts[i][2], t0s[i])
        return [v for v in out if v is not None]

    def _fallback_batch(self, triples: Sequence[Triple], workers: int,
                        left_s: Sequence[float]) -> list[FallbackResult]:
        assert self.fallback is not None
        if getattr(self.fallback, "local", False):
            return [self._fallback_result(x, left) for x, left in zip(triples, left_s, strict=True)]
        try:
            return list(self.fallback.judge_batch([(x.question, x.reference, x.response) for x in triples],
                                                  guidance=self.guidance, workers=workers))
        except Exception as e:
            if self.strict:
                raise
            return [FallbackResult(None, f"fallback_error:{type(e).__name__}") for _ in triples]

    def decide_all(self, question: Any, reference: Any, response: Any) -> list[tuple[str, Decision]]:
        """Every module's decision on one triple, without short-circuit (for replay analysis)."""
        x = Triple(question, reference, response)
        if x.oversized:
            return [(m.info.id, Decision(ABSTAIN, "input_too_large")) for m in self._modules]
        return [(m.info.id, self._run_module(m, x)) for m in self._modules]


def _with_limit_notes(verdict: Verdict, notes: list[str]) -> Verdict:
    """A verdict that names the hard limits that refused work on its way (``limit:<what>``): in
    the trace always, and in the reason when no module decided (the judge or the abstention
    may be due to the refusal)."""
    trace = verdict.trace + tuple(("*", ABSTAIN, n) for n in notes)
    direct = verdict.decided_by not in ("none", "error") and not verdict.fallback_called
    reason = verdict.reason if direct else f"{verdict.reason};{notes[0]}"
    return replace(verdict, reason=reason, trace=trace)


def load_verifier(
    artifact: str | os.PathLike[str] | Artifact | None = None,
    fallback: str | Fallback | None = None,
    **options: Any,
) -> Verifier:
    """Load a frozen release and return a :class:`Verifier`.

    ``artifact``: a release directory or ``.tar.gz``; ``None`` loads the newest release in
    the rule bank (an empty-library release if there is none). ``fallback``: ``"none"``
    (abstentions surface as ``correct=None``), ``"offline"`` (default), ``"openai"``,
    ``"anthropic"``, or any object implementing the ``Fallback`` protocol. Other options:
    ``budget_s`` (the whole call, modules and judge: 1.5 s, or 60 s with a networked judge),
    ``module_budget_s``, ``strict``, ``exclude_groups``, ``warmup`` (default True:
    import sympy and build the unit registry now, outside any call's time budget), and
    ``fallback_config`` (a dict passed to the fallback factory), ``trusted_keys`` (Ed25519 public
    keys: the release must be signed by one of them; default ``$AUTOVERIFIER_TRUSTED_KEYS``) and
    ``isolation`` (``"inprocess"``, the default, or ``"process"``: verify in killable worker
    processes under a memory limit, see :mod:`verifier_runtime.isolation`; with it ``processes``,
    ``memory_mb`` and ``grace_s``).
    """
    from verifier_runtime.fallback import make_fallback

    isolation = options.pop("isolation", "inprocess")
    if isolation == "process":
        from verifier_runtime.isolation import ProcessIsolatedVerifier

        return ProcessIsolatedVerifier(artifact, fallback if fallback is not None else "offline", **options)
    if isolation != "inprocess":
        raise ValueError(f"isolation must be 'inprocess' or 'process', got {isolation!r}")
    trusted_keys = options.pop("trusted_keys", None)
    if isinstance(artifact, Artifact):
        art = artifact
    elif artifact is None:
        newest = newest_release()
        if newest is None and (trusted_keys or os.environ.get("AUTOVERIFIER_TRUSTED_KEYS")):
            raise ArtifactError("trusted keys are configured but no release was found (the built-in empty "
                                "release is not signed)")
        art = load_artifact(newest, trusted_keys=trusted_keys) if newest is not None else empty_release_manifest()
    else:
        art = load_artifact(artifact, trusted_keys=trusted_keys)
    fallback_config = dict(options.pop("fallback_config", None) or {})
    if fallback is None:
        fallback = art.fallback_defaults.get("name", "offline")
    fb = make_fallback(fallback, template=art.template, config=fallback_config)
    return Verifier(art, fb, **options)
