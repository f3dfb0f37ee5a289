"""The first reward server, on the standard library's threaded HTTP server: the baseline.

Kept as the dependency-free engine (``autoverifier serve --engine stdlib``) and as the
baseline the load benchmark measures the ASGI server against. It listens with the standard
library's default backlog of 5 pending connections and one thread per request: at high
concurrency it resets connections (see ``docs/training.md``). Use the ASGI server
(:mod:`verifier_runtime.integrations.server`) for training.
"""

from __future__ import annotations

import json
import logging
import signal
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

from verifier_runtime.integrations.openrlhf import PayloadError, Scorer, parse_payload

__all__ = ["StdlibRewardServer"]

log = logging.getLogger("autoverifier.server")

DEFAULT_MAX_BODY_BYTES = 32 * 1024 * 1024
DEFAULT_MAX_ITEMS = 100_000


class _Handler(BaseHTTPRequestHandler):
    server: _Server
    timeout = 60  # seconds a client may take to send its request (bounds shutdown waits too)
    server_version = "AutoVerifierReward/1"

    def log_message(self, format: str, *args: Any) -> None:  # noqa: A002 - the base class's name
        log.info("%s %s", self.address_string(), format % args)

    def _send(self, status: int, body: dict[str, Any]) -> None:
        data = json.dumps(body).encode()
        self.send_response(status)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    def _error(self, status: int, code: str, message: str) -> None:
        self.close_connection = True
        self._send(status, {"error": {"code": code, "message": message}})

    def do_GET(self) -> None:  # noqa: N802 - http.server's naming
        path = self.path.split("?", 1)[0]
        if path == "/health":
            self._send(200, self.server.owner.health())
        elif path == "/get_reward":
            self._error(405, "method_not_allowed", "use POST for /get_reward")
        else:
            self._error(404, "not_found", f"no route {path}")

    def do_POST(self) -> None:  # noqa: N802
        path = self.path.split("?", 1)[0]
        if path != "/get_reward":
            self._error(404 if path != "/health" else 405, "not_found", f"no POST route {path}")
            return
        owner = self.server.owner
        length = self.headers.get("Content-Length")
        if length is None:
            self._error(411, "length_required", "a Content-Length header is required")
            return
        try:
            n = int(length)
            if n < 0:
                raise ValueError
        except ValueError:
            self._error(400, "bad_length", f"invalid Content-Length {length!r}")
            return
        if n > owner.max_body_bytes:
            self._error(413, "too_large", f"request body of {n} bytes exceeds {owner.max_body_bytes} bytes")
            return
        body = self.rfile.read(n)
        try:
            result = owner.scorer.score(*parse_payload(body, max_items=owner.max_items))
            with owner._lock:
                owner.requests_served += 1
        except PayloadError as exc:
            self._error(exc.status, exc.code, str(exc))
            return
        except Exception as exc:  # a verifier in strict mode, or a bug: answer, don't drop the socket
            log.exception("scoring failed")
            self._error(500, "internal_error", f"{type(exc).__name__}: {exc}")
            return
        self._send(200, result)


class _Server(ThreadingHTTPServer):
    daemon_threads = False  # server_close() waits for in-flight requests
    block_on_close = True
    allow_reuse_address = True
    owner: StdlibRewardServer


class StdlibRewardServer:
    """Serve rewards from ``verifier`` over HTTP (OpenRLHF's remote reward-model protocol).

    ``port=0`` picks a free port (read it back from :attr:`port`). ``workers`` is the thread
    count each request's ``verify_batch`` uses.
    """

    def __init__(self, verifier: Any, host: str = "127.0.0.1", port: int = 5000, *, rewards: Any = None,
                 workers: int = 4, max_body_bytes: int = DEFAULT_MAX_BODY_BYTES,
                 max_items: int = DEFAULT_MAX_ITEMS) -> None:
        self.verifier = verifier
        self.host = host
        self._requested_port = int(port)
        self.scorer = Scorer(verifier, rewards, workers)
        self.max_body_bytes = int(max_body_bytes)
        self.max_items = int(max_items)
        self._httpd: _Server | None = None
        self._thread: threading.Thread | None = None
        self._started = time.time()
        self._lock = threading.Lock()
        self.requests_served = 0

    def health(self) -> dict[str, Any]:
        return {"status": "ok", "artifact_version": str(getattr(self.verifier, "artifact_version", "")),
                "modules": len(getattr(self.verifier, "modules", ()) or ()),
                "uptime_s": round(time.time() - self._started, 3), "requests_served": self.requests_served}

    # --- lifecycle -----------------------------------------------------------------------
    def _bind(self) -> _Server:
        if self._httpd is None:
            httpd = _Server((self.host, self._requested_port), _Handler)
            httpd.owner = self
            self._httpd = httpd
        return self._httpd

    @property
    def port(self) -> int:
        return self._bind().server_address[1]

    @property
    def url(self) -> str:
        return f"http://{self.host}:{self.port}"

    def start(self) -> StdlibRewardServer:
        """Serve on a background thread; returns ``self``."""
        httpd = self._bind()
        if self._thread is None:
            self._thread = threading.Thread(target=httpd.serve_forever, kwargs={"poll_interval": 0.1},
                                            name="reward-server", daemon=True)
            self._thread.start()
        return self

    def stop(self, timeout: float | None = 30.0) -> None:
        """Stop accepting requests and wait for the in-flight ones to finish."""
        httpd = self._httpd
        if httpd is None:
            return
        if self._thread is not None:
            httpd.shutdown()
            self._thread.join(timeout)
            self._thread = None
        httpd.server_close()  # joins the request threads
        self._httpd = None

    def serve_until_signal(self) -> None:
        """Serve in this thread until SIGINT or SIGTERM, then shut down cleanly."""
        httpd = self._bind()
        stopping = threading.Event()

        def _on_signal(signum: int, frame: Any) -> None:
            if not stopping.is_set():
                stopping.set()
                log.info("signal %s: finishing in-flight requests", signum)
                threading.Thread(target=httpd.shutdown, daemon=True).start()

        previous = {s: signal.signal(s, _on_signal) for s in (signal.SIGINT, signal.SIGTERM)}
        try:
            httpd.serve_forever(poll_interval=0.2)
        finally:
            for s, h in previous.items():
                signal.signal(s, h)
            httpd.server_close()
            self._httpd = None

    def __enter__(self) -> StdlibRewardServer:
        return self.start()

    def __exit__(self, *exc: Any) -> None:
        self.stop()
