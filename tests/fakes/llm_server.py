"""A local HTTP server that speaks the OpenAI Chat Completions and Anthropic Messages APIs.

It binds 127.0.0.1 on a free port and answers in the real reply shapes (with ``usage``), so
the real ``openai`` and ``anthropic`` clients can be tested without a network:

- ``POST /v1/chat/completions`` checks ``Authorization: Bearer <key>``;
- ``POST /v1/messages`` checks the key (``x-api-key``, or ``Authorization: Bearer`` as newer
  ``anthropic`` clients send it) and the ``anthropic-version`` header.

By default it judges like a careful grader would be scripted to: ``Yes`` when the text in
the prompt's ``<response>`` block contains the ``<reference>`` text, else ``No``. A test can
replace the reply (``server.reply = fn(messages) -> str``), make the next requests fail
(:meth:`FakeLLMServer.fail_next`), make every request slow (``server.delay_s``), and read what
was sent (``server.requests``, ``server.max_concurrent``).
"""

from __future__ import annotations

import json
import re
import threading
import time
import uuid
from collections.abc import Callable
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

Messages = list[dict[str, Any]]

_REFERENCE_RE = re.compile(r"<reference>\n(.*?)\n</reference>", re.DOTALL)
_RESPONSE_RE = re.compile(r"<response>\n(.*)\n</response>", re.DOTALL)


def message_text(message: dict[str, Any]) -> str:
    """The text of one chat message (a string, or a list of text blocks)."""
    content = message.get("content", "")
    if isinstance(content, str):
        return content
    return "".join(b.get("text", "") for b in content if isinstance(b, dict))


def scripted_reply(messages: Messages) -> str:
    """Yes when the response block contains the reference, No otherwise."""
    prompt = message_text(messages[0]) if messages else ""
    ref, resp = _REFERENCE_RE.search(prompt), _RESPONSE_RE.search(prompt)
    if ref is None or resp is None:
        return "I cannot find the reference or the response."
    agrees = ref.group(1).strip() in resp.group(1)
    verdict = "Yes" if agrees else "No"
    return f"The response's final answer {'matches' if agrees else 'differs from'} the reference.\n\nFinal Judgment: {verdict}"


def _bearer(value: str | None) -> str | None:
    return value[len("Bearer "):] if value and value.startswith("Bearer ") else None


def count_tokens(text: str) -> int:
    """A deterministic stand-in for a tokenizer: one token per four characters, at least one."""
    return max(1, len(text) // 4)


class FakeLLMServer:
    """A scripted provider on 127.0.0.1. Use as a context manager or call start()/stop()."""

    def __init__(self, api_key: str = "test-key") -> None:
        self.api_key = api_key
        self.reply: Callable[[Messages], str] = scripted_reply
        self.delay_s = 0.0
        self.requests: list[dict[str, Any]] = []
        self.max_concurrent = 0
        self._current = 0
        self._failures: list[tuple[int, float | None]] = []
        self._lock = threading.Lock()
        self._closing = threading.Event()
        self._httpd: ThreadingHTTPServer | None = None
        self._thread: threading.Thread | None = None

    # --- control -------------------------------------------------------------------------

    def fail_next(self, n: int, status: int = 429, retry_after: float | None = None) -> None:
        """Make the next ``n`` requests fail with HTTP ``status`` (optionally with Retry-After)."""
        with self._lock:
            self._failures.extend([(status, retry_after)] * n)

    def count(self, path: str | None = None) -> int:
        """How many requests arrived (at ``path``, when given)."""
        with self._lock:
            return sum(1 for r in self.requests if path is None or r["path"] == path)

    @property
    def port(self) -> int:
        assert self._httpd is not None, "server not started"
        return self._httpd.server_address[1]

    @property
    def openai_base_url(self) -> str:
        return f"http://127.0.0.1:{self.port}/v1"

    @property
    def anthropic_base_url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    def start(self) -> FakeLLMServer:
        server = self

        class Handler(_Handler):
            owner = server

        self._httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self._httpd.daemon_threads = True
        self._thread = threading.Thread(target=self._httpd.serve_forever, kwargs={"poll_interval": 0.05},
                                        name="fake-llm-server", daemon=True)
        self._thread.start()
        return self

    def stop(self) -> None:
        self._closing.set()
        if self._httpd is not None:
            self._httpd.shutdown()
            self._httpd.server_close()
        if self._thread is not None:
            self._thread.join(timeout=5)

    def __enter__(self) -> FakeLLMServer:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()

    # --- request handling (called from handler threads) -----------------------------------

    def _enter(self, record: dict[str, Any]) -> tuple[int, float | None] | None:
        with self._lock:
            self.requests.append(record)
            self._current += 1
            self.max_concurrent = max(self.max_concurrent, self._current)
            return self._failures.pop(0) if self._failures else None

    def _leave(self) -> None:
        with self._lock:
            self._current -= 1

    def _wait(self) -> None:
        if self.delay_s > 0:
            self._closing.wait(self.delay_s)


class _Handler(BaseHTTPRequestHandler):
    owner: FakeLLMServer
    protocol_version = "HTTP/1.1"

    def log_message(self, format: str, *args: Any) -> None:  # noqa: A002 - silence the default logging
        pass

    def _send(self, status: int, body: dict[str, Any], headers: dict[str, str] | None = None) -> None:
        data = json.dumps(body).encode()
        try:
            self.send_response(status)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(data)))
            for k, v in (headers or {}).items():
                self.send_header(k, v)
            self.end_headers()
            self.wfile.write(data)
        except (BrokenPipeError, ConnectionResetError):
            pass  # the client gave up (a time-out test)

    def do_POST(self) -> None:  # noqa: N802 - the http.server API
        owner = self.owner
        length = int(self.headers.get("Content-Length") or 0)
        raw = self.rfile.read(length) if length else b""
        try:
            body = json.loads(raw or b"{}")
        except ValueError:
            body = None
        record = {
            "path": self.path,
            "headers": {k.lower(): v for k, v in self.headers.items()},
            "body": body,
            "raw_body": raw,
            "at": time.monotonic(),
        }
        failure = owner._enter(record)
        try:
            owner._wait()
            if self.path == "/v1/chat/completions":
                self._openai(body, failure)
            elif self.path == "/v1/messages":
                self._anthropic(body, failure)
            else:
                self._send(404, {"error": {"message": f"no route {self.path}", "type": "not_found"}})
        finally:
            owner._leave()

    def _openai(self, body: Any, failure: tuple[int, float | None] | None) -> None:
        owner = self.owner
        if self.headers.get("Authorization") != f"Bearer {owner.api_key}":
            self._send(401, {"error": {"message": "Incorrect API key provided", "type": "invalid_request_error",
                                       "code": "invalid_api_key"}})
            return
        if not isinstance(body, dict) or not isinstance(body.get("messages"), list) or "model" not in body:
            self._send(400, {"error": {"message": "model and messages are required", "type": "invalid_request_error"}})
            return
        if failure is not None:
            status, retry_after = failure
            headers = {"retry-after": str(retry_after)} if retry_after is not None else {}
            self._send(status, {"error": {"message": f"scripted failure {status}", "type": "server_error"}}, headers)
            return
        text = owner.reply(body["messages"])
        tin = sum(count_tokens(message_text(m)) for m in body["messages"])
        tout = count_tokens(text)
        self._send(200, {
            "id": f"chatcmpl-{uuid.uuid4().hex[:24]}",
            "object": "chat.completion",
            "created": int(time.time()),
            "model": body["model"],
            "choices": [{
                "index": 0,
                "message": {"role": "assistant", "content": text, "refusal": None},
                "logprobs": None,
                "finish_reason": "stop",
            }],
            "usage": {"prompt_tokens": tin, "completion_tokens": tout, "total_tokens": tin + tout},
            "system_fingerprint": None,
        })

    def _anthropic(self, body: Any, failure: tuple[int, float | None] | None) -> None:
        owner = self.owner
        # The API takes the key as ``x-api-key``; newer clients send ``Authorization: Bearer`` instead.
        if owner.api_key not in (self.headers.get("x-api-key"), _bearer(self.headers.get("Authorization"))):
            self._send(401, {"type": "error", "error": {"type": "authentication_error", "message": "invalid x-api-key"}})
            return
        if not self.headers.get("anthropic-version"):
            self._send(400, {"type": "error", "error": {"type": "invalid_request_error",
                                                        "message": "anthropic-version header is required"}})
            return
        if not isinstance(body, dict) or not isinstance(body.get("messages"), list) or "max_tokens" not in body:
            self._send(400, {"type": "error", "error": {"type": "invalid_request_error",
                                                        "message": "model, messages and max_tokens are required"}})
            return
        if failure is not None:
            status, retry_after = failure
            kind = "rate_limit_error" if status == 429 else "api_error"
            headers = {"retry-after": str(retry_after)} if retry_after is not None else {}
            self._send(status, {"type": "error", "error": {"type": kind, "message": f"scripted failure {status}"}},
                       headers)
            return
        text = owner.reply(body["messages"])
        tin = sum(count_tokens(message_text(m)) for m in body["messages"])
        tout = count_tokens(text)
        self._send(200, {
            "id": f"msg_{uuid.uuid4().hex[:24]}",
            "type": "message",
            "role": "assistant",
            "model": body.get("model", ""),
            "content": [{"type": "text", "text": text}],
            "stop_reason": "end_turn",
            "stop_sequence": None,
            "usage": {"input_tokens": tin, "output_tokens": tout},
        })
