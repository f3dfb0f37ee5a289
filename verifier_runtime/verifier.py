"""The frozen-inference verifier: a release's code modules through the cascade, then the fallback.

The cascade itself (order, first direct decision, budgets, size limits) is
:mod:`verifier_runtime.cascade`, shared with construction replay and validation.
"""

from __future__ import annotations

import os
import time
import warnings
from collections.abc import Iterable, Mapping, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, replace
from typing import Any

from verifier_runtime.artifact import (
    LOCAL_FALLBACKS,
    Artifact,
    ArtifactError,
    ModuleEntry,
    load_artifact,
    shipped_release,
)
from verifier_runtime.cascade import Cascade, CascadeRun, judge_with_fallback, run_decide
from verifier_runtime.fallback.base import Fallback, as_fallback
from verifier_runtime.limits import (
    DEFAULT_CALL_BUDGET_S,
    DEFAULT_MODULE_BUDGET_S,
    DEFAULT_REMOTE_CALL_BUDGET_S,
    BudgetExceeded,
    end_limit_notes,
    remaining,
    start_limit_notes,
)
from verifier_runtime.triple import Triple
from verifier_runtime.types import ABSTAIN, Decision, FallbackResult, Verdict

ModuleInfo = ModuleEntry  # what ``Verifier.modules`` lists: the manifest entry of each loaded module

__all__ = ["ModuleInfo", "Verifier", "judge_with_fallback", "load_verifier", "run_decide"]


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
        check_toolkit: bool = True,
    ) -> None:
        if warmup:
            from verifier_runtime.toolkit import warm_up

            warm_up()
        self.artifact = artifact
        self.guidance = artifact.guidance
        self.fallback = None if fallback is None else as_fallback(fallback, guidance=self.guidance)
        # One budget for the whole call: modules, then the judge, never more than ``budget_s`` in
        # all. A networked judge needs seconds, so its default whole-call budget is larger.
        remote = self.fallback is not None and not self.fallback.local
        default = DEFAULT_REMOTE_CALL_BUDGET_S if remote else DEFAULT_CALL_BUDGET_S
        self.budget_s = float(default if budget_s is None else budget_s)
        self.module_budget_s = float(module_budget_s)
        # the judge's share is capped by what is left of the call (and by this, when given)
        self.fallback_budget_s = self.budget_s if fallback_budget_s is None else float(fallback_budget_s)
        self.strict = bool(strict)
        self.exclude_groups = frozenset(exclude_groups)
        self._modules = _load_modules(artifact, self.exclude_groups)
        self.cascade = Cascade([(m.info.id, m.decide) for m in self._modules], module_budget_s=self.module_budget_s,
                               strict=self.strict)
        self.artifact_warning = self._toolkit_check() if check_toolkit else ""

    def _toolkit_check(self) -> str:
        """Compare the release's recorded toolkit fingerprint with this runtime's (see
        :mod:`verifier_runtime.fingerprint`): a mismatch warns, or refuses with ``strict``."""
        from verifier_runtime.fingerprint import ToolkitMismatchWarning, mismatch

        message = mismatch(self.artifact.manifest.get("toolkit"), self.artifact.version, self.probe_verdicts)
        if message and self.strict:
            raise ArtifactError(f"{message}; strict=True refuses a release validated with another toolkit")
        if message:
            warnings.warn(message, ToolkitMismatchWarning, stacklevel=3)
        return message

    def probe_verdicts(self) -> list[tuple[str, str, str]]:
        """``(decided_by, label, reason)`` of this release's modules (every group, no judge) on
        the fixed probe set: what the toolkit fingerprint records."""
        from verifier_runtime.fingerprint import probe_set

        cascade = self.cascade
        if self.exclude_groups:
            cascade = Cascade([(m.info.id, m.decide) for m in _load_modules(self.artifact, frozenset())],
                              module_budget_s=self.module_budget_s)
        out = []
        for q, r, s in probe_set():
            run = cascade.run(Triple(q, r, s), time.monotonic() + 3600.0)
            if run.decision is None:
                out.append(("none", ABSTAIN, ""))
            else:
                out.append((cascade.ids[run.decided], run.decision.label, run.decision.reason))
        return out

    # --- introspection ----------------------------------------------------------------
    @property
    def artifact_version(self) -> str:
        return self.artifact.version

    @property
    def modules(self) -> tuple[ModuleInfo, ...]:
        return tuple(m.info for m in self._modules)

    def module_callables(self) -> list[tuple[ModuleInfo, Any]]:
        """``(info, decide)`` for each loaded module in priority order."""
        return [(m.info, m.decide) for m in self._modules]

    @property
    def fallback_name(self) -> str:
        return "none" if self.fallback is None else self.fallback.name

    # --- the cascade ------------------------------------------------------------------
    def deadline(self) -> float:
        """A call's deadline starting now (``time.monotonic`` clock), tightened by any enclosing budget."""
        deadline = time.monotonic() + self.budget_s
        outer = remaining()
        return deadline if outer is None else min(deadline, time.monotonic() + outer)

    def run_cascade(self, x: Triple, deadline: float | None = None, *, exhaustive: bool = False) -> CascadeRun:
        """``x`` through the modules (see :class:`~verifier_runtime.cascade.Cascade`)."""
        return self.cascade.run(x, self.deadline() if deadline is None else deadline, exhaustive=exhaustive)

    def fallback_result(self, x: Triple, left_s: float | None = None) -> FallbackResult:
        """The judge on ``x`` with ``left_s`` seconds left of the call's budget (``None``: all of it)."""
        assert self.fallback is not None
        left = self.budget_s if left_s is None else left_s
        return judge_with_fallback(self.fallback, x, guidance=self.guidance, budget_s=min(self.fallback_budget_s, left),
                                   strict=self.strict, wait_s=left)

    def _verdict(self, correct: bool | None, decided_by: str, reason: str, fallback_called: bool, t0: float,
                 trace: Sequence[tuple[str, str, str]] = ()) -> Verdict:
        return Verdict(correct, decided_by, reason, fallback_called, self.artifact.version,
                       (time.perf_counter() - t0) * 1000.0, tuple(trace), self.artifact_warning)

    def _decided(self, run: CascadeRun, t0: float) -> Verdict:
        assert run.decision is not None and run.decided is not None
        return self._verdict(run.decision.correct, self.cascade.ids[run.decided], run.decision.reason, False, t0,
                             run.trace)

    def _verdict_from_fallback(self, res: FallbackResult, trace: Sequence[tuple[str, str, str]], t0: float) -> Verdict:
        correct = res.correct
        reason = res.reason or ""
        if correct is None:
            # An undecided judge counts as incorrect, as the benchmarks score unparseable judgments.
            correct, reason = False, f"fallback_undecided:{reason}"
        return self._verdict(correct, f"fallback:{self.fallback_name}", reason, True, t0, trace)

    def _abstained(self, trace: Sequence[tuple[str, str, str]], t0: float) -> Verdict:
        last = next((r for (_m, label, r) in reversed(trace) if label == ABSTAIN and r), "all_modules_abstained")
        return self._verdict(None, "none", f"abstain:{last}" if trace else "abstain:no_modules", False, t0, trace)

    def _error(self, reason: str, t0: float, trace: Sequence[tuple[str, str, str]] = ()) -> Verdict:
        return self._verdict(None if self.fallback is None else False, "error", reason, False, t0, trace)

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
            deadline = self.deadline()
            x = Triple(question, reference, response)
            run = self.cascade.run(x, deadline)
            if run.decision is not None:
                return self._decided(run, t0)
            if self.fallback is None:
                return self._abstained(run.trace, t0)
            return self._verdict_from_fallback(self.fallback_result(x, deadline - time.monotonic()), run.trace, t0)
        except (Exception, BudgetExceeded) as e:
            if self.strict:
                raise
            return self._error(f"internal_error:{type(e).__name__}", t0)

    def verify_batch(self, rows: Iterable[Mapping[str, Any]], workers: int = 1) -> list[Verdict]:
        """Verify many triples; results keep the input order.

        Modules run first for every row (in ``workers`` threads); the rows every module
        abstained on then go to the fallback together, through its bounded-concurrency batch call.
        """
        rows = list(rows)
        t0s = [0.0] * len(rows)
        spent = [0.0] * len(rows)  # each row's module time: its judge gets the rest of its budget

        def first_pass(i: int) -> tuple[CascadeRun | None, Triple | None, str]:
            t0s[i] = time.perf_counter()
            row = rows[i]
            try:
                x = Triple(row.get("question"), row.get("reference"), row.get("response"))
                return self.cascade.run(x, self.deadline()), x, ""
            except (Exception, BudgetExceeded) as e:
                if self.strict:
                    raise
                return None, None, f"internal_error:{type(e).__name__}"
            finally:
                spent[i] = time.perf_counter() - t0s[i]

        workers = max(1, min(int(workers or 1), 64))
        if workers == 1 or len(rows) < 2:
            firsts = [first_pass(i) for i in range(len(rows))]
        else:
            with ThreadPoolExecutor(max_workers=workers) as pool:
                firsts = list(pool.map(first_pass, range(len(rows))))
        out: list[Verdict | None] = [None] * len(rows)
        pending: list[int] = []
        for i, (run, x, error) in enumerate(firsts):
            if run is None or x is None:
                out[i] = self._error(error, t0s[i], (("*", ABSTAIN, error),))
            elif run.decision is not None:
                out[i] = self._decided(run, t0s[i])
            elif self.fallback is None:
                out[i] = self._abstained(run.trace, t0s[i])
            else:
                pending.append(i)
        if pending:
            results = self._fallback_batch([firsts[i][1] for i in pending], workers,  # type: ignore[misc]
                                           [self.budget_s - spent[i] for i in pending])
            for i, res in zip(pending, results, strict=True):
                run = firsts[i][0]
                assert run is not None
                out[i] = self._verdict_from_fallback(res, run.trace, t0s[i])
        return [v for v in out if v is not None]

    def _fallback_batch(self, triples: Sequence[Triple], workers: int,
                        left_s: Sequence[float]) -> list[FallbackResult]:
        assert self.fallback is not None
        if self.fallback.local:
            return [self.fallback_result(x, left) for x, left in zip(triples, left_s, strict=True)]
        try:
            return list(self.fallback.judge_batch([(x.question, x.reference, x.response) for x in triples],
                                                  guidance=self.guidance, workers=workers))
        except Exception as e:
            if self.strict:
                raise
            return [FallbackResult(None, f"fallback_error:{type(e).__name__}") for _ in triples]

    def decide_all(self, question: Any, reference: Any, response: Any) -> list[tuple[str, Decision]]:
        """Every module's decision on one triple, without short-circuit (``rules explain``)."""
        return self.cascade.decide_all(Triple(question, reference, response))


def _with_limit_notes(verdict: Verdict, notes: list[str]) -> Verdict:
    """A verdict that names the hard limits that refused work on its way (``limit:<what>``): in
    the trace always, and in the reason when no module decided (the judge or the abstention
    may be due to the refusal)."""
    trace = verdict.trace + tuple(("*", ABSTAIN, n) for n in notes)
    direct = verdict.decided_by not in ("none", "error") and not verdict.fallback_called
    reason = verdict.reason if direct else f"{verdict.reason};{notes[0]}"
    return replace(verdict, reason=reason, trace=trace)


def default_fallback(artifact: Artifact) -> str:
    """The judge used when the caller names none: the release's ``fallback_defaults`` if it
    is an in-process one, else ``offline``. A release never switches the caller to a networked
    judge (and so to sending triples over the network) that the caller did not ask for."""
    name = str(artifact.fallback_defaults.get("name", "offline"))
    if name in LOCAL_FALLBACKS:
        return name
    warnings.warn(f"release {artifact.version} names the networked judge {name!r} as its default; a release "
                  f"cannot choose a networked judge, so the offline judge is used (pass fallback={name!r} to "
                  "load_verifier to use it)", UserWarning, stacklevel=3)
    return "offline"


def load_verifier(
    artifact: str | os.PathLike[str] | Artifact | None = None,
    fallback: str | Fallback | None = None,
    **options: Any,
) -> Verifier:
    """Load a frozen release and return a :class:`Verifier`.

    ``artifact``: a release directory or ``.tar.gz``; ``None`` loads the shipped release
    (:func:`~verifier_runtime.artifact.shipped_release`; an :class:`ArtifactError` when there is
    none). ``fallback``: ``"none"`` (abstentions surface as ``correct=None``), ``"offline"``
    (default), ``"openai"``, ``"anthropic"``, or any object implementing the ``Fallback``
    protocol. Other options: ``budget_s`` (the whole call, modules and judge: 1.5 s, or 60 s
    with a networked judge), ``module_budget_s``, ``strict`` (raise instead of abstaining; also
    refuses a release validated with another toolkit), ``exclude_groups``, ``warmup`` (default
    True: import sympy and build the unit registry now, outside any call's time budget), and
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

        return ProcessIsolatedVerifier(artifact, fallback, **options)
    if isolation != "inprocess":
        raise ValueError(f"isolation must be 'inprocess' or 'process', got {isolation!r}")
    trusted_keys = options.pop("trusted_keys", None)
    if isinstance(artifact, Artifact):
        art = artifact
    else:
        art = load_artifact(shipped_release() if artifact is None else artifact, trusted_keys=trusted_keys)
    fallback_config = dict(options.pop("fallback_config", None) or {})
    if fallback is None:
        fallback = default_fallback(art)
    fb = make_fallback(fallback, template=art.template, config=fallback_config)
    return Verifier(art, fb, **options)
