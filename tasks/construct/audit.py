"""Code audit of a drafted module: static policy, sandboxed execution, determinism.

>>> result = audit_module(source, cases=[{"question": "q", "reference": "1", "response": "1",
...                                        "expected": "PASS"}])            # doctest: +SKIP
>>> result.passed, result.stage, result.reason                              # doctest: +SKIP
(True, 'determinism', 'passed static, sandbox and determinism checks on 3 cases (three runs in two processes)')

Stages, in order; the first failure stops the audit and names its stage:

1. ``static``: :func:`verifier_runtime.sandbox.check_module_source` (the same allow-list the
   runtime re-checks at load time).
2. ``sandbox``: a separate Python process (``python -s -P``, a minimal environment, no
   inherited ``PYTHONPATH``) that first sets ``RLIMIT_CPU``, ``RLIMIT_AS``, ``RLIMIT_FSIZE=0``
   and ``RLIMIT_CORE=0`` on itself, loads the module through
   :func:`verifier_runtime.sandbox.load_module_source`, arms an audit hook (PEP 578) that
   refuses file writes, sockets, subprocesses and file-system changes, and runs ``decide`` on
   every case (the module's ``SUPPORT`` and ``COUNTEREXAMPLES`` plus the given ones). The
   parent kills it after ``wall_seconds``. Exceeding a limit, a blocked event, a crash or a
   ``decide`` that returns something other than a ``Decision`` fails this stage. An
   exception raised by ``decide`` on a case is recorded as label ``ERROR`` (the runtime
   turns it into an abstention) but does not fail the audit.
3. ``determinism``: the child runs all cases twice, forward and in reverse order, and a second
   child (with a different ``PYTHONHASHSEED``) runs them again; every case must get the
   same label and reason each time.
"""

from __future__ import annotations

import json
import math
import os
import subprocess
import sys
import time
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any, Literal

from verifier_runtime.sandbox import case_problem, check_module_source

Stage = Literal["static", "sandbox", "determinism"]

MAX_AUDIT_CASES = 5_000
MAX_REASON_CHARS = 300
HASH_SEEDS = (1, 2)  # the two children's PYTHONHASHSEED: set/dict-order dependence shows up across them
SANDBOX_ENV_MARKER = "AUTOVERIFIER_SANDBOX"

# Audit events the child refuses once the module is loaded (prefix match).
_BLOCKED_EVENT_PREFIXES: tuple[str, ...] = (
    "socket.",
    "subprocess.",
    "os.system",
    "os.exec",
    "os.posix_spawn",
    "os.spawn",
    "os.fork",
    "os.forkpty",
    "os.kill",
    "os.killpg",
    "os.remove",
    "os.unlink",
    "os.rename",
    "os.replace",
    "os.rmdir",
    "os.mkdir",
    "os.chmod",
    "os.chown",
    "os.truncate",
    "os.symlink",
    "os.link",
    "os.putenv",
    "os.unsetenv",
    "shutil.",
    "urllib.",
    "http.",
    "ftplib.",
    "smtplib.",
    "webbrowser.",
)
_WRITE_FLAGS = os.O_WRONLY | os.O_RDWR | os.O_CREAT | os.O_APPEND | os.O_TRUNC


@dataclass
class AuditResult:
    """The outcome of :func:`audit_module`.

    ``stage`` is where the audit stopped: the failing stage, or ``"determinism"`` (the last
    one) when ``passed``. ``outputs`` has one entry per case from the first run:
    ``{"index", "source", "expected", "label", "reason"}`` with ``label`` one of PASS, FAIL,
    ABSTAIN or ERROR.
    """

    passed: bool
    stage: Stage
    violations: list[str] = field(default_factory=list)
    outputs: list[dict[str, Any]] = field(default_factory=list)
    reason: str = ""
    stats: dict[str, Any] = field(default_factory=dict)

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)


# --- parent side -----------------------------------------------------------------------------


def _repo_root() -> Path:
    from verifier_runtime.paths import SOURCE_ROOT

    return SOURCE_ROOT


def _child_env(hash_seed: int) -> dict[str, str]:
    return {
        "PATH": os.defpath,
        "LANG": "C.UTF-8",
        "PYTHONHASHSEED": str(hash_seed),
        "PYTHONDONTWRITEBYTECODE": "1",
        "PYTHONIOENCODING": "utf-8",
        SANDBOX_ENV_MARKER: "1",
    }


def _run_child(payload: dict[str, Any], *, hash_seed: int, wall_seconds: float) -> tuple[dict[str, Any] | None, str]:
    """Run one sandbox child; returns (parsed result, failure reason or "")."""
    root = str(_repo_root())
    code = f"import sys; sys.path.insert(0, {root!r}); from tasks.construct.audit import _child_main; _child_main()"
    try:
        proc = subprocess.run(
            [sys.executable, "-s", "-P", "-c", code],
            input=json.dumps(payload).encode("utf-8"),
            capture_output=True,
            timeout=wall_seconds,
            env=_child_env(hash_seed),
            cwd="/",
            check=False,
        )
    except subprocess.TimeoutExpired:
        return None, f"wall-clock limit exceeded ({wall_seconds:g} s): the sandbox process was killed"
    stderr = proc.stderr.decode("utf-8", "replace")
    if proc.returncode != 0:
        rc = proc.returncode
        if rc in (-24, -9) or "SIGXCPU" in stderr:  # SIGXCPU at the soft limit, SIGKILL at the hard one
            return None, f"CPU time limit exceeded ({payload['cpu_seconds']:g} s): killed by signal {-rc}"
        if "MemoryError" in stderr:
            return None, f"memory limit exceeded ({payload['memory_mb']} MB)"
        tail = stderr.strip().splitlines()[-1:] or ["no output"]
        return None, f"sandbox process failed (exit code {rc}): {tail[0][:MAX_REASON_CHARS]}"
    try:
        lines = proc.stdout.decode("utf-8", "replace").strip().splitlines()
        result = json.loads(lines[-1])
        if not isinstance(result, dict):
            raise ValueError("not an object")
    except (IndexError, ValueError) as e:
        return None, f"sandbox process returned no readable result ({e})"
    return result, ""


def _validate_cases(cases: list[dict[str, Any]] | None) -> list[dict[str, Any]]:
    if cases is None:
        return []
    if not isinstance(cases, list | tuple):
        raise TypeError(f"cases must be a list of dicts, not {type(cases).__name__}")
    out = []
    for i, case in enumerate(cases):
        problem = case_problem(case)
        if problem:
            raise ValueError(f"cases[{i}]: {problem}")
        out.append({k: case[k] for k in ("question", "reference", "response", "expected")})
    return out


def _compare(a: list[dict[str, Any]], b: list[dict[str, Any]]) -> list[str]:
    diffs = []
    for x, y in zip(a, b, strict=True):
        if (x["label"], x["reason"]) != (y["label"], y["reason"]):
            diffs.append(
                f"case {x['index']} ({x['source']}): {x['label']}/{x['reason']!r} vs {y['label']}/{y['reason']!r}"
            )
    return diffs


def _own_cases(source: str) -> int:
    """How many SUPPORT and COUNTEREXAMPLES cases a (policy-checked) module source lists."""
    import ast

    n = 0
    for stmt in ast.parse(source).body:
        if isinstance(stmt, ast.Assign) and any(isinstance(t, ast.Name) and t.id in ("SUPPORT", "COUNTEREXAMPLES")
                                                for t in stmt.targets) and isinstance(stmt.value, ast.List):
            n += len(stmt.value.elts)
    return n


def audit_module(
    source: str,
    *,
    cases: list[dict[str, Any]] | None = None,
    cpu_seconds: float = 5,
    memory_mb: int = 512,
    wall_seconds: float = 20,
    cross_process: bool = True,
    filename: str = "<drafted module>",
) -> AuditResult:
    """Audit one drafted module's source: static policy, sandboxed run, determinism.

    ``cases`` are extra ``{question, reference, response, expected}`` dicts to run besides
    the module's own ``SUPPORT`` and ``COUNTEREXAMPLES``. Malformed ``cases`` or limits raise
    ``ValueError``/``TypeError``; everything about the module itself is reported in the result.
    """
    extra = _validate_cases(cases)
    if len(extra) > MAX_AUDIT_CASES:
        raise ValueError(f"too many cases ({len(extra)} > {MAX_AUDIT_CASES})")
    if not (cpu_seconds > 0 and memory_mb >= 64 and wall_seconds > 0):
        raise ValueError("cpu_seconds and wall_seconds must be > 0 and memory_mb >= 64")
    t0 = time.perf_counter()
    violations = check_module_source(source)
    if violations:
        return AuditResult(False, "static", violations, [], f"{len(violations)} policy violation(s): {violations[0]}")
    if not extra and not _own_cases(source):
        # an audit that runs nothing proves nothing: a module must come with cases
        return AuditResult(False, "static", [], [], "no cases to run: the module has no SUPPORT or COUNTEREXAMPLES "
                                                   "and no cases were given")

    payload = {
        "source": source,
        "filename": filename,
        "cases": extra,
        "cpu_seconds": float(cpu_seconds),
        "memory_mb": int(memory_mb),
        "orders": ["forward", "reverse"],
    }
    first, failure = _run_child(payload, hash_seed=HASH_SEEDS[0], wall_seconds=wall_seconds)
    stats: dict[str, Any] = {}
    if first is None:
        return AuditResult(False, "sandbox", [], [], failure, {"elapsed_s": round(time.perf_counter() - t0, 3)})
    outputs = first.get("runs", {}).get("forward", [])
    stats = dict(first.get("stats", {}))
    if first.get("status") != "ok":
        reason = str(first.get("reason", "sandbox failure"))
        stage: Stage = "static" if first.get("status") == "policy" else "sandbox"  # refused by the loader
        return AuditResult(False, stage, list(first.get("violations", [])), outputs, reason, stats)

    diffs = _compare(outputs, first["runs"]["reverse"])
    if diffs:
        reason = f"order-dependent decisions in one process on {len(diffs)} case(s): {diffs[0]}"
        return AuditResult(False, "determinism", diffs, outputs, reason, stats)
    if cross_process:
        second, failure = _run_child(
            {**payload, "orders": ["forward"]}, hash_seed=HASH_SEEDS[1], wall_seconds=wall_seconds
        )
        if second is None or second.get("status") != "ok":
            reason = failure or str(second.get("reason") if second else "sandbox failure")
            return AuditResult(False, "sandbox", [], outputs, f"second sandbox run failed: {reason}", stats)
        diffs = _compare(outputs, second["runs"]["forward"])
        if diffs:
            reason = f"decisions differ between processes on {len(diffs)} case(s): {diffs[0]}"
            return AuditResult(False, "determinism", diffs, outputs, reason, stats)
    stats["elapsed_s"] = round(time.perf_counter() - t0, 3)
    n = len(outputs)
    runs = "three runs in two processes" if cross_process else "two runs"
    return AuditResult(
        True, "determinism", [], outputs, f"passed static, sandbox and determinism checks on {n} cases ({runs})", stats
    )


# --- child side ----------------------------------------------------------------------------


def _set_limits(cpu_seconds: float, memory_mb: int) -> None:
    import resource

    used = resource.getrusage(resource.RUSAGE_SELF)
    started = used.ru_utime + used.ru_stime  # interpreter start-up is not the module's budget
    cpu = max(1, math.ceil(started + cpu_seconds))
    resource.setrlimit(resource.RLIMIT_CPU, (cpu, cpu + 1))
    mem = int(memory_mb) * 1024 * 1024
    resource.setrlimit(resource.RLIMIT_AS, (mem, mem))
    resource.setrlimit(resource.RLIMIT_FSIZE, (0, 0))
    resource.setrlimit(resource.RLIMIT_CORE, (0, 0))


def _install_guard(blocked: list[str]) -> None:
    """Arm an audit hook that refuses writes, sockets, processes and file-system changes.

    Each refused event is appended to ``blocked`` (so a module that swallows the error still
    fails the audit) and raises ``PermissionError`` in the caller. Audit hooks cannot be removed.
    """

    def hook(event: str, args: tuple[Any, ...]) -> None:
        bad = event.startswith(_BLOCKED_EVENT_PREFIXES)
        if event == "open" and len(args) >= 3:
            mode, flags = args[1], args[2]
            writes = isinstance(mode, str) and any(c in mode for c in "wax+")
            bad = writes or (isinstance(flags, int) and bool(flags & _WRITE_FLAGS))
        if bad and not _inside_import():
            blocked.append(f"{event}{_short_args(args)}")
            raise PermissionError(f"blocked in the audit sandbox: {event}")

    sys.addaudithook(hook)


def _inside_import() -> bool:
    """True when the current event comes from a module being imported.

    Code modules cannot import anything themselves (the policy), so an import during
    ``decide`` is the toolkit lazily loading an installed library (numpy sets an environment
    variable when it loads, for instance); such import-time side effects are allowed.
    """
    frame = sys._getframe(2)
    while frame is not None:
        if frame.f_code.co_filename.startswith("<frozen importlib._bootstrap"):
            return True
        frame = frame.f_back
    return False


def _short_args(args: tuple[Any, ...]) -> str:
    try:
        return repr(tuple(args))[:120]
    except Exception:
        return "(...)"


def _make_triple_factory():
    """Prefer the runtime's ``Triple`` (with its cached views); fall back to a plain namespace."""
    try:
        from verifier_runtime.triple import Triple

        return Triple
    except ImportError:
        from types import SimpleNamespace

        return lambda q, r, s: SimpleNamespace(question=q, reference=r, response=s)


def _child_main() -> None:
    """Entry point of the sandbox process: JSON payload on stdin, JSON result on stdout."""
    payload = json.loads(sys.stdin.buffer.read().decode("utf-8"))
    _set_limits(payload["cpu_seconds"], payload["memory_mb"])
    out = sys.stdout
    result = _child_run(payload)
    out.write(json.dumps(result) + "\n")
    out.flush()


def _child_run(payload: dict[str, Any]) -> dict[str, Any]:
    from verifier_runtime.sandbox import ModulePolicyError, load_module_source
    from verifier_runtime.types import Decision

    make_triple = _make_triple_factory()
    try:
        ns = load_module_source(payload["source"], payload.get("filename", "<drafted module>"))
    except ModulePolicyError as e:
        return {"status": "policy", "reason": f"module refused at load: {e}", "violations": e.violations}
    except MemoryError:
        return {"status": "resource", "reason": f"memory limit exceeded ({payload['memory_mb']} MB) at load"}

    cases: list[tuple[str, dict[str, Any]]] = []
    for source_name, items in (("support", ns.SUPPORT), ("counterexample", ns.COUNTEREXAMPLES)):
        cases.extend((source_name, c) for c in items)
    cases.extend(("case", c) for c in payload.get("cases", []))
    cases = cases[:MAX_AUDIT_CASES]

    blocked: list[str] = []
    _install_guard(blocked)
    runs: dict[str, list[dict[str, Any]]] = {}
    max_ms = 0.0
    errors = 0
    for order in payload.get("orders", ["forward"]):
        idx = list(range(len(cases)))
        if order == "reverse":
            idx.reverse()
        got: dict[int, dict[str, Any]] = {}
        for i in idx:
            source_name, case = cases[i]
            triple = make_triple(case["question"], case["reference"], case["response"])
            t = time.perf_counter()
            try:
                d = ns.decide(triple)
            except MemoryError:
                del triple
                return {
                    "status": "resource",
                    "reason": f"memory limit exceeded ({payload['memory_mb']} MB) on case {i}",
                    "runs": runs,
                }
            except Exception as e:  # the runtime turns this into an abstention
                d = e
            max_ms = max(max_ms, (time.perf_counter() - t) * 1000)
            if blocked:
                return {
                    "status": "blocked",
                    "reason": f"blocked a forbidden operation on case {i}: {blocked[0]}",
                    "violations": blocked,
                    "runs": runs,
                }
            rec = {"index": i, "source": source_name, "expected": case.get("expected")}
            if isinstance(d, Exception):
                errors += 1
                rec.update(label="ERROR", reason=f"{type(d).__name__}: {d}"[:MAX_REASON_CHARS])
            elif not isinstance(d, Decision):
                return {
                    "status": "invalid",
                    "reason": f"decide returned {type(d).__name__} instead of a Decision on case {i}",
                    "runs": runs,
                }
            else:
                rec.update(label=str(d.label), reason=str(d.reason)[:MAX_REASON_CHARS])
            got[i] = rec
        runs[order] = [got[i] for i in range(len(cases))]
    stats = {"cases": len(cases), "max_case_ms": round(max_ms, 3), "errors": errors // max(1, len(runs))}
    return {"status": "ok", "runs": runs, "stats": stats}


__all__ = ["AuditResult", "audit_module"]
