"""Process isolation: verify in a pool of worker processes that can be killed and hold a memory limit.

The in-process verifier bounds work two ways: the time budget interrupts Python code, and size
estimates refuse big-integer and symbolic work before it starts (see ``docs/runtime.md``). What
neither catches (one long C call the estimates missed, a crash in an extension) would stall or
kill the calling process. With ``load_verifier(..., isolation="process")`` every triple is
verified in one of ``processes`` pooled worker processes instead:

* each worker loads the release once (the cost is paid at start-up, not per call) and runs with
  ``RLIMIT_AS`` set to ``memory_mb``, so a runaway allocation fails inside the worker;
* the caller waits at most the call's budget plus ``grace_s``; a worker that has not answered
  by then is killed (SIGKILL) and replaced in the background, and the triple gets
  ``decided_by="error"``, ``reason="limit:worker_killed"`` (a worker that dies gives
  ``limit:worker_crashed``);
* the release's module code never runs in the calling process (the parent reads the manifest
  only); a networked judge (OpenAI, Anthropic) is called from the parent on the triples every
  module abstained on, since workers hold no network clients.

The cost is one round trip to a worker per triple (measured in ``benchmarks/fuzz.py``); it is
off by default (``isolation="inprocess"``).
"""

from __future__ import annotations

import os
import pickle
import select
import struct
import subprocess
import sys
import threading
import time
from collections import deque
from collections.abc import Iterable, Mapping
from concurrent.futures import ThreadPoolExecutor
from typing import Any

from verifier_runtime.triple import _as_text as _text
from verifier_runtime.types import Verdict

__all__ = ["DEFAULT_MEMORY_MB", "ProcessIsolatedVerifier"]

DEFAULT_MEMORY_MB = 2048
DEFAULT_GRACE_S = 0.5
_START_TIMEOUT_S = 120.0


def _send(fh: Any, obj: Any) -> None:
    data = pickle.dumps(obj, protocol=pickle.HIGHEST_PROTOCOL)
    fh.write(struct.pack(">I", len(data)) + data)
    fh.flush()


def _recv(fd: int) -> Any:
    head = _read_exactly(fd, 4)
    return pickle.loads(_read_exactly(fd, struct.unpack(">I", head)[0]))  # noqa: S301 - our own child's pipe


def _read_exactly(fd: int, n: int) -> bytes:
    chunks = []
    while n:
        chunk = os.read(fd, min(n, 1 << 20))
        if not chunk:
            raise EOFError("the worker closed its pipe")
        chunks.append(chunk)
        n -= len(chunk)
    return b"".join(chunks)


def serve_worker() -> None:
    """A worker's main loop (run as ``python -c``): set the memory limit, load the verifier, then
    verify triples read from stdin until stdin closes. Messages are length-prefixed pickles
    between this process and the parent that started it."""
    fd_in, out = sys.stdin.fileno(), sys.stdout.buffer
    sys.stdout = sys.stderr  # nothing else may write into the reply pipe
    artifact, fallback, options, memory_mb = _recv(fd_in)
    try:
        import resource

        limit = int(memory_mb) * 1024 * 1024
        resource.setrlimit(resource.RLIMIT_AS, (limit, limit))
    except (ImportError, ValueError, OSError):  # pragma: no cover - not on this platform
        pass
    try:
        from verifier_runtime.verifier import load_verifier

        verifier = load_verifier(artifact, fallback=fallback, **options)
        _send(out, ("ready", verifier.artifact_version))
    except BaseException as exc:  # noqa: BLE001 - reported to the parent, which raises it
        _send(out, ("failed", f"{type(exc).__name__}: {exc}"))
        return
    while True:
        try:
            msg = _recv(fd_in)
        except (EOFError, OSError):
            return
        if msg is None:
            return
        try:
            reply = verifier.verify(*msg).to_dict(with_trace=True)
        except BaseException as exc:  # noqa: BLE001 - MemoryError under the limit lands here
            reply = {"correct": None, "decided_by": "error", "reason": f"internal_error:{type(exc).__name__}",
                     "fallback_called": False, "artifact_version": verifier.artifact_version, "elapsed_ms": 0.0,
                     "trace": []}
        try:
            _send(out, reply)
        except (OSError, ValueError):
            return


class _Worker:
    """One worker process and its two pipes."""

    def __init__(self, spec: tuple) -> None:
        env = {**os.environ, "PYTHONPATH": os.pathsep.join(p for p in sys.path if p)}
        self.proc = subprocess.Popen([sys.executable, "-c", "from verifier_runtime.isolation import serve_worker; "
                                      "serve_worker()"], stdin=subprocess.PIPE, stdout=subprocess.PIPE, env=env,
                                     close_fds=True)
        self.fd = self.proc.stdout.fileno()  # type: ignore[union-attr]
        _send(self.proc.stdin, spec)

    def poll(self, timeout: float) -> bool:
        ready, _, _ = select.select([self.fd], [], [], max(0.0, timeout))
        return bool(ready)

    def send(self, obj: Any) -> None:
        _send(self.proc.stdin, obj)

    def recv(self) -> Any:
        return _recv(self.fd)

    def wait_ready(self, timeout: float) -> str:
        if not self.poll(timeout):
            self.kill()
            raise RuntimeError("an isolation worker did not start in time")
        status, detail = self.recv()
        if status != "ready":
            self.kill()
            raise RuntimeError(f"an isolation worker could not load the verifier: {detail}")
        return detail

    def kill(self) -> None:
        try:
            self.proc.kill()
            self.proc.wait(5)
        except (OSError, ValueError, subprocess.TimeoutExpired):
            pass
        for fh in (self.proc.stdin, self.proc.stdout):
            try:
                fh.close()  # type: ignore[union-attr]
            except OSError:
                pass


class _FairPool:
    """Idle workers handed out first come, first served: a caller that returns a worker cannot
    take it straight back while another caller waits (a plain queue lets it, and starves the
    waiter)."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._idle: deque[_Worker] = deque()
        self._waiters: deque[list] = deque()  # [event, worker or None]

    def acquire(self, timeout: float) -> _Worker | None:
        with self._lock:
            if self._idle and not self._waiters:
                return self._idle.popleft()
            waiter: list = [threading.Event(), None]
            self._waiters.append(waiter)
        waiter[0].wait(max(0.0, timeout))
        with self._lock:
            if waiter[1] is None:
                self._waiters.remove(waiter)
            return waiter[1]

    def release(self, worker: _Worker) -> None:
        with self._lock:
            if self._waiters:
                waiter = self._waiters.popleft()
                waiter[1] = worker
                waiter[0].set()
            else:
                self._idle.append(worker)

    def drain(self) -> list[_Worker]:
        with self._lock:
            out = list(self._idle)
            self._idle.clear()
        return out

    def pids(self) -> list[int]:
        with self._lock:
            return [w.proc.pid for w in self._idle]


class ProcessIsolatedVerifier:
    """The :class:`~verifier_runtime.verifier.Verifier` interface, verifying in worker processes."""

    def __init__(self, artifact: Any = None, fallback: Any = "offline", *, processes: int | None = None,
                 memory_mb: int = DEFAULT_MEMORY_MB, grace_s: float = DEFAULT_GRACE_S, **options: Any) -> None:
        from verifier_runtime.artifact import load_artifact, shipped_release
        from verifier_runtime.fallback import make_fallback
        from verifier_runtime.limits import DEFAULT_CALL_BUDGET_S, DEFAULT_REMOTE_CALL_BUDGET_S
        from verifier_runtime.verifier import default_fallback

        keys = options.get("trusted_keys")
        art = artifact if hasattr(artifact, "manifest") else load_artifact(
            shipped_release() if artifact is None else artifact, trusted_keys=keys)
        if fallback is None:
            fallback = default_fallback(art)
        self.artifact = art  # manifest and sources only: no module code runs in this process
        self.artifact_version = art.version
        self.modules = tuple(art.modules)
        self.guidance = art.guidance
        name = fallback if isinstance(fallback, str) or fallback is None else None
        self._remote = None
        worker_fallback: Any = fallback
        if name in ("openai", "anthropic") or (name is None and fallback is not None
                                                and not getattr(fallback, "local", False)):
            self._remote = make_fallback(fallback, template=art.template,
                                         config=dict(options.get("fallback_config") or {}))
            worker_fallback = "none"
        self.fallback_name = "none" if fallback is None else (name or getattr(fallback, "name", "custom"))
        default = DEFAULT_REMOTE_CALL_BUDGET_S if self._remote is not None else DEFAULT_CALL_BUDGET_S
        self.budget_s = float(options.get("budget_s") or default)
        worker_options = {k: v for k, v in options.items() if k not in ("fallback_config",)}
        if self._remote is not None:
            worker_options["budget_s"] = min(self.budget_s, DEFAULT_CALL_BUDGET_S)
        self.grace_s = float(grace_s)
        self.memory_mb = int(memory_mb)
        self.processes = max(1, int(processes or min(4, os.cpu_count() or 1)))
        self._spec = (art, worker_fallback, worker_options, self.memory_mb)
        self._idle = _FairPool()
        self._lock = threading.Lock()
        self._closed = False
        self._short = 0
        self.kills = 0
        workers = [self._new_worker() for _ in range(self.processes)]
        for w in workers:
            w.wait_ready(_START_TIMEOUT_S)
            self._idle.release(w)

    def _new_worker(self) -> _Worker:
        return _Worker(self._spec)  # a fresh interpreter: no threads or locks inherited

    def _replace(self, dead: _Worker) -> None:
        """Kill ``dead`` and start its replacement in the background (the caller does not wait)."""
        dead.kill()
        self._spawn_async()

    def _spawn_async(self) -> None:
        def start() -> None:
            try:
                w = self._new_worker()
                w.wait_ready(_START_TIMEOUT_S)
            except Exception:  # noqa: BLE001 - counted: the next call tries again
                with self._lock:
                    self._short += 1
                return
            if self._closed:
                w.kill()
            else:
                self._idle.release(w)

        threading.Thread(target=start, name="autoverifier-respawn", daemon=True).start()

    def _error(self, reason: str, t0: float) -> Verdict:
        return Verdict(None if self.fallback_name == "none" else False, "error", reason,
                       False, self.artifact_version, (time.perf_counter() - t0) * 1000.0)

    def verify(self, question: Any, reference: Any, response: Any) -> Verdict:
        """Verify one triple in a worker; never raises, never waits past the budget plus ``grace_s``."""
        t0 = time.perf_counter()
        deadline = time.monotonic() + self.budget_s + self.grace_s
        with self._lock:
            short, self._short = self._short, 0
        for _ in range(short):  # respawns that failed earlier: try again
            self._spawn_async()
        worker = self._idle.acquire(deadline - time.monotonic())
        if worker is None:
            return self._error("limit:no_free_worker", t0)
        q, r, s = (_text(v) for v in (question, reference, response))
        try:
            worker.send((q, r, s))
            ready = worker.poll(deadline - time.monotonic())
            if not ready:
                self.kills += 1
                self._replace(worker)
                return self._error("limit:worker_killed", t0)
            d = worker.recv()
        except (EOFError, OSError, BrokenPipeError):
            self._replace(worker)
            return self._error("limit:worker_crashed", t0)
        self._idle.release(worker)
        d["trace"] = tuple(tuple(t) for t in d.get("trace", ()))
        verdict = Verdict(**d)
        if self._remote is not None and verdict.correct is None and verdict.decided_by == "none":
            return self._judge_remote(verdict, q, r, s, t0)
        return verdict

    def _judge_remote(self, verdict: Verdict, q: str, r: str, s: str, t0: float) -> Verdict:
        from verifier_runtime.triple import Triple
        from verifier_runtime.verifier import judge_with_fallback

        left = self.budget_s - (time.perf_counter() - t0)
        res = judge_with_fallback(self._remote, Triple(q, r, s), guidance=self.guidance, budget_s=left, wait_s=left)
        correct, reason = res.correct, res.reason or ""
        if correct is None:
            correct, reason = False, f"fallback_undecided:{reason}"
        return Verdict(correct, f"fallback:{self.fallback_name}", reason, True, self.artifact_version,
                       (time.perf_counter() - t0) * 1000.0, verdict.trace)

    def verify_batch(self, rows: Iterable[Mapping[str, Any]], workers: int = 1) -> list[Verdict]:
        rows = list(rows)
        n = max(1, min(int(workers or 1), self.processes))
        call = lambda row: self.verify(row.get("question"), row.get("reference"), row.get("response"))  # noqa: E731
        if n == 1 or len(rows) < 2:
            return [call(row) for row in rows]
        with ThreadPoolExecutor(max_workers=n) as pool:
            return list(pool.map(call, rows))

    def close(self) -> None:
        """Stop every worker."""
        self._closed = True
        for w in self._idle.drain():
            try:
                w.send(None)
            except OSError:
                pass
            w.kill()

    def worker_pids(self) -> list[int]:
        """Process ids of the idle workers."""
        return self._idle.pids()

    def __enter__(self) -> ProcessIsolatedVerifier:
        return self

    def __exit__(self, *exc: Any) -> None:
        self.close()

    def __del__(self) -> None:  # pragma: no cover - interpreter shutdown order varies
        try:
            self.close()
        except Exception:  # noqa: BLE001
            pass

