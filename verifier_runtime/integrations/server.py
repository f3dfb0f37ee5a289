"""The reward server for RL-scale concurrency: an ASGI app (Starlette) served by uvicorn.

Routes (the protocol is OpenRLHF's, see :mod:`verifier_runtime.integrations.openrlhf`):

* ``POST /get_reward``: ``{"query", "prompts", "labels"}`` -> ``{"rewards", "scores",
  "extra_logs", "decided_by", "reasons"}``;
* ``GET /health``: liveness (200 while the process serves), with the artifact version;
* ``GET /ready``: readiness (200 once the verifier is loaded, 503 while draining);
* ``GET /metrics``: Prometheus text: requests by route and status, a latency histogram,
  samples, verdicts by ``decided_by``, fallback calls, requests in flight.

Client errors are answered with a JSON body ``{"error": {"code", "message"}}`` and a 4xx
status: 400 (malformed JSON, wrong types, unequal lengths), 404/405, 413 (a body over
``max_body_bytes``, or more than ``max_items`` samples). A 500 means a bug, never bad input.

Requests of up to ``inline_samples`` samples (OpenRLHF sends one) are verified on the event
loop itself when the verifier's judge runs in the process (none or offline): the work is
CPU-bound under the GIL, and handing it to a thread only adds a
thread switch, which the interpreter grants every 5 ms, to every request. Larger requests go
to a pool of ``threads`` threads, so the loop keeps accepting and answering (health,
metrics) while they are checked. Either way one call is bounded by the verifier's budget. The listening socket is bound here
with a configurable ``backlog`` (default 2048: the standard library's 5 reset connections
under load). SIGTERM and SIGINT drain: readiness turns 503, the socket stops accepting,
requests in flight finish (up to ``graceful_timeout_s``), then the process exits. Access logs
are off unless asked for.

Needs the ``serve`` extra (``pip install 'autoverifier[serve]'``): uvicorn and starlette,
with httptools and uvloop when present.
"""

from __future__ import annotations

import asyncio
import json
import logging
import signal
import socket
import threading
import time
from collections import Counter
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from typing import Any

from verifier_runtime.integrations.openrlhf import DEFAULT_MAX_ITEMS, PayloadError, Scorer, parse_payload

__all__ = ["DEFAULT_MAX_BODY_BYTES", "Metrics", "RewardServer", "ServerConfig", "create_app"]

log = logging.getLogger("autoverifier.server")

DEFAULT_MAX_BODY_BYTES = 32 * 1024 * 1024
LATENCY_BUCKETS_S = (0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5, 5.0, 10.0)
MAX_DECIDER_LABELS = 256  # distinct decided_by values kept as metric labels; the rest count as "other"


@dataclass(frozen=True)
class ServerConfig:
    """How the server listens and how much it accepts (``autoverifier serve`` options)."""

    host: str = "127.0.0.1"
    port: int = 5000
    backlog: int = 2048
    threads: int = 4  # verification threads for multi-sample requests
    inline_samples: int = 4  # requests with at most this many samples are verified on the event loop
    workers: int = 4  # threads each multi-sample request's verify_batch uses
    max_body_bytes: int = DEFAULT_MAX_BODY_BYTES
    max_items: int = DEFAULT_MAX_ITEMS
    limit_concurrency: int | None = None  # requests at once before 503 (None: no limit)
    timeout_keep_alive_s: float = 30.0
    graceful_timeout_s: float = 30.0
    log_level: str = "warning"
    access_log: bool = False


class Metrics:
    """Counters and a latency histogram, rendered in the Prometheus text format."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self.requests: Counter = Counter()  # (route, status)
        self.samples = 0
        self.fallback_calls = 0
        self.decided_by: Counter = Counter()
        self.buckets = [0] * len(LATENCY_BUCKETS_S)
        self.latency_sum = 0.0
        self.latency_count = 0
        self.in_flight = 0

    def observe(self, route: str, status: int, seconds: float | None = None) -> None:
        """Count a request; ``seconds`` (reward requests) goes into the latency histogram."""
        with self._lock:
            self.requests[(route, status)] += 1
            if seconds is None:
                return
            self.latency_sum += seconds
            self.latency_count += 1
            for i, bound in enumerate(LATENCY_BUCKETS_S):
                if seconds <= bound:
                    self.buckets[i] += 1

    def verdicts(self, decided_by: list[str], fallback_called: list[float]) -> None:
        with self._lock:
            self.samples += len(decided_by)
            self.fallback_calls += int(sum(fallback_called))
            for name in decided_by:
                key = name if name in self.decided_by or len(self.decided_by) < MAX_DECIDER_LABELS else "other"
                self.decided_by[key] += 1

    def render(self, ready: bool) -> str:
        def esc(v: str) -> str:
            return v.replace("\\", "\\\\").replace('"', '\\"').replace("\n", "\\n")

        with self._lock:
            lines = ["# HELP autoverifier_requests_total HTTP requests by route and status.",
                     "# TYPE autoverifier_requests_total counter"]
            for (route, status), n in sorted(self.requests.items()):
                lines.append(f'autoverifier_requests_total{{route="{esc(route)}",status="{status}"}} {n}')
            lines += ["# HELP autoverifier_request_seconds Latency of /get_reward requests, seconds.",
                      "# TYPE autoverifier_request_seconds histogram"]
            for bound, n in zip(LATENCY_BUCKETS_S, self.buckets, strict=True):
                lines.append(f'autoverifier_request_seconds_bucket{{le="{bound}"}} {n}')
            lines += [f'autoverifier_request_seconds_bucket{{le="+Inf"}} {self.latency_count}',
                      f"autoverifier_request_seconds_sum {self.latency_sum:.6f}",
                      f"autoverifier_request_seconds_count {self.latency_count}",
                      "# HELP autoverifier_samples_total Samples scored.", "# TYPE autoverifier_samples_total counter",
                      f"autoverifier_samples_total {self.samples}",
                      "# HELP autoverifier_fallback_calls_total Samples the fallback judge decided.",
                      "# TYPE autoverifier_fallback_calls_total counter",
                      f"autoverifier_fallback_calls_total {self.fallback_calls}",
                      "# HELP autoverifier_decided_by_total Verdicts by decider (module id, fallback or none).",
                      "# TYPE autoverifier_decided_by_total counter"]
            for name, n in sorted(self.decided_by.items()):
                lines.append(f'autoverifier_decided_by_total{{decided_by="{esc(name)}"}} {n}')
            lines += ["# HELP autoverifier_in_flight Requests being served.", "# TYPE autoverifier_in_flight gauge",
                      f"autoverifier_in_flight {self.in_flight}",
                      "# HELP autoverifier_ready 1 when the server takes traffic.", "# TYPE autoverifier_ready gauge",
                      f"autoverifier_ready {1 if ready else 0}"]
        return "\n".join(lines) + "\n"


class _State:
    def __init__(self, verifier: Any, cfg: ServerConfig, rewards: Any) -> None:
        self.verifier = verifier
        self.cfg = cfg
        self.scorer = Scorer(verifier, rewards, cfg.workers)
        self.pool = ThreadPoolExecutor(max_workers=max(1, cfg.threads), thread_name_prefix="autoverifier-serve")
        self.metrics = Metrics()
        self.draining = False
        self.started = time.time()
        # inline only when a call is CPU work in this process: a networked judge or worker
        # processes wait on I/O, which must not hold the event loop
        fb = getattr(verifier, "fallback", None)
        local = fb is None or getattr(fb, "local", False) or (isinstance(fb, str) and fb in ("none", "offline"))
        self.inline = bool(local) and not hasattr(verifier, "processes")


def _json(status: int, body: dict[str, Any]) -> Any:
    from starlette.responses import Response

    return Response(json.dumps(body, ensure_ascii=False), status_code=status, media_type="application/json")


def _error(status: int, code: str, message: str) -> Any:
    return _json(status, {"error": {"code": code, "message": message[:500]}})


def create_app(verifier: Any, config: ServerConfig | None = None, *, rewards: Any = None) -> Any:
    """The Starlette app serving ``verifier`` (see the module doc); ``app.state.reward`` holds its state."""
    from starlette.applications import Starlette
    from starlette.responses import PlainTextResponse
    from starlette.routing import Route

    cfg = config or ServerConfig()
    state = _State(verifier, cfg, rewards)

    async def health(request: Any) -> Any:
        state.metrics.observe("/health", 200)
        return _json(200, {"status": "ok", "artifact_version": str(getattr(verifier, "artifact_version", "")),
                           "modules": len(getattr(verifier, "modules", ()) or ()),
                           "uptime_s": round(time.time() - state.started, 3)})

    async def ready(request: Any) -> Any:
        status = 503 if state.draining else 200
        state.metrics.observe("/ready", status)
        return _json(status, {"ready": not state.draining})

    async def metrics(request: Any) -> Any:
        state.metrics.observe("/metrics", 200)
        return PlainTextResponse(state.metrics.render(not state.draining),
                                 media_type="text/plain; version=0.0.4; charset=utf-8")

    async def not_found(request: Any, exc: Any) -> Any:
        return _error(404, "not_found", f"no route {request.url.path[:100]}")

    async def not_allowed(request: Any, exc: Any) -> Any:
        return _error(405, "method_not_allowed", f"{request.method} is not allowed on {request.url.path[:100]}")

    routes = Starlette(routes=[Route("/health", health, methods=["GET"]),
                               Route("/ready", ready, methods=["GET"]),
                               Route("/metrics", metrics, methods=["GET"])],
                       exception_handlers={404: not_found, 405: not_allowed})
    routes.state.reward = state

    async def app(scope: dict, receive: Any, send: Any) -> None:
        # the hot route in plain ASGI: a request object, a router and a response object cost
        # more than the verification of one sample
        if scope["type"] == "http" and scope["path"] == "/get_reward":
            if scope["method"] == "POST":
                await _fast_reward(state, scope, receive, send)
            else:
                await _error(405, "method_not_allowed", "use POST for /get_reward")(scope, receive, send)
        else:
            await routes(scope, receive, send)

    app.state = routes.state  # type: ignore[attr-defined]
    return app


async def _fast_reward(state: _State, scope: dict, receive: Any, send: Any) -> None:
    t0 = time.perf_counter()
    state.metrics.in_flight += 1
    status = 200
    try:
        try:
            body = await _receive_body(scope, receive, state.cfg.max_body_bytes)
            questions, references, responses = parse_payload(body, max_items=state.cfg.max_items)
            if state.inline and len(questions) <= state.cfg.inline_samples:
                out = state.scorer.score(questions, references, responses)
            else:
                loop = asyncio.get_running_loop()
                out = await loop.run_in_executor(state.pool, state.scorer.score, questions, references, responses)
            state.metrics.verdicts(out["decided_by"], out["extra_logs"]["fallback_called"])
            payload = json.dumps(out, ensure_ascii=False).encode()
        except PayloadError as exc:
            status = exc.status
            payload = json.dumps({"error": {"code": exc.code, "message": str(exc)[:500]}}).encode()
        except Exception as exc:  # a bug (or a strict-mode verifier): answer, never drop the connection
            status = 500
            log.exception("scoring failed")
            payload = json.dumps({"error": {"code": "internal_error", "message": type(exc).__name__}}).encode()
        await send({"type": "http.response.start", "status": status,
                    "headers": [(b"content-type", b"application/json"), (b"content-length", str(len(payload)).encode())]})
        await send({"type": "http.response.body", "body": payload})
    finally:
        state.metrics.in_flight -= 1
        state.metrics.observe("/get_reward", status, time.perf_counter() - t0)


async def _receive_body(scope: dict, receive: Any, limit: int) -> bytes:
    for name, value in scope.get("headers", ()):
        if name == b"content-length":
            try:
                n = int(value)
                if n < 0:
                    raise ValueError
            except ValueError:
                raise PayloadError(400, "bad_length", f"invalid Content-Length {value[:40]!r}") from None
            if n > limit:
                raise PayloadError(413, "too_large", f"request body of {n} bytes exceeds {limit} bytes")
            break
    chunks: list[bytes] = []
    size = 0
    while True:
        message = await receive()
        if message["type"] == "http.disconnect":
            raise PayloadError(400, "disconnected", "the client went away before sending its body")
        chunk = message.get("body", b"")
        size += len(chunk)
        if size > limit:
            raise PayloadError(413, "too_large", f"request body exceeds {limit} bytes")
        chunks.append(chunk)
        if not message.get("more_body", False):
            return b"".join(chunks)


def bind_socket(host: str, port: int, backlog: int) -> socket.socket:
    """A listening TCP socket with ``backlog`` pending connections (``port=0`` picks a free port)."""
    family = socket.AF_INET6 if ":" in host else socket.AF_INET
    sock = socket.socket(family, socket.SOCK_STREAM)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    sock.bind((host, port))
    sock.listen(backlog)
    sock.set_inheritable(True)
    return sock


class RewardServer:
    """Serve rewards from ``verifier`` over HTTP with uvicorn (see the module doc).

    ``start()`` serves on a background thread (tests, notebooks); ``serve_until_signal()``
    serves in this thread until SIGTERM/SIGINT and drains. ``port=0`` picks a free port.
    """

    def __init__(self, verifier: Any, host: str = "127.0.0.1", port: int = 5000, *, rewards: Any = None,
                 config: ServerConfig | None = None, **options: Any) -> None:
        base = config or ServerConfig()
        self.config = ServerConfig(**{**base.__dict__, "host": host, "port": int(port), **options})
        self.verifier = verifier
        self.app = create_app(verifier, self.config, rewards=rewards)
        self._sock: socket.socket | None = None
        self._server: Any = None
        self._thread: threading.Thread | None = None

    @property
    def state(self) -> _State:
        return self.app.state.reward  # type: ignore[attr-defined]

    def _bind(self) -> socket.socket:
        if self._sock is None:
            self._sock = bind_socket(self.config.host, self.config.port, self.config.backlog)
        return self._sock

    @property
    def port(self) -> int:
        return self._bind().getsockname()[1]

    @property
    def url(self) -> str:
        host = self.config.host
        return f"http://{'[' + host + ']' if ':' in host else host}:{self.port}"

    def _uvicorn_server(self) -> Any:
        import uvicorn

        cfg = self.config
        level = cfg.log_level.lower()
        ucfg = uvicorn.Config(self.app, log_level=level, access_log=cfg.access_log or level in ("debug", "trace"),
                              backlog=cfg.backlog, limit_concurrency=cfg.limit_concurrency,
                              timeout_keep_alive=int(max(1, cfg.timeout_keep_alive_s)),
                              timeout_graceful_shutdown=int(max(1, cfg.graceful_timeout_s)),
                              loop="auto", http="auto", lifespan="off", server_header=False, date_header=False)
        state = self.state

        class _Server(uvicorn.Server):
            def handle_exit(self, sig: int, frame: Any) -> None:
                # Drain: readiness answers 503 from now on, uvicorn stops accepting and waits for
                # the requests in flight. The signal is handled here for good (uvicorn's own
                # handler would raise it again once drained, and the process would end by it).
                state.draining = True
                if self.should_exit and sig == signal.SIGINT:
                    self.force_exit = True  # a second Ctrl-C: stop now
                else:
                    self.should_exit = True

        return _Server(ucfg)

    def start(self) -> RewardServer:
        """Serve on a background thread; returns ``self`` once the server accepts requests."""
        if self._thread is not None:
            return self
        sock = self._bind()
        server = self._server = self._uvicorn_server()
        self._thread = threading.Thread(target=server.run, kwargs={"sockets": [sock]}, name="reward-server",
                                        daemon=True)
        self._thread.start()
        deadline = time.monotonic() + 30
        while not server.started and self._thread.is_alive() and time.monotonic() < deadline:
            time.sleep(0.01)
        if not server.started:
            raise RuntimeError("the reward server did not start")
        return self

    def stop(self, timeout: float | None = 30.0) -> None:
        """Drain: stop accepting, let requests in flight finish, then stop."""
        if self._server is not None and self._thread is not None:
            self.state.draining = True
            self._server.should_exit = True
            self._thread.join(timeout)
        self._thread = None
        self._server = None
        self.state.pool.shutdown(wait=False)
        if self._sock is not None:
            self._sock.close()
            self._sock = None

    def serve_until_signal(self) -> None:
        """Serve in this thread until SIGTERM/SIGINT, then drain and return."""
        sock = self._bind()
        server = self._server = self._uvicorn_server()
        try:
            server.run(sockets=[sock])
        finally:
            self._server = None
            self.state.pool.shutdown(wait=True)
            sock.close()
            self._sock = None

    def __enter__(self) -> RewardServer:
        return self.start()

    def __exit__(self, *exc: Any) -> None:
        self.stop()

