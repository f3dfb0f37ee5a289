"""Fallback judges: called only when every code module abstains.

``make_fallback(name)`` builds one: ``"none"`` (no fallback: abstentions surface as
``correct=None``), ``"offline"`` (the embedded best-effort judge, no key needed),
``"openai"`` (also any OpenAI-compatible server through ``base_url``) or ``"anthropic"``.
"""

from __future__ import annotations

from typing import Any

from verifier_runtime.fallback.base import Fallback, as_fallback

FALLBACK_NAMES = ("none", "offline", "openai", "anthropic")


def make_fallback(name: str | Fallback | None, *, template: str | None = None,
                  config: dict[str, Any] | None = None) -> Fallback | None:
    """Build the named fallback. LLM fallbacks read their key from the environment."""
    if name is None or name == "none":
        return None
    if not isinstance(name, str):
        return as_fallback(name)  # a Fallback object, or one with name and judge (TypeError otherwise)
    if name == "offline":
        from verifier_runtime.fallback.offline import OfflineJudge

        return OfflineJudge()
    if name in ("openai", "anthropic"):
        from verifier_runtime.fallback.llm import load_fallback_config, make_llm_judge

        cfg = load_fallback_config()
        if config:  # caller's settings override the provider's section of configs/fallback.yaml
            cfg = {**cfg, name: {**(cfg.get(name) or {}), **config}}
        return make_llm_judge(name, config=cfg, template=template)
    raise ValueError(f"unknown fallback {name!r}; choose one of {', '.join(FALLBACK_NAMES)}")


__all__ = ["FALLBACK_NAMES", "Fallback", "as_fallback", "make_fallback"]
