"""The LLM fallback judge: prompt, provider call, retries, concurrency, cache and accounting.

>>> judge = make_llm_judge("openai")                       # doctest: +SKIP
>>> judge.judge("What is 2+2?", "4", "... so the answer is 4.")  # doctest: +SKIP
FallbackResult(correct=True, reason='llm:yes', ...)

:class:`LLMJudge` works with any :class:`~verifier_runtime.fallback.providers.ProviderAdapter`.
It never raises from :meth:`LLMJudge.judge` or :meth:`LLMJudge.judge_batch`: a request that
still fails after its retries gives ``FallbackResult(None, "llm_error:<kind>")``. Settings come
from ``configs/fallback.yaml`` (see :func:`load_fallback_config`); API keys come from
environment variables only.
"""

from __future__ import annotations

import copy
import dataclasses
import os
import random
import threading
import time
from collections.abc import Mapping, Sequence
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any, Literal

import yaml

from verifier_runtime.fallback.cache import JudgeCache, cache_key
from verifier_runtime.fallback.prompt import (
    DEFAULT_TEMPLATE,
    parse_judgment,
    render_prompt,
    validate_template,
)
from verifier_runtime.fallback.providers import (
    AnthropicAdapter,
    Completion,
    Message,
    OpenAIAdapter,
    ProviderAdapter,
    ProviderError,
)
from verifier_runtime.paths import SOURCE_ROOT
from verifier_runtime.types import FallbackResult

__all__ = [
    "BUILTIN_CONFIG", "LLMJudge", "PROVIDERS", "REASK_MESSAGE", "UNPARSEABLE_POLICIES",
    "load_fallback_config", "make_llm_judge", "resolve_settings",
]

UnparseablePolicy = Literal["incorrect", "abstain", "retry"]
UNPARSEABLE_POLICIES: tuple[str, ...] = ("incorrect", "abstain", "retry")
PROVIDERS: tuple[str, ...] = ("openai", "anthropic")
DEFAULT_CONFIG_PATH = "configs/fallback.yaml"
_REPO_ROOT = SOURCE_ROOT

# The follow-up sent once, under the "retry" policy, when a reply carries no label.
REASK_MESSAGE = (
    "Your reply did not end with a judgment line. Reply with exactly one line: "
    "`Final Judgment: Yes` or `Final Judgment: No`."
)

# Built-in settings: what applies when configs/fallback.yaml is absent (an installed wheel)
# and what a partial file is merged over. Keep in step with configs/fallback.yaml. Top-level
# values are shared defaults; a provider's section holds what is specific to it and wins.
BUILTIN_CONFIG: dict[str, Any] = {
    "temperature": 0.0,
    "max_tokens": 1024,
    "timeout_s": 60.0,
    "max_retries": 3,
    "backoff_base_s": 1.0,
    "backoff_max_s": 30.0,
    "seed": 0,
    "concurrency": 4,
    "unparseable": "incorrect",
    "cache_dir": "data/cache/llm",
    "openai": {
        "model": "gpt-4o-mini",
        "base_url": None,
        "api_key_env": "OPENAI_API_KEY",
        "token_param": "max_tokens",
    },
    "anthropic": {
        "model": "claude-3-5-haiku-latest",
        "base_url": None,
        "api_key_env": "ANTHROPIC_API_KEY",
    },
}
SETTING_KEYS: frozenset[str] = frozenset(
    {"model", "base_url", "api_key_env", "token_param", *(k for k in BUILTIN_CONFIG if k not in PROVIDERS)}
)


class LLMJudge:
    """A :class:`~verifier_runtime.fallback.base.Fallback` that asks a chat model.

    - ``temperature`` 0 by default (``None`` leaves it to the server); ``max_tokens`` bounds
      the reply.
    - Each request has ``timeout_s``; retryable failures (time-out, connection, 408/409/429,
      5xx) are tried again up to ``max_retries`` times after an exponential back-off
      ``backoff_base_s * 2**attempt`` (capped at ``backoff_max_s``, honouring a server's
      ``Retry-After`` within that cap) scaled by a jitter in [0.5, 1) from a seeded RNG.
    - At most ``concurrency`` requests of this judge are in flight at once, across all
      threads and batches (one semaphore per judge).
    - ``unparseable``: what a reply without a valid label means: ``"incorrect"`` (the
      default, as the benchmarks score it), ``"abstain"`` (``correct=None``) or ``"retry"``
      (ask once more for the label line, then incorrect).
    - ``cache_dir``: replies are cached on disk by prompt (``None`` disables the cache); a hit
      returns ``cached=True`` and sends no request.
    """

    local = False  # a remote judge: bounded by its own time-outs, not by the verifier's call budget

    def __init__(
        self,
        adapter: ProviderAdapter,
        *,
        model: str,
        template: str | None = None,
        temperature: float | None = 0.0,
        max_tokens: int = 1024,
        timeout_s: float = 60.0,
        max_retries: int = 3,
        backoff_base_s: float = 1.0,
        backoff_max_s: float = 30.0,
        seed: int = 0,
        concurrency: int = 4,
        unparseable: UnparseablePolicy = "incorrect",
        cache_dir: str | os.PathLike[str] | None = "data/cache/llm",
        name: str | None = None,
    ) -> None:
        if not isinstance(model, str) or not model.strip():
            raise ValueError("model must be a non-empty string")
        template = DEFAULT_TEMPLATE if template is None else template
        validate_template(template)
        if unparseable not in UNPARSEABLE_POLICIES:
            raise ValueError(f"unparseable must be one of {UNPARSEABLE_POLICIES}, not {unparseable!r}")
        if temperature is not None and not (isinstance(temperature, int | float) and 0 <= temperature <= 2):
            raise ValueError(f"temperature must be in [0, 2] or None, not {temperature!r}")
        for label, value, low in (("max_tokens", max_tokens, 1), ("max_retries", max_retries, 0),
                                  ("concurrency", concurrency, 1)):
            if not isinstance(value, int) or isinstance(value, bool) or value < low:
                raise ValueError(f"{label} must be an integer >= {low}, not {value!r}")
        for label, value in (("timeout_s", timeout_s), ("backoff_base_s", backoff_base_s),
                             ("backoff_max_s", backoff_max_s)):
            if not isinstance(value, int | float) or isinstance(value, bool) or value < 0:
                raise ValueError(f"{label} must be a number >= 0, not {value!r}")
        if timeout_s <= 0:
            raise ValueError("timeout_s must be > 0")
        self.adapter = adapter
        self.provider = adapter.provider
        self.model = model
        self.template = template
        self.temperature = None if temperature is None else float(temperature)
        self.max_tokens = max_tokens
        self.timeout_s = float(timeout_s)
        self.max_retries = max_retries
        self.backoff_base_s = float(backoff_base_s)
        self.backoff_max_s = float(backoff_max_s)
        self.concurrency = concurrency
        self.unparseable: UnparseablePolicy = unparseable
        self.cache = JudgeCache(cache_dir) if cache_dir is not None else None
        self.name = name or f"{self.provider}:{model}"
        self._slots = threading.BoundedSemaphore(concurrency)
        self._rng = random.Random(seed)
        self._rng_lock = threading.Lock()
        self._usage_lock = threading.Lock()
        self._usage: dict[str, int] = dict.fromkeys(
            ("calls", "cache_hits", "requests", "retries", "reasks", "failures", "unparseable",
             "input_tokens", "output_tokens", "saved_input_tokens", "saved_output_tokens"), 0
        )

    # --- accounting ----------------------------------------------------------------------

    def _bump(self, **counts: int) -> None:
        with self._usage_lock:
            for k, v in counts.items():
                self._usage[k] += v

    def usage(self) -> dict[str, int]:
        """Counters since construction: ``calls`` (judgments asked for), ``cache_hits``,
        ``requests`` (HTTP requests sent, retries included), ``retries``, ``reasks``,
        ``failures`` (judgments that ended in ``llm_error``), ``unparseable``, the tokens paid
        (``input_tokens``, ``output_tokens``) and the tokens the cache saved."""
        with self._usage_lock:
            return dict(self._usage)

    def settings(self) -> dict[str, Any]:
        """The judge's settings (no secrets), for manifests and logs."""
        return {
            "name": self.name, "provider": self.provider, "model": self.model,
            "base_url": getattr(self.adapter, "base_url", None), "temperature": self.temperature,
            "max_tokens": self.max_tokens, "timeout_s": self.timeout_s, "max_retries": self.max_retries,
            "backoff_base_s": self.backoff_base_s, "backoff_max_s": self.backoff_max_s,
            "concurrency": self.concurrency, "unparseable": self.unparseable,
            "cache_dir": str(self.cache.dir) if self.cache is not None else None,
        }

    # --- requests ------------------------------------------------------------------------

    def _delay(self, attempt: int, retry_after: float | None) -> float:
        with self._rng_lock:
            jitter = 0.5 + 0.5 * self._rng.random()
        delay = min(self.backoff_max_s, self.backoff_base_s * (2**attempt)) * jitter
        if retry_after is not None:
            delay = max(delay, min(retry_after, self.backoff_max_s))
        return delay

    def _request(self, messages: Sequence[Message]) -> Completion:
        """One completion, with retries on retryable failures; raises the last ProviderError."""
        attempt = 0
        while True:
            self._bump(requests=1)
            try:
                with self._slots:
                    done = self.adapter.complete(
                        messages, model=self.model, temperature=self.temperature,
                        max_tokens=self.max_tokens, timeout_s=self.timeout_s,
                    )
                if not isinstance(done, Completion):
                    raise ProviderError("bad_response", "adapter returned no Completion", retryable=False)
            except ProviderError as exc:
                if not exc.retryable or attempt >= self.max_retries:
                    raise
                delay = self._delay(attempt, exc.retry_after)
                attempt += 1
                self._bump(retries=1)
                time.sleep(delay)  # outside the semaphore: a waiting call holds no slot
                continue
            self._bump(input_tokens=done.input_tokens, output_tokens=done.output_tokens)
            return done

    def _outcome(self, verdict: bool | None, raw: str, cached: bool, tin: int, tout: int) -> FallbackResult:
        if verdict is not None:
            return FallbackResult(verdict, "llm:yes" if verdict else "llm:no", raw, cached, tin, tout)
        correct = None if self.unparseable == "abstain" else False
        return FallbackResult(correct, "llm:unparseable", raw, cached, tin, tout)

    def _ask(self, prompt: str, key: str) -> FallbackResult:
        messages: list[Message] = [{"role": "user", "content": prompt}]
        try:
            first = self._request(messages)
        except ProviderError as exc:
            self._bump(failures=1)
            return FallbackResult(None, f"llm_error:{exc.kind}")
        raw, tin, tout = first.text, first.input_tokens, first.output_tokens
        verdict = parse_judgment(raw)
        if verdict is None and self.unparseable == "retry":
            self._bump(reasks=1)
            follow = [*messages, {"role": "assistant", "content": raw.strip() or "(no reply)"},
                      {"role": "user", "content": REASK_MESSAGE}]
            try:
                second = self._request(follow)
            except ProviderError:
                second = None  # the first reply stands: unparseable, hence incorrect
            if second is not None:
                raw = f"{raw}\n\n[re-asked for the label]\n{second.text}"
                tin, tout = tin + second.input_tokens, tout + second.output_tokens
                verdict = parse_judgment(second.text)
        if verdict is None:
            self._bump(unparseable=1)
        if self.cache is not None:
            self.cache.put(key, {"raw": raw, "correct": verdict, "input_tokens": tin, "output_tokens": tout})
        return self._outcome(verdict, raw, False, tin, tout)

    # --- the Fallback interface ----------------------------------------------------------

    def judge(self, question: str, reference: str, response: str, *, guidance: str = "") -> FallbackResult:
        """Ask the model whether ``response``'s final answer matches ``reference``. Never raises."""
        self._bump(calls=1)
        try:
            for label, value in (("question", question), ("reference", reference), ("response", response)):
                if not isinstance(value, str):
                    return FallbackResult(None, f"bad_input:{label} is {type(value).__name__}, not str")
            if guidance is None:
                guidance = ""
            if not isinstance(guidance, str):
                return FallbackResult(None, f"bad_input:guidance is {type(guidance).__name__}, not str")
            prompt = render_prompt(self.template, question, reference, response, guidance)
            key = cache_key(self.provider, self.model, self.temperature, self.max_tokens, prompt)
            if self.cache is not None:
                hit = self.cache.get(key)
                if hit is not None:
                    self._bump(cache_hits=1, saved_input_tokens=hit["input_tokens"],
                               saved_output_tokens=hit["output_tokens"])
                    return self._outcome(hit["correct"], hit["raw"], True, 0, 0)
            return self._ask(prompt, key)
        except Exception as exc:  # noqa: BLE001 - the fallback never takes the caller down
            self._bump(failures=1)
            return FallbackResult(None, f"llm_error:internal:{type(exc).__name__}")

    def judge_triple(self, x: Any) -> FallbackResult:
        """One parsed triple, without guidance (the verifier calls a networked judge through ``judge``)."""
        return self.judge(x.question, x.reference, x.response)

    def judge_batch(
        self, rows: Sequence[tuple[str, str, str]], *, guidance: str = "", workers: int = 4
    ) -> list[FallbackResult]:
        """Judge many triples on up to ``workers`` threads (requests still bounded by
        ``concurrency``). Results keep the order of ``rows``; a repeated triple is asked once
        and its repeats come back ``cached=True``. A malformed row gives a ``bad_input`` result."""
        try:
            rows = list(rows)
        except TypeError:
            return []
        results: list[FallbackResult | None] = [None] * len(rows)
        first_of: dict[tuple[str, str, str], int] = {}
        repeats: list[tuple[int, int]] = []
        for i, row in enumerate(rows):
            if not (isinstance(row, tuple | list) and len(row) == 3 and all(isinstance(x, str) for x in row)):
                self._bump(calls=1)
                results[i] = FallbackResult(None, "bad_input:row is not a (question, reference, response) of str")
                continue
            t = (row[0], row[1], row[2])
            if t in first_of:
                repeats.append((i, first_of[t]))
            else:
                first_of[t] = i
        try:
            n = max(1, min(int(workers), len(first_of) or 1))
        except (TypeError, ValueError):
            n = 1
        if first_of:
            with ThreadPoolExecutor(max_workers=n, thread_name_prefix="llm-judge") as pool:
                futures = {i: pool.submit(self.judge, *t, guidance=guidance) for t, i in first_of.items()}
                for i, fut in futures.items():
                    results[i] = fut.result()
        for i, j in repeats:
            src = results[j]
            assert src is not None
            self._bump(calls=1, cache_hits=1)
            results[i] = dataclasses.replace(src, cached=True, input_tokens=0, output_tokens=0)
        return [r if r is not None else FallbackResult(None, "llm_error:internal") for r in results]

    def close(self) -> None:
        """Close the provider client's connections."""
        try:
            self.adapter.close()
        except Exception:  # noqa: BLE001 - closing is best effort
            pass

    def __enter__(self) -> LLMJudge:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


# --- configuration -----------------------------------------------------------------------


def _merge(base: dict[str, Any], over: Mapping[str, Any]) -> dict[str, Any]:
    out = copy.deepcopy(base)
    for k, v in over.items():
        if isinstance(v, Mapping) and isinstance(out.get(k), dict):
            out[k] = _merge(out[k], v)
        else:
            out[k] = copy.deepcopy(v)
    return out


def load_fallback_config(path: str | os.PathLike[str] = DEFAULT_CONFIG_PATH) -> dict[str, Any]:
    """Read the fallback settings merged over the built-ins.

    The result holds shared defaults at the top level and one section per provider
    (``openai``, ``anthropic``). A relative path is looked up in the working directory, then
    in the repository. When the default file is absent (an installed package) the built-in
    settings are returned; a path given explicitly must exist.
    """
    p = Path(path)
    candidates = [p] if p.is_absolute() else [p, _REPO_ROOT / p]
    found = next((c for c in candidates if c.is_file()), None)
    if found is None:
        if str(path) == DEFAULT_CONFIG_PATH:
            return copy.deepcopy(BUILTIN_CONFIG)
        raise FileNotFoundError(f"fallback config not found: {path}")
    with open(found, encoding="utf-8") as fh:
        data = yaml.safe_load(fh) or {}
    if not isinstance(data, Mapping):
        raise ValueError(f"{found}: the fallback config must be a mapping")
    for name in PROVIDERS:
        if not isinstance(data.get(name) or {}, Mapping):
            raise ValueError(f"{found}: the '{name}' section must be a mapping")
    return _merge(BUILTIN_CONFIG, {k: v for k, v in data.items() if not (k in PROVIDERS and v is None)})


def resolve_settings(provider: str, config: Mapping[str, Any] | None = None) -> dict[str, Any]:
    """The flat settings for ``provider``: built-ins, then ``config``'s top-level values, then its
    ``provider`` section. ``config`` defaults to :func:`load_fallback_config`; a flat dict of
    settings (no sections) works too. Unknown keys raise ``ValueError`` (typos surface)."""
    if provider not in PROVIDERS:
        raise ValueError(f"unknown LLM provider {provider!r}: use one of {PROVIDERS}")
    cfg = load_fallback_config() if config is None else config
    if not isinstance(cfg, Mapping):
        raise ValueError("the fallback config must be a mapping")
    section = cfg.get(provider) or {}
    if not isinstance(section, Mapping):
        raise ValueError(f"the '{provider}' section of the fallback config must be a mapping")
    builtin = {k: v for k, v in BUILTIN_CONFIG.items() if k not in PROVIDERS}
    top = {k: v for k, v in cfg.items() if k not in PROVIDERS}
    settings = {**builtin, **BUILTIN_CONFIG[provider], **top, **section}
    unknown = sorted(set(settings) - SETTING_KEYS)
    if unknown:
        raise ValueError(f"unknown fallback setting(s) for {provider}: {unknown}; known: {sorted(SETTING_KEYS)}")
    return settings


def make_llm_judge(
    provider: str,
    *,
    model: str | None = None,
    base_url: str | None = None,
    api_key_env: str | None = None,
    config: Mapping[str, Any] | None = None,
    template: str | None = None,
) -> LLMJudge:
    """Build the LLM judge for ``provider`` (``"openai"`` or ``"anthropic"``).

    Arguments override ``config`` (default: :func:`load_fallback_config`; see :func:`resolve_settings`).
    ``base_url`` points the OpenAI provider at any compatible server (vLLM, Ollama, llama.cpp).
    The API key is read from the environment variable ``api_key_env`` (``OPENAI_API_KEY`` /
    ``ANTHROPIC_API_KEY`` by default); a missing key raises ``RuntimeError`` naming it.
    """
    s = resolve_settings(provider, config)
    model = model or s.get("model")
    if not model:
        raise ValueError(f"no model configured for the {provider} fallback judge")
    base_url = (base_url if base_url is not None else s.get("base_url")) or None
    env = api_key_env or s.get("api_key_env") or f"{provider.upper()}_API_KEY"
    key = os.environ.get(env, "").strip()
    if not key:
        hint = " (a local OpenAI-compatible server accepts any value, e.g. EMPTY)" if provider == "openai" else ""
        raise RuntimeError(
            f"the {provider} fallback judge needs an API key in the environment variable {env}{hint}"
        )
    timeout_s = float(s.get("timeout_s", 60.0))
    adapter: ProviderAdapter
    if provider == "openai":
        adapter = OpenAIAdapter(key, base_url=base_url, timeout_s=timeout_s,
                                token_param=s.get("token_param", "max_tokens"))
    else:
        if "token_param" in s and s["token_param"] != "max_tokens":
            raise ValueError("token_param applies to the openai provider only")
        adapter = AnthropicAdapter(key, base_url=base_url, timeout_s=timeout_s)
    return LLMJudge(
        adapter,
        model=str(model),
        template=template,
        temperature=s.get("temperature", 0.0),
        max_tokens=s.get("max_tokens", 1024),
        timeout_s=timeout_s,
        max_retries=s.get("max_retries", 3),
        backoff_base_s=s.get("backoff_base_s", 1.0),
        backoff_max_s=s.get("backoff_max_s", 30.0),
        seed=s.get("seed", 0),
        concurrency=s.get("concurrency", 4),
        unparseable=s.get("unparseable", "incorrect"),
        cache_dir=s.get("cache_dir", "data/cache/llm"),
    )
