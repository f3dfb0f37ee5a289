"""An OpenRLHF-compatible reward server on the standard library's threaded HTTP server.

OpenRLHF's remote reward model (``--remote_rm_url http://host:port/get_reward``) posts
``{"query": [...], "prompts": [...], "labels": [...]}``: ``query[i]`` is the full text
(prompt followed by the response), ``prompts[i]`` the prompt, ``labels[i]`` the dataset's
label column, here the reference answer. The reply is ``{"rewards": [...], "scores": [...],
"extra_logs": {...}}``; OpenRLHF turns ``rewards`` into the training reward, ``scores`` into
the 0/1 signal used by dynamic filtering, and each ``extra_logs`` list into a logged metric.

* the response is ``query`` with ``prompt`` removed from its start (when the prompt is not a
  prefix, the text after its first occurrence; when it does not occur, the whole query), and
  common end-of-sequence markers (``<|im_end|>``, ``</s>``, ...) removed from its end;
* ``prompts`` may be omitted (the whole query is then the response, the question empty);
* ``GET /health`` answers ``{"status": "ok", "artifact_version": ..., "modules": n}``;
* bad payloads get a JSON error ``{"error": {"code", "message"}}`` with status 400 (invalid
  JSON, missing keys, wrong types, unequal lengths), 411 (no Content-Length), 413 (body over
  ``max_body_bytes``, default 32 MB, or more than ``max_items`` samples), 404/405;
* requests are served on their own threads and verified with ``verify_batch``, so a slow
  request does not hold up others; :meth:`RewardServer.stop` (and SIGINT/SIGTERM under
  :meth:`RewardServer.serve_until_signal`) stops accepting, then waits for in-flight
  requests to finish.
"""

from __future__ import annotations

import json
import logging
import signal
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

from verifier_runtime.integrations.rewards import (
    RewardConfig,
    invalid_module_ids,
    is_invalid,
    verdict_to_reward,
)

__all__ = ["RewardServer", "PayloadError", "parse_payload", "strip_prompt", "DEFAULT_MAX_BODY_BYTES"]

log = logging.getLogger("autoverifier.server")

DEFAULT_MAX_BODY_BYTES = 32 * 1024 * 1024
DEFAULT_MAX_ITEMS = 100_000
EOS_MARKERS = ("<|im_end|>", "<|endoftext|>", "<|eot_id|>", "<|end|>", "</s>", "<eos>", "<|end_of_text|>")


class PayloadError(ValueError):
    """A request the server refuses, with its HTTP status."""

    def __init__(self, status: int, code: str, message: str) -> None:
        super().__init__(message)
        self.status = status
        self.code = code


def strip_prompt(query: str, prompt: str) -> str:
    """The response inside ``query`` (see the module doc)."""
    if prompt:
        if query.startswith(prompt):
            query = query[len(prompt):]
        else:
            at = query.find(prompt)
            if at >= 0:
                query = query[at + len(prompt):]
    text = query.rstrip()
    changed = True
    while changed:
        changed = False
        for marker in EOS_MARKERS:
            if text.endswith(marker):
                text = text[: -len(marker)].rstrip()
                changed = True
    return text


def _str_list(payload: dict[str, Any], key: str, *, allow_numbers: bool = False) -> list[str]:
    value = payload[key]
    if not isinstance(value, list):
        raise PayloadError(400, "wrong_type", f"{key!r} must be a list, got {type(value).__name__}")
    out = []
    for i, item in enumerate(value):
        if isinstance(item, str):
            out.append(item)
        elif item is None and allow_numbers:
            out.append("")
        elif allow_numbers and isinstance(item, int | float) and not isinstance(item, bool):
            out.append(str(item))
        else:
            raise PayloadError(400, "wrong_type", f"{key}[{i}] must be a string, got {type(item).__name__}")
    return out


def parse_payload(body: bytes, *, max_items: int = DEFAULT_MAX_ITEMS) -> list[dict[str, str]]:
    """Validate a ``/get_reward`` body and return verifier rows (question, reference, response)."""
    try:
        payload = json.loads(body)
    except (UnicodeDecodeError, json.JSONDecodeError) as exc:
        raise PayloadError(400, "invalid_json", f"request body is not valid JSON: {exc}") from None
    if not isinstance(payload, dict):
        raise PayloadError(400, "wrong_type", "request body must be a JSON object")
    missing = [k for k in ("query", "labels") if k not in payload]
    if missing:
        raise PayloadError(400, "missing_keys", f"missing keys: {missing} (expected query, prompts, labels)")
    queries = _str_list(payload, "query")
    labels = _str_list(payload, "labels", allow_numbers=True)
    prompts = _str_list(payload, "prompts") if payload.get("prompts") is not None else [""] * len(queries)
    if not (len(queries) == len(labels) == len(prompts)):
        raise PayloadError(400, "length_mismatch", f"lists differ in length: query={len(queries)}, "
                                                   f"prompts={len(prompts)}, labels={len(labels)}")
    if len(queries) > max_items:
        raise PayloadError(413, "too_many_items", f"{len(queries)} samples exceed the limit of {max_items}")
    return [{"question": p, "reference": lab, "response": strip_prompt(q, p)}
            for q, p, lab in zip(queries, prompts, labels, strict=True)]


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
            rows = parse_payload(body, max_items=owner.max_items)
            result = owner.score(rows)
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
    owner: RewardServer


class RewardServer:
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
        self.rewards = RewardConfig.resolve(rewards)
        self.workers = max(1, int(workers))
        self.max_body_bytes = int(max_body_bytes)
        self.max_items = int(max_items)
        self._invalid_ids = invalid_module_ids(getattr(verifier, "modules", ()))
        self._httpd: _Server | None = None
        self._thread: threading.Thread | None = None
        self._started = time.time()
        self._lock = threading.Lock()
        self.requests_served = 0
        self.samples_scored = 0

    # --- scoring -------------------------------------------------------------------------
    def score(self, rows: list[dict[str, str]]) -> dict[str, Any]:
        """Rewards, 0/1 scores and numeric per-sample logs for verifier rows."""
        verdicts = self.verifier.verify_batch(rows, workers=self.workers) if rows else []
        cfg = self.rewards
        rewards, scores = [], []
        logs: dict[str, list[float]] = {"correct": [], "abstained": [], "invalid": [], "fallback_called": []}
        for v in verdicts:
            r = verdict_to_reward(v, cfg, self._invalid_ids)
            rewards.append(cfg.incorrect if r is None else r)
            scores.append(1.0 if v.correct is True else 0.0)
            logs["correct"].append(1.0 if v.correct is True else 0.0)
            logs["abstained"].append(1.0 if v.correct is None else 0.0)
            logs["invalid"].append(1.0 if is_invalid(v, self._invalid_ids) else 0.0)
            logs["fallback_called"].append(1.0 if v.fallback_called else 0.0)
        with self._lock:
            self.requests_served += 1
            self.samples_scored += len(rows)
        return {"rewards": rewards, "scores": scores, "extra_logs": logs,
                "decided_by": [str(v.decided_by) for v in verdicts], "reasons": [str(v.reason) for v in verdicts]}

    def health(self) -> dict[str, Any]:
        return {"status": "ok", "artifact_version": str(getattr(self.verifier, "artifact_version", "")),
                "modules": len(getattr(self.verifier, "modules", ()) or ()),
                "uptime_s": round(time.time() - self._started, 3),
                "requests_served": self.requests_served, "samples_scored": self.samples_scored}

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

    def start(self) -> RewardServer:
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

    def __enter__(self) -> RewardServer:
        return self.start()

    def __exit__(self, *exc: Any) -> None:
        self.stop()
