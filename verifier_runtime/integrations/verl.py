"""verl adapter: ``compute_score`` (sync and ``async``) for ``reward.custom_reward_function``.

verl's reward loop (reward managers ``naive``, ``dapo``, ``rate_limited``, ...) calls
``compute_score(data_source=..., solution_str=..., ground_truth=..., extra_info=..., **kw)``
with ``reward.custom_reward_function.reward_kwargs`` merged in, and adds keywords of its own
(``reward_router_address`` and ``reward_model_tokenizer`` with a generative reward model,
``strict_box_verify`` from DAPO, ...). It detects a coroutine function and awaits it. A dict
result carries the reward under ``score``; verl copies every other key into
``reward_extra_info`` per sample and builds arrays from the first sample's keys, so every
result here has the same keys, none ``None``::

    reward:
      reward_manager: {name: naive}          # or dapo, rate_limited
      custom_reward_function:
        path: /path/to/verifier_runtime/integrations/verl.py
        name: compute_score                  # or compute_score_async
        reward_kwargs: {artifact: rulebank/releases/r0003, fallback: offline}

Keys of a result: ``score`` (the reward), ``acc`` (1.0 correct / 0.0), ``pred`` (the
response's extracted final answer, ``""`` when none), ``decided_by``, ``reason``,
``fallback_called`` (1.0/0.0), ``invalid`` (1.0/0.0). The functions never raise: an internal
error (including a bad artifact path, logged once as an error) is the ``incorrect`` reward with
``decided_by="error:<Type>"``.

Adapter keywords: ``artifact``, ``fallback``, ``rewards`` (a YAML path or mapping),
``correct``/``incorrect``/``invalid``/``abstain`` (reward values), ``workers`` (batch
variant), and the verifier options ``load_verifier`` takes (:data:`VERIFIER_OPTIONS`). Any
other keyword is verl's and is ignored. The verifier is created once per process per
distinct configuration.

- **Question**: ``extra_info["question"]``, else ``extra_info["prompt"]`` (a string or a chat
  message list: its last user message), else ``extra_info["problem"]``, else ``""``.
- **Reference**: ``ground_truth``: a string or number, a dict read at ``ground_truth``,
  ``answer`` or ``target``, or a list of acceptable references (correct when any matches).
  ``None`` (or an empty list) cannot be verified: the ``incorrect`` reward with
  ``decided_by="none"``, ``reason="invalid:reference_missing"`` and one warning.
- **Truncation**: ``extra_info["truncated"]`` true (the response hit the length limit) is the
  invalid case: the ``invalid`` reward, ``reason="invalid:truncated"``, nothing verified.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Mapping, Sequence
from typing import Any

from verifier_runtime.integrations.rewards import (
    RewardConfig,
    get_verifier,
    invalid_module_ids,
    is_invalid,
    last_message_text,
    references_of,
    verdict_to_reward,
    verify_references,
    warn_once,
)

__all__ = ["RESULT_KEYS", "VERIFIER_OPTIONS", "compute_score", "compute_score_async", "compute_score_batch",
           "question_from_extra_info", "reference_text"]

log = logging.getLogger("autoverifier.verl")

_REWARD_KEYS = ("correct", "incorrect", "invalid", "abstain")
VERIFIER_OPTIONS = frozenset({"budget_s", "module_budget_s", "fallback_budget_s", "strict", "exclude_groups",
                              "warmup", "fallback_config", "trusted_keys", "isolation"})
RESULT_KEYS = ("score", "acc", "pred", "decided_by", "reason", "fallback_called", "invalid")
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
    """verl's ``ground_truth`` as one reference text (the first when several are given)."""
    refs = references_of(ground_truth)
    return refs[0] if refs else ""


def _truncated(extra_info: Any) -> bool:
    if not isinstance(extra_info, Mapping):
        return False
    value = extra_info.get("truncated")
    if hasattr(value, "item"):
        value = value.item()
    return bool(value) if isinstance(value, bool | int | float) else False


def _settings(kwargs: Mapping[str, Any]) -> tuple[Any, RewardConfig, int]:
    cfg = RewardConfig.resolve(kwargs.get("rewards"), **{k: kwargs[k] for k in _REWARD_KEYS if k in kwargs})
    verifier = kwargs.get("verifier")
    if verifier is None:
        options = {k: v for k, v in kwargs.items() if k in VERIFIER_OPTIONS}
        verifier = get_verifier(kwargs.get("artifact"), kwargs.get("fallback", "offline"), **options)
    return verifier, cfg, max(1, int(kwargs.get("workers", 4)))


def _fixed(score: float, decided_by: str, reason: str, *, invalid: bool = False) -> dict[str, Any]:
    return {"score": float(score), "acc": 0.0, "pred": "", "decided_by": decided_by, "reason": reason,
            "fallback_called": 0.0, "invalid": 1.0 if invalid else 0.0}


def _pred(solution: str, question: str) -> str:
    from verifier_runtime.toolkit.extract import extract_final_answer

    try:
        info = extract_final_answer(solution, question)
    except Exception:  # noqa: BLE001 - a log field, never a reason to fail the sample
        return ""
    return (info.answer or "") if info is not None else ""


def _result(verdict: Any, cfg: RewardConfig, invalid_ids: frozenset[str], pred: str) -> dict[str, Any]:
    reward = verdict_to_reward(verdict, cfg, invalid_ids)
    if reward is None:  # verl needs a number for every sample
        reward = cfg.incorrect
    return {"score": float(reward), "acc": 1.0 if verdict.correct is True else 0.0, "pred": pred[:200],
            "decided_by": str(verdict.decided_by), "reason": str(verdict.reason),
            "fallback_called": 1.0 if verdict.fallback_called else 0.0,
            "invalid": 1.0 if is_invalid(verdict, invalid_ids) else 0.0}


def _error(exc: BaseException, kwargs: Mapping[str, Any]) -> dict[str, Any]:
    name = type(exc).__name__
    warn_once(f"verl:error:{name}", f"compute_score failed ({name}: {exc}); the sample gets the incorrect reward "
                                    "with decided_by='error:...' (further errors of this kind are not logged)")
    try:
        score = RewardConfig.resolve(kwargs.get("rewards"), **{k: kwargs[k] for k in _REWARD_KEYS
                                                                if k in kwargs}).incorrect
    except Exception:  # noqa: BLE001 - the reward settings themselves are broken
        score = 0.0
    return _fixed(score, f"error:{name}", f"internal_error:{name}")


def _score_one(verifier: Any, cfg: RewardConfig, solution_str: Any, ground_truth: Any, extra_info: Any,
               workers: int = 1) -> dict[str, Any]:
    if _truncated(extra_info):
        return _fixed(cfg.invalid, "truncated", "invalid:truncated", invalid=True)
    refs = references_of(ground_truth)
    if refs is None:
        warn_once("verl:ground_truth", "a sample has no ground_truth (None or empty): it cannot be verified and "
                                       "gets the incorrect reward (check reward_model.ground_truth in the data)")
        return _fixed(cfg.incorrect, "none", "invalid:reference_missing")
    question = question_from_extra_info(extra_info)
    solution = solution_str if isinstance(solution_str, str) else (reference_text(solution_str) or "")
    verdict = verify_references(verifier, [question], [refs], [solution], workers)[0]
    return _result(verdict, cfg, invalid_module_ids(getattr(verifier, "modules", ())), _pred(solution, question))


def compute_score(data_source: Any = None, solution_str: Any = "", ground_truth: Any = None, extra_info: Any = None,
                  **kwargs: Any) -> dict[str, Any]:
    """Score one rollout (verl's reward loop, any reward manager). Never raises; see the module doc."""
    try:
        verifier, cfg, _ = _settings(kwargs)
        return _score_one(verifier, cfg, solution_str, ground_truth, extra_info)
    except Exception as exc:  # noqa: BLE001 - a training step must not die on one sample
        if kwargs.get("strict"):
            raise
        return _error(exc, kwargs)


async def compute_score_async(data_source: Any = None, solution_str: Any = "", ground_truth: Any = None,
                              extra_info: Any = None, **kwargs: Any) -> dict[str, Any]:
    """The ``async`` variant verl awaits: the verification runs on a worker thread, so the
    reward loop's concurrent samples (and their LLM fallback calls) proceed together."""
    return await asyncio.to_thread(compute_score, data_source, solution_str, ground_truth, extra_info, **kwargs)


def compute_score_batch(data_sources: Sequence[Any] | None = None, solution_strs: Sequence[Any] = (),
                        ground_truths: Sequence[Any] = (), extra_infos: Sequence[Any] | None = None,
                        **kwargs: Any) -> list[dict[str, Any]]:
    """Score a batch (verl's ``batch`` reward manager): one dict per rollout, in order. Never raises."""
    n = len(solution_strs)
    try:
        if len(ground_truths) != n or (data_sources is not None and len(data_sources) != n):
            raise ValueError(f"batch lengths differ: {n} solution_strs, {len(ground_truths)} ground_truths, "
                             f"{len(data_sources) if data_sources is not None else 0} data_sources")
        infos = list(extra_infos) if extra_infos is not None else [None] * n
        if len(infos) != n:
            raise ValueError(f"batch lengths differ: {n} solution_strs, {len(infos)} extra_infos")
        verifier, cfg, workers = _settings(kwargs)
        out: list[dict[str, Any] | None] = [None] * n
        todo = []
        for i, (s, gt, info) in enumerate(zip(solution_strs, ground_truths, infos, strict=True)):
            if _truncated(info) or references_of(gt) is None:
                out[i] = _score_one(verifier, cfg, s, gt, info)
            else:
                todo.append(i)
        questions = [question_from_extra_info(infos[i]) for i in todo]
        solutions = [s if isinstance(s, str) else reference_text(s) for s in (solution_strs[i] for i in todo)]
        verdicts = verify_references(verifier, questions, [references_of(ground_truths[i]) for i in todo], solutions,
                                     workers)
        invalid_ids = invalid_module_ids(getattr(verifier, "modules", ()))
        for i, q, s, v in zip(todo, questions, solutions, verdicts, strict=True):
            out[i] = _result(v, cfg, invalid_ids, _pred(s, q))
        return [o for o in out if o is not None]
    except Exception as exc:  # noqa: BLE001
        if kwargs.get("strict"):
            raise
        return [_error(exc, kwargs) for _ in range(n)]
