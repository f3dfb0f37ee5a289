"""Provider adapters: one chat request through the real ``openai`` or ``anthropic`` client.

An adapter sends one request and returns a :class:`Completion`, or raises
:class:`ProviderError` saying what went wrong and whether another try may succeed. It never
retries by itself (the clients are built with ``max_retries=0``): retries, back-off,
concurrency and caching live in :class:`~verifier_runtime.fallback.llm.LLMJudge`, so both
providers behave the same way.

The client libraries are an optional extra (``pip install 'autoverifier[llm]'``) and are
imported only when an adapter is built.
"""

from __future__ import annotations

import importlib
import inspect
from collections.abc import Sequence
from dataclasses import dataclass
from types import ModuleType
from typing import Any, Literal, Protocol, runtime_checkable

__all__ = ["AnthropicAdapter", "Completion", "OpenAIAdapter", "ProviderAdapter", "ProviderError", "classify_error"]

Message = dict[str, str]  # {"role": "user" | "assistant", "content": str}
TokenParam = Literal["max_tokens", "max_completion_tokens"]


@dataclass(frozen=True, slots=True)
class Completion:
    """The text of one reply and the tokens it cost."""

    text: str
    input_tokens: int = 0
    output_tokens: int = 0


class ProviderError(Exception):
    """A failed request. ``kind`` is a short code (``timeout``, ``rate_limit``, ``http_400``, ...)."""

    def __init__(
        self, kind: str, message: str = "", *, retryable: bool, status: int | None = None,
        retry_after: float | None = None,
    ) -> None:
        super().__init__(f"{kind}: {message}" if message else kind)
        self.kind = kind
        self.retryable = retryable
        self.status = status
        self.retry_after = retry_after


@runtime_checkable
class ProviderAdapter(Protocol):
    """What :class:`LLMJudge` needs from a provider."""

    provider: str

    def complete(
        self, messages: Sequence[Message], *, model: str, temperature: float | None, max_tokens: int,
        timeout_s: float,
    ) -> Completion: ...

    def close(self) -> None: ...


def _import(name: str) -> ModuleType:
    try:
        return importlib.import_module(name)
    except ImportError as exc:
        raise RuntimeError(
            f"the {name!r} package is needed for the {name} fallback judge: "
            "install it with `pip install 'autoverifier[llm]'`"
        ) from exc


def _retry_after(exc: Any) -> float | None:
    response = getattr(exc, "response", None)
    headers = getattr(response, "headers", None)
    if headers is None:
        return None
    try:
        value = headers.get("retry-after")
        return max(0.0, float(value)) if value is not None else None
    except (TypeError, ValueError):
        return None  # an HTTP date or garbage: use our own back-off


def classify_error(exc: BaseException, mod: ModuleType) -> ProviderError:
    """Map an exception of the ``openai``/``anthropic`` client to a :class:`ProviderError`.

    Retryable: time-outs, connection errors, 408, 409, 429 and 5xx. Not retryable: other
    4xx (bad request, authentication, unknown model) and malformed replies.
    """
    short = str(exc).splitlines()[0][:200] if str(exc) else type(exc).__name__
    if isinstance(exc, mod.APITimeoutError):
        return ProviderError("timeout", short, retryable=True)
    if isinstance(exc, mod.APIConnectionError):
        return ProviderError("connection", short, retryable=True)
    if isinstance(exc, mod.APIStatusError):
        status = int(getattr(exc, "status_code", 0) or 0)
        if status == 429:
            kind = "rate_limit"
        elif status >= 500:
            kind = "server"
        elif status in (401, 403):
            kind = "auth"
        else:
            kind = f"http_{status}"
        retryable = status in (408, 409, 429) or status >= 500
        return ProviderError(kind, short, retryable=retryable, status=status, retry_after=_retry_after(exc))
    if isinstance(exc, mod.APIError):
        return ProviderError("bad_response", short, retryable=False)
    return ProviderError("unexpected", f"{type(exc).__name__}: {short}", retryable=False)


def _count(value: Any) -> int:
    return value if isinstance(value, int) and not isinstance(value, bool) and value >= 0 else 0


class OpenAIAdapter:
    """Chat Completions through ``openai.OpenAI``: OpenAI itself or any compatible server.

    ``base_url`` points at a compatible server (vLLM, Ollama, llama.cpp, a proxy), e.g.
    ``http://localhost:8000/v1``; such servers usually accept any key (``EMPTY``).
    ``token_param`` names the output-length field: ``max_tokens`` (compatible servers, older
    OpenAI models) or ``max_completion_tokens`` (OpenAI's reasoning models).
    """

    provider = "openai"

    def __init__(
        self, api_key: str, *, base_url: str | None = None, timeout_s: float = 60.0,
        token_param: TokenParam = "max_tokens",
    ) -> None:
        if token_param not in ("max_tokens", "max_completion_tokens"):
            raise ValueError(f"token_param must be 'max_tokens' or 'max_completion_tokens', not {token_param!r}")
        self._mod = _import("openai")
        self.base_url = base_url
        self.token_param = token_param
        self._client = self._mod.OpenAI(api_key=api_key, base_url=base_url, timeout=timeout_s, max_retries=0)

    def complete(
        self, messages: Sequence[Message], *, model: str, temperature: float | None, max_tokens: int,
        timeout_s: float,
    ) -> Completion:
        kwargs: dict[str, Any] = {"model": model, "messages": list(messages), self.token_param: max_tokens}
        if temperature is not None:
            kwargs["temperature"] = temperature
        try:
            resp = self._client.chat.completions.create(timeout=timeout_s, **kwargs)
        except Exception as exc:  # noqa: BLE001 - every client error becomes a ProviderError
            raise classify_error(exc, self._mod) from exc
        choices = getattr(resp, "choices", None) or []
        if not choices:
            raise ProviderError("bad_response", "reply has no choices", retryable=False)
        text = getattr(choices[0].message, "content", None) or ""
        usage = getattr(resp, "usage", None)
        return Completion(
            text=text if isinstance(text, str) else "",
            input_tokens=_count(getattr(usage, "prompt_tokens", 0)),
            output_tokens=_count(getattr(usage, "completion_tokens", 0)),
        )

    def close(self) -> None:
        self._client.close()


def _accepts(fn: Any, name: str) -> bool:
    """Whether the client method ``fn`` takes the keyword ``name`` (client versions differ)."""
    try:
        params = inspect.signature(fn).parameters
    except (TypeError, ValueError):
        return True
    return name in params or any(p.kind is inspect.Parameter.VAR_KEYWORD for p in params.values())


class AnthropicAdapter:
    """The Messages API through ``anthropic.Anthropic``; the reply's text blocks are joined.

    Recent ``anthropic`` releases no longer take a ``temperature`` in ``messages.create``; with
    such a client the setting is left out of the request (``sends_temperature`` says which).
    """

    provider = "anthropic"

    def __init__(self, api_key: str, *, base_url: str | None = None, timeout_s: float = 60.0) -> None:
        self._mod = _import("anthropic")
        self.base_url = base_url
        self._client = self._mod.Anthropic(api_key=api_key, base_url=base_url, timeout=timeout_s, max_retries=0)
        self.sends_temperature = _accepts(self._client.messages.create, "temperature")

    def complete(
        self, messages: Sequence[Message], *, model: str, temperature: float | None, max_tokens: int,
        timeout_s: float,
    ) -> Completion:
        kwargs: dict[str, Any] = {"model": model, "messages": list(messages), "max_tokens": max_tokens}
        if temperature is not None and self.sends_temperature:
            kwargs["temperature"] = temperature
        try:
            resp = self._client.messages.create(timeout=timeout_s, **kwargs)
        except Exception as exc:  # noqa: BLE001 - every client error becomes a ProviderError
            raise classify_error(exc, self._mod) from exc
        blocks = getattr(resp, "content", None) or []
        text = "".join(
            b.text for b in blocks if getattr(b, "type", None) == "text" and isinstance(getattr(b, "text", None), str)
        )
        usage = getattr(resp, "usage", None)
        return Completion(
            text=text,
            input_tokens=_count(getattr(usage, "input_tokens", 0)),
            output_tokens=_count(getattr(usage, "output_tokens", 0)),
        )

    def close(self) -> None:
        self._client.close()
