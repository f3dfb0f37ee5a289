"""OpenRLHF: the remote reward protocol (shared by both servers) and the Python-file form.

OpenRLHF (>= 0.10) takes ``--reward.remote_url`` as either an HTTP URL or the path of a Python
file. Over HTTP it posts ``{"query": [...], "prompts": [...], "labels": [...]}`` (``query[i]`` is
the prompt followed by the response, ``labels[i]`` the ``--data.label_key`` column, here the
reference) and reads ``{"rewards": [...], "scores": [...], "extra_logs": {...}}``: ``rewards``
is the training reward, ``scores`` the 0/1 signal of dynamic filtering, each ``extra_logs``
list a logged metric. With a file it imports the file and calls
``reward_func(queries, prompts, labels, **kwargs)`` with the same lists; this module is such a
file (see :func:`reward_func`).

* the response is ``query`` with ``prompt`` removed from its start (when the prompt is not a
  prefix, the text after its first occurrence; when it does not occur, the whole query), and
  common end-of-sequence markers (``<|im_end|>``, ``</s>``, ...) removed from its end;
* ``prompts`` may be omitted (the whole query is then the response, the question empty);
* a label may be a string, a number, a list of acceptable references (correct when any
  matches) or ``null``; a null label cannot be verified: the sample gets the ``incorrect``
  reward and ``extra_logs["label_missing"] = 1.0``, and one warning is logged.

Stdlib and ``verifier_runtime`` only (torch is used by :func:`reward_func` when present).
"""

from __future__ import annotations

import json
import os
from typing import Any

from verifier_runtime.integrations.rewards import (
    RewardConfig,
    get_verifier,
    invalid_module_ids,
    is_invalid,
    references_of,
    verdict_to_reward,
    verify_references,
    warn_once,
)

__all__ = ["EOS_MARKERS", "PayloadError", "Scorer", "parse_payload", "reward_func", "strip_prompt"]

DEFAULT_MAX_ITEMS = 4096  # samples per request; OpenRLHF >= 0.10 sends one per request
EOS_MARKERS = ("<|im_end|>", "<|endoftext|>", "<|eot_id|>", "<|end|>", "</s>", "<eos>", "<|end_of_text|>")
EXTRA_LOG_KEYS = ("correct", "abstained", "invalid", "fallback_called", "label_missing")


class PayloadError(ValueError):
    """A request the server refuses, with its HTTP status and a short code."""

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


def _str_list(payload: dict[str, Any], key: str) -> list[str]:
    value = payload[key]
    if not isinstance(value, list):
        raise PayloadError(400, "wrong_type", f"{key!r} must be a list, got {type(value).__name__}")
    for i, item in enumerate(value):
        if not isinstance(item, str):
            raise PayloadError(400, "wrong_type", f"{key}[{i}] must be a string, got {type(item).__name__}")
    return value


def _labels(payload: dict[str, Any]) -> list[list[str] | None]:
    value = payload["labels"]
    if not isinstance(value, list):
        raise PayloadError(400, "wrong_type", f"'labels' must be a list, got {type(value).__name__}")
    out: list[list[str] | None] = []
    for i, item in enumerate(value):
        if item is not None and not isinstance(item, str | int | float | list) or isinstance(item, bool):
            raise PayloadError(400, "wrong_type", f"labels[{i}] must be a string, a number, a list of them "
                                                  f"or null, got {type(item).__name__}")
        if isinstance(item, list) and not all(isinstance(x, str | int | float) and not isinstance(x, bool)
                                              for x in item):
            raise PayloadError(400, "wrong_type", f"labels[{i}] must list strings or numbers only")
        out.append(references_of(item))
    return out


def parse_payload(body: bytes, *, max_items: int = DEFAULT_MAX_ITEMS) -> tuple[list[str], list[list[str] | None],
                                                                               list[str]]:
    """Validate a ``/get_reward`` body: ``(questions, references, responses)`` per sample.

    Raises :class:`PayloadError` (400 for malformed JSON, missing keys, wrong types and unequal
    lengths; 413 for more than ``max_items`` samples).
    """
    try:
        payload = json.loads(body)
    except (UnicodeDecodeError, json.JSONDecodeError) as exc:
        raise PayloadError(400, "invalid_json", f"request body is not valid JSON: {exc}") from None
    except RecursionError:
        raise PayloadError(400, "invalid_json", "request body nests too deeply") from None
    except ValueError as exc:  # e.g. an integer literal beyond Python's digit limit
        raise PayloadError(400, "invalid_json", f"request body is not valid JSON: {exc}") from None
    if not isinstance(payload, dict):
        raise PayloadError(400, "wrong_type", "request body must be a JSON object")
    missing = [k for k in ("query", "labels") if k not in payload]
    if missing:
        raise PayloadError(400, "missing_keys", f"missing keys: {missing} (expected query, prompts, labels)")
    n = len(payload["query"]) if isinstance(payload["query"], list) else 0
    if n > max_items:
        raise PayloadError(413, "too_many_items", f"{n} samples exceed the limit of {max_items}")
    queries = _str_list(payload, "query")
    labels = _labels(payload)
    prompts = _str_list(payload, "prompts") if payload.get("prompts") is not None else [""] * len(queries)
    if not (len(queries) == len(labels) == len(prompts)):
        raise PayloadError(400, "length_mismatch", f"lists differ in length: query={len(queries)}, "
                                                   f"prompts={len(prompts)}, labels={len(labels)}")
    return prompts, labels, [strip_prompt(q, p) for q, p in zip(queries, prompts, strict=True)]


class Scorer:
    """Rewards, 0/1 scores and per-sample logs for OpenRLHF from one verifier."""

    def __init__(self, verifier: Any, rewards: Any = None, workers: int = 4) -> None:
        self.verifier = verifier
        self.rewards = RewardConfig.resolve(rewards)
        self.workers = max(1, int(workers))
        self.invalid_ids = invalid_module_ids(getattr(verifier, "modules", ()))

    def score(self, questions: list[str], references: list[list[str] | None], responses: list[str]) -> dict[str, Any]:
        """``{"rewards", "scores", "extra_logs", "decided_by", "reasons"}`` for the samples."""
        verdicts = verify_references(self.verifier, questions, references, responses, self.workers)
        cfg = self.rewards
        rewards: list[float] = []
        scores: list[float] = []
        logs: dict[str, list[float]] = {k: [] for k in EXTRA_LOG_KEYS}
        decided_by: list[str] = []
        reasons: list[str] = []
        for v in verdicts:
            if v is None:  # no label: nothing to verify against
                warn_once("openrlhf:labels", "a sample arrived with a null label: it cannot be verified; it gets the "
                                             "'incorrect' reward and extra_logs label_missing=1 (check --data.label_key)")
                rewards.append(cfg.incorrect)
                scores.append(0.0)
                for k in EXTRA_LOG_KEYS:
                    logs[k].append(1.0 if k == "label_missing" else 0.0)
                decided_by.append("none")
                reasons.append("invalid:label_missing")
                continue
            r = verdict_to_reward(v, cfg, self.invalid_ids)
            rewards.append(cfg.incorrect if r is None else r)
            scores.append(1.0 if v.correct is True else 0.0)
            logs["correct"].append(1.0 if v.correct is True else 0.0)
            logs["abstained"].append(1.0 if v.correct is None else 0.0)
            logs["invalid"].append(1.0 if is_invalid(v, self.invalid_ids) else 0.0)
            logs["fallback_called"].append(1.0 if v.fallback_called else 0.0)
            logs["label_missing"].append(0.0)
            decided_by.append(str(v.decided_by))
            reasons.append(str(v.reason))
        return {"rewards": rewards, "scores": scores, "extra_logs": logs, "decided_by": decided_by,
                "reasons": reasons}


# --- the Python-file form: --reward.remote_url /path/to/verifier_runtime/integrations/openrlhf.py ---

_ENV = {"artifact": "AUTOVERIFIER_ARTIFACT", "fallback": "AUTOVERIFIER_FALLBACK", "rewards": "AUTOVERIFIER_REWARDS",
        "workers": "AUTOVERIFIER_WORKERS", "budget_s": "AUTOVERIFIER_BUDGET_S"}


def _file_scorer() -> Scorer:
    env = {k: os.environ.get(v) or None for k, v in _ENV.items()}
    options = {"budget_s": float(env["budget_s"])} if env["budget_s"] else {}
    verifier = get_verifier(env["artifact"], env["fallback"] or "offline", **options)
    key = ("scorer", id(verifier), env["rewards"], env["workers"])
    scorer = _SCORERS.get(key)
    if scorer is None:
        scorer = _SCORERS.setdefault(key, Scorer(verifier, env["rewards"], int(env["workers"] or 4)))
    return scorer


_SCORERS: dict[Any, Scorer] = {}


def _tensor(values: list[float]) -> Any:
    try:
        import torch
    except ImportError:
        return values
    return torch.tensor(values, dtype=torch.float32)


def reward_func(queries: list[str], prompts: list[str] | None, labels: list[Any] | None, **kwargs: Any) -> dict[str, Any]:
    """OpenRLHF's Python-file reward: ``--reward.remote_url .../verifier_runtime/integrations/openrlhf.py``.

    The verifier runs in the calling process, configured by environment variables
    (``AUTOVERIFIER_ARTIFACT``, ``AUTOVERIFIER_FALLBACK``, ``AUTOVERIFIER_REWARDS``,
    ``AUTOVERIFIER_WORKERS``, ``AUTOVERIFIER_BUDGET_S``); unknown keyword arguments are
    ignored. Returns ``rewards`` and ``scores`` as float tensors when torch is importable
    (lists otherwise) and ``extra_logs`` as tensors per key (``label_missing`` flags null labels).
    """
    queries = [q if isinstance(q, str) else "" for q in (queries or [])]
    n = len(queries)
    prompts = [p if isinstance(p, str) else "" for p in (prompts or [""] * n)]
    labels = list(labels) if labels is not None else [None] * n
    if len(prompts) != n or len(labels) != n:
        raise ValueError(f"reward_func got {n} queries, {len(prompts)} prompts and {len(labels)} labels")
    out = _file_scorer().score(prompts, [references_of(x) for x in labels],
                               [strip_prompt(q, p) for q, p in zip(queries, prompts, strict=True)])
    return {"rewards": _tensor(out["rewards"]), "scores": _tensor(out["scores"]),
            "extra_logs": {k: _tensor(v) for k, v in out["extra_logs"].items()}}
