"""verl adapter: ``compute_score`` for ``custom_reward_function``, and a batch variant.

verl's reward managers call ``compute_score(data_source=..., solution_str=...,
ground_truth=..., extra_info=..., **reward_kwargs)`` (``NaiveRewardManager``) or
``compute_score(data_sources=..., solution_strs=..., ground_truths=..., extra_infos=...,
**reward_kwargs)`` (``BatchRewardManager``), with ``reward_kwargs`` taken from
``custom_reward_function.reward_kwargs`` in the trainer config. A dict result must carry the
reward under ``score``; verl collects every other key into ``reward_extra_info`` and averages
the numeric ones in validation metrics, so every result here has the same keys, numeric
except ``decided_by``, ``reason`` and ``artifact_version``::

    custom_reward_function:
      path: /path/to/verifier_runtime/integrations/verl.py
      name: compute_score
      reward_kwargs: {artifact: rulebank/releases/r0003, fallback: offline}

Adapter keywords: ``artifact``, ``fallback``, ``rewards`` (a YAML path or mapping),
``correct``/``incorrect``/``invalid``/``abstain`` (reward values), ``workers`` (batch
variant). Every other keyword is a verifier option passed to ``load_verifier`` (``budget_s``,
``exclude_groups``, ``fallback_config``, ...). The verifier is created once per process per
distinct configuration.

The question is read from ``extra_info["question"]``, else ``extra_info["prompt"]`` (a string
or a chat message list: its last user message), else ``extra_info["problem"]``, else ``""``.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from verifier_runtime.integrations.rewards import (
    RewardConfig,
    get_verifier,
    invalid_module_ids,
    is_invalid,
    last_message_text,
    verdict_to_reward,
)

__all__ = ["compute_score", "compute_score_batch", "question_from_extra_info", "reference_text"]

_ADAPTER_KEYS = frozenset({"artifact", "fallback", "rewards", "correct", "incorrect", "invalid", "abstain",
                           "workers", "verifier"})
QUESTION_KEYS = ("question", "prompt", "problem")


def question_from_extra_info(extra_info: Any) -> str:
    """The question carried in verl's ``extra_info`` (see the module doc), or ``""``."""
    if not isinstance(extra_info, Mapping):
        return ""
    for key in QUESTION_KEYS:
        value = extra_info.get(key)
        if value is None:
            continue
        if hasattr(value, "tolist") and not isinstance(value, str):  # numpy arrays from parquet
            value = value.tolist()
        text = last_message_text(value, "user")
        if text:
            return text
    return ""


def reference_text(ground_truth: Any) -> str:
    """verl's ``ground_truth`` as reference text: strings as is, numbers printed, one-element
    lists unwrapped, longer lists joined with ``", "``, dicts read at ``ground_truth``,
    ``answer`` or ``target``."""
    if ground_truth is None:
        return ""
    if isinstance(ground_truth, str):
        return ground_truth
    if isinstance(ground_truth, bytes):
        return ground_truth.decode("utf-8", "replace")
    if isinstance(ground_truth, bool):
        return str(ground_truth)
    if hasattr(ground_truth, "tolist"):  # numpy scalars and arrays
        ground_truth = ground_truth.tolist()
        if not isinstance(ground_truth, list | tuple):
            return reference_text(ground_truth)
    if isinstance(ground_truth, int | float):
        return repr(ground_truth) if isinstance(ground_truth, float) else str(ground_truth)
    if isinstance(ground_truth, Mapping):
        for key in ("ground_truth", "answer", "target"):
            if key in ground_truth:
                return reference_text(ground_truth[key])
        return ""
    if isinstance(ground_truth, list | tuple):
        parts = [reference_text(g) for g in ground_truth]
        return parts[0] if len(parts) == 1 else ", ".join(parts)
    return str(ground_truth)


def _split(kwargs: Mapping[str, Any]) -> tuple[Any, RewardConfig, int]:
    cfg = RewardConfig.resolve(kwargs.get("rewards"), **{k: kwargs[k] for k in
                                                         ("correct", "incorrect", "invalid", "abstain")
                                                         if k in kwargs})
    options = {k: v for k, v in kwargs.items() if k not in _ADAPTER_KEYS}
    verifier = kwargs.get("verifier")
    if verifier is None:
        verifier = get_verifier(kwargs.get("artifact"), kwargs.get("fallback", "offline"), **options)
    workers = int(kwargs.get("workers", 4))
    return verifier, cfg, max(1, workers)


def _result(verdict: Any, cfg: RewardConfig, invalid_ids: frozenset[str]) -> dict[str, Any]:
    reward = verdict_to_reward(verdict, cfg, invalid_ids)
    if reward is None:  # verl needs a number for every sample
        reward = cfg.incorrect
    abstained = verdict.correct is None
    return {
        "score": float(reward),
        "correct": 1.0 if verdict.correct is True else 0.0,
        "abstained": 1.0 if abstained else 0.0,
        "invalid": 1.0 if is_invalid(verdict, invalid_ids) else 0.0,
        "fallback_called": 1.0 if verdict.fallback_called else 0.0,
        "decided_by": str(verdict.decided_by),
        "reason": str(verdict.reason),
        "artifact_version": str(verdict.artifact_version),
    }


def compute_score(data_source: Any, solution_str: str, ground_truth: Any, extra_info: Any = None,
                  **kwargs: Any) -> dict[str, Any]:
    """Score one rollout for verl's ``NaiveRewardManager`` (see the module doc for keywords).

    Returns ``{"score": float, "correct": 1.0|0.0, "abstained", "invalid", "fallback_called"
    (0.0/1.0), "decided_by": str, "reason": str, "artifact_version": str}``.
    """
    verifier, cfg, _ = _split(kwargs)
    verdict = verifier.verify(question_from_extra_info(extra_info), reference_text(ground_truth),
                              solution_str if isinstance(solution_str, str) else reference_text(solution_str))
    return _result(verdict, cfg, invalid_module_ids(getattr(verifier, "modules", ())))


def compute_score_batch(data_sources: Sequence[Any], solution_strs: Sequence[str], ground_truths: Sequence[Any],
                        extra_infos: Sequence[Any] | None = None, **kwargs: Any) -> list[dict[str, Any]]:
    """Score a batch for verl's ``BatchRewardManager``: one dict per rollout, in order."""
    n = len(solution_strs)
    if len(ground_truths) != n or (data_sources is not None and len(data_sources) != n):
        raise ValueError(f"batch lengths differ: {n} solution_strs, {len(ground_truths)} ground_truths, "
                         f"{len(data_sources) if data_sources is not None else 0} data_sources")
    infos = list(extra_infos) if extra_infos is not None else [None] * n
    if len(infos) != n:
        raise ValueError(f"batch lengths differ: {n} solution_strs, {len(infos)} extra_infos")
    verifier, cfg, workers = _split(kwargs)
    rows = [
        {"question": question_from_extra_info(info), "reference": reference_text(gt),
         "response": s if isinstance(s, str) else reference_text(s)}
        for s, gt, info in zip(solution_strs, ground_truths, infos, strict=True)
    ]
    verdicts = verifier.verify_batch(rows, workers=workers)
    invalid_ids = invalid_module_ids(getattr(verifier, "modules", ()))
    return [_result(v, cfg, invalid_ids) for v in verdicts]
