"""Reward shaping shared by every training adapter, and the per-process verifier cache.

A verdict becomes a reward in one place, so verl, TRL and the OpenRLHF server agree:

==================  =============================================  ==================
verdict             rule                                           reward
==================  =============================================  ==================
correct             ``verdict.correct is True``                    ``cfg.correct``
invalid             ``correct is False`` and the decision says     ``cfg.invalid``
                    the response had no valid answer (below)
incorrect           any other ``correct is False``                 ``cfg.incorrect``
abstain             ``correct is None`` (only with                 ``cfg.abstain``
                    ``fallback="none"``)                           (``None`` = no reward)
==================  =============================================  ==================

*Invalid* means: the verdict's ``reason`` starts with ``invalid`` (the runtime writes
``invalid:<code>`` for responses with no extractable or valid final answer), or the deciding
module belongs to an invalid-answer guard group (any module group whose name contains
``invalid``; pass the verifier's ``modules`` to :func:`invalid_module_ids`).

Stdlib and ``verifier_runtime`` only: training jobs import this.
"""

from __future__ import annotations

import logging
import math
import os
import re
import threading
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, fields, replace
from pathlib import Path
from typing import Any

__all__ = [
    "RewardConfig",
    "verdict_to_reward",
    "is_invalid",
    "invalid_module_ids",
    "get_verifier",
    "clear_verifier_cache",
    "references_of",
    "verify_references",
    "warn_once",
]

log = logging.getLogger("autoverifier.rewards")

_REWARD_KEYS = ("correct", "incorrect", "invalid", "abstain")


def _as_score(name: str, value: Any, *, allow_none: bool = False) -> float | None:
    if value is None and allow_none:
        return None
    if isinstance(value, bool) or not isinstance(value, int | float):
        raise ValueError(f"reward value {name!r} must be a number, got {value!r}")
    out = float(value)
    if not math.isfinite(out):
        raise ValueError(f"reward value {name!r} must be finite, got {value!r}")
    return out


@dataclass(frozen=True, slots=True)
class RewardConfig:
    """Reward values per verdict kind. ``abstain=None`` leaves abstentions without a reward."""

    correct: float = 1.0
    incorrect: float = 0.0
    invalid: float = 0.0
    abstain: float | None = None

    def __post_init__(self) -> None:
        for f in fields(self):
            object.__setattr__(self, f.name, _as_score(f.name, getattr(self, f.name), allow_none=f.name == "abstain"))

    @classmethod
    def from_mapping(cls, data: Mapping[str, Any]) -> RewardConfig:
        """Build from a mapping; a nested ``rewards:`` section is accepted too. Unknown keys raise."""
        if "rewards" in data and isinstance(data["rewards"], Mapping):
            data = data["rewards"]
        unknown = sorted(set(data) - set(_REWARD_KEYS))
        if unknown:
            raise ValueError(f"unknown reward keys {unknown}; expected some of {list(_REWARD_KEYS)}")
        return cls(**{k: data[k] for k in _REWARD_KEYS if k in data})

    @classmethod
    def from_yaml(cls, path: str | os.PathLike[str]) -> RewardConfig:
        """Read a YAML file such as ``configs/rewards.yaml``."""
        import yaml  # a core dependency, imported only when a file is read

        text = Path(path).read_text(encoding="utf-8")
        data = yaml.safe_load(text) or {}
        if not isinstance(data, Mapping):
            raise ValueError(f"{path}: expected a mapping of reward values")
        return cls.from_mapping(data)

    @classmethod
    def resolve(cls, rewards: RewardConfig | Mapping[str, Any] | str | os.PathLike[str] | None = None,
                **overrides: Any) -> RewardConfig:
        """One entry point for adapters: a config, a mapping, a YAML path or ``None`` (defaults),
        then individual values (``correct=``, ``incorrect=``, ``invalid=``, ``abstain=``) on top."""
        if rewards is None:
            cfg = cls()
        elif isinstance(rewards, RewardConfig):
            cfg = rewards
        elif isinstance(rewards, Mapping):
            cfg = cls.from_mapping(rewards)
        elif isinstance(rewards, str | os.PathLike):
            cfg = cls.from_yaml(rewards)
        else:
            raise TypeError(f"rewards must be a RewardConfig, mapping or path, got {type(rewards).__name__}")
        picked = {k: v for k, v in overrides.items() if k in _REWARD_KEYS}
        return replace(cfg, **picked) if picked else cfg


_GROUP_NORMALISE = re.compile(r"[^a-z0-9]+")


def invalid_module_ids(modules: Iterable[Any]) -> frozenset[str]:
    """Ids of modules whose group is an invalid-answer guard (group name contains ``invalid``)."""
    out = set()
    for m in modules:
        group = _GROUP_NORMALISE.sub("_", str(getattr(m, "group", "")).lower())
        if "invalid" in group:
            out.add(str(getattr(m, "id", "")))
    return frozenset(out)


def is_invalid(verdict: Any, invalid_modules: frozenset[str] = frozenset()) -> bool:
    """Whether a negative verdict says the response had no valid answer (see the module doc)."""
    if getattr(verdict, "correct", None) is not False:
        return False
    reason = str(getattr(verdict, "reason", "") or "").strip().lower()
    return reason.startswith("invalid") or str(getattr(verdict, "decided_by", "")) in invalid_modules


def verdict_to_reward(verdict: Any, cfg: RewardConfig | None = None,
                      invalid_modules: frozenset[str] = frozenset()) -> float | None:
    """The reward for one verdict; ``None`` only for an abstention when ``cfg.abstain is None``."""
    cfg = cfg or RewardConfig()
    correct = getattr(verdict, "correct", None)
    if correct is True:
        return cfg.correct
    if correct is False:
        return cfg.invalid if is_invalid(verdict, invalid_modules) else cfg.incorrect
    return cfg.abstain


# --- the per-process verifier cache ------------------------------------------------------

def _freeze(value: Any) -> Any:
    """A hashable stand-in for an option value (sets, dicts and lists included)."""
    if isinstance(value, Mapping):
        return ("map", tuple(sorted((str(k), _freeze(v)) for k, v in value.items())))
    if isinstance(value, set | frozenset):
        return ("set", tuple(sorted(repr(_freeze(v)) for v in value)))
    if isinstance(value, list | tuple):
        return ("seq", tuple(_freeze(v) for v in value))
    if isinstance(value, os.PathLike):
        return ("path", os.fspath(value))
    try:
        hash(value)
    except TypeError:
        return ("obj", id(value))
    return value


def _artifact_key(artifact: Any) -> Any:
    if artifact is None:
        return None
    if isinstance(artifact, str | os.PathLike):
        return os.path.abspath(os.fspath(artifact))
    return ("obj", id(artifact))


_cache: dict[Any, Any] = {}
_key_locks: dict[Any, threading.Lock] = {}
_cache_lock = threading.Lock()


def _default_loader(artifact: Any, fallback: Any, **options: Any) -> Any:
    from verifier_runtime import load_verifier

    return load_verifier(artifact=artifact, fallback=fallback, **options)


def get_verifier(artifact: Any = None, fallback: Any = "offline", *,
                 loader: Callable[..., Any] | None = None, **options: Any) -> Any:
    """The verifier for ``(artifact, fallback, options)``, created once per process.

    Thread-safe: concurrent first calls for the same key load it once; other keys are not
    blocked meanwhile. A load error propagates (a bad artifact path is a configuration
    error, and a training job should stop on it at its first reward call).
    """
    key = (os.getpid(), _artifact_key(artifact), _freeze(fallback), _freeze(options),
           _freeze(loader) if loader is not None else None)
    hit = _cache.get(key)
    if hit is not None:
        return hit
    with _cache_lock:
        lock = _key_locks.setdefault(key, threading.Lock())
    with lock:
        hit = _cache.get(key)
        if hit is None:
            hit = (loader or _default_loader)(artifact, fallback, **options)
            _cache[key] = hit
    return hit


def clear_verifier_cache() -> None:
    """Forget every cached verifier (tests; or to pick up a new release in a long process)."""
    with _cache_lock:
        _cache.clear()
        _key_locks.clear()


# --- text from chat-shaped inputs ---------------------------------------------------------

def content_text(content: Any) -> str:
    """Plain text of a message ``content``: a string, or a list of parts (``{"type": "text",
    "text": ...}`` or strings) whose text parts are joined. Anything else gives ``""``."""
    if content is None:
        return ""
    if isinstance(content, str):
        return content
    if isinstance(content, Mapping):
        return content_text(content.get("text", content.get("content")))
    if isinstance(content, list | tuple):
        return "".join(content_text(p) for p in content)
    return ""


def last_message_text(messages: Any, role: str) -> str:
    """Text of the last message with ``role`` in a conversation; a plain string is returned as
    is. A conversation with no message of that role gives its last message's text."""
    if isinstance(messages, str):
        return messages
    if isinstance(messages, Mapping):
        return content_text(messages.get("content"))
    if not isinstance(messages, list | tuple) or not messages:
        return ""
    for m in reversed(messages):
        if isinstance(m, Mapping) and m.get("role") == role:
            return content_text(m.get("content"))
    last = messages[-1]
    return content_text(last.get("content")) if isinstance(last, Mapping) else content_text(last)


# --- references: one or several acceptable answers ------------------------------------------

MAX_REFERENCES = 32  # acceptable references per sample; more is a data error, not a use case
_REFERENCE_KEYS = ("ground_truth", "answer", "answers", "target", "reference")


def _scalar_text(value: Any) -> str | None:
    if value is None:
        return None
    if isinstance(value, str):
        return value
    if isinstance(value, bytes):
        return value.decode("utf-8", "replace")
    if isinstance(value, bool):
        return str(value)
    if isinstance(value, int | float):
        if isinstance(value, float) and not math.isfinite(value):
            return str(value)
        return repr(value) if isinstance(value, float) else str(value)
    return None


def references_of(value: Any) -> list[str] | None:
    """The acceptable references a dataset value holds, or ``None`` when it holds none.

    A string or number is one reference; a list or tuple (numpy arrays included) is a list of
    acceptable references (the answer is correct when it matches any); a mapping is read at
    ``ground_truth``, ``answer``, ``answers``, ``target`` or ``reference``. ``None``, an empty
    list and a list of nulls give ``None``: there is nothing to verify against.
    """
    if hasattr(value, "tolist") and not isinstance(value, str | bytes):  # numpy scalars and arrays
        value = value.tolist()
    text = _scalar_text(value)
    if text is not None:
        return [text]
    if isinstance(value, Mapping):
        for key in _REFERENCE_KEYS:
            if key in value:
                return references_of(value[key])
        return None
    if isinstance(value, list | tuple):
        out: list[str] = []
        for item in value[:MAX_REFERENCES]:
            refs = references_of(item) if isinstance(item, list | tuple | Mapping) else None
            item_text = _scalar_text(item.tolist() if hasattr(item, "tolist") else item)
            if item_text is not None:
                out.append(item_text)
            elif refs:
                out.extend(refs)
        out = [r for r in dict.fromkeys(out)][:MAX_REFERENCES]
        return out or None
    return None


def _best(verdicts: list[Any]) -> Any:
    """One verdict for several references: the first correct one, else the first decided one."""
    for v in verdicts:
        if getattr(v, "correct", None) is True:
            return v
    for v in verdicts:
        if getattr(v, "correct", None) is not None:
            return v
    return verdicts[0]


def verify_references(verifier: Any, questions: list[str], references: list[list[str] | None],
                      responses: list[str], workers: int = 4) -> list[Any | None]:
    """Verdicts for samples with one or several acceptable references (``None``: no reference).

    A sample with several references is correct when its response matches any of them: the
    rows are verified together in one ``verify_batch`` and reduced per sample.
    """
    rows: list[dict[str, str]] = []
    owner: list[int] = []
    for i, (q, refs, s) in enumerate(zip(questions, references, responses, strict=True)):
        for r in refs or ():
            rows.append({"question": q, "reference": r, "response": s})
            owner.append(i)
    verdicts = verifier.verify_batch(rows, workers=workers) if rows else []
    grouped: list[list[Any]] = [[] for _ in questions]
    for i, v in zip(owner, verdicts, strict=True):
        grouped[i].append(v)
    return [_best(g) if g else None for g in grouped]


_warned: set[str] = set()
_warned_lock = threading.Lock()


def warn_once(key: str, message: str) -> None:
    """Log ``message`` as a warning once per process for ``key`` (a column or setting name)."""
    with _warned_lock:
        if key in _warned:
            return
        _warned.add(key)
    log.warning(message)
