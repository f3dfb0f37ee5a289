"""TRL adapter: a reward function for ``GRPOTrainer(reward_funcs=...)``.

TRL calls each reward function as ``reward_func(prompts=..., completions=...,
completion_ids=..., trainer_state=..., log_extra=..., log_metric=..., **dataset_columns)``:
every dataset column arrives as a keyword holding one value per completion. Recent TRL
versions also pass ``log_extra(column, values)`` (adds a column to the logged completions
table) and ``log_metric(name, value)``; older ones do not, and both are optional here.

TRL (>= 0.27) also takes ``async`` reward functions and awaits them together;
:func:`make_async_reward_function` builds one (the verification runs on a worker thread, so
LLM fallback calls of several reward functions overlap).

A reference value may be a string, a number, or a list of acceptable references (correct when
any matches). A ``None`` reference cannot be verified: that completion gets ``None`` (TRL
leaves it out of this function's reward) and one warning names the column. A missing
reference column raises ``KeyError``: at construction when ``dataset=`` is given, else at the
first call, before any reward is returned.

Example::

    from trl import GRPOTrainer
    from verifier_runtime.integrations.trl import make_reward_function

    reward = make_reward_function(artifact="rulebank/releases/r0003", reference_column="solution",
                                  dataset=dataset)
    trainer = GRPOTrainer(model=..., reward_funcs=[reward], train_dataset=dataset)
"""

from __future__ import annotations

import asyncio
import threading
from collections.abc import Awaitable, Callable, Mapping
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

__all__ = ["make_reward_function", "make_async_reward_function", "completion_text", "prompt_text"]


def completion_text(completion: Any) -> str:
    """A completion as text: a string as is; a conversation's last assistant message."""
    return last_message_text(completion, "assistant")


def prompt_text(prompt: Any) -> str:
    """A prompt as the question: a string as is; a conversation's last user message."""
    return last_message_text(prompt, "user")


def _column(kwargs: Mapping[str, Any], name: str, n: int) -> list[Any]:
    if name not in kwargs:
        available = sorted(k for k in kwargs if k not in {"trainer_state", "completion_ids", "log_extra",
                                                             "log_metric"})
        raise KeyError(f"reward function needs the dataset column {name!r} (TRL passes columns as keyword "
                       f"arguments); columns received: {available}")
    values = kwargs[name]
    if hasattr(values, "tolist") and not isinstance(values, str):
        values = values.tolist()
    if isinstance(values, str) or not hasattr(values, "__len__"):
        values = [values] * n  # one value for the whole batch
    values = list(values)
    if len(values) != n:
        raise ValueError(f"column {name!r} has {len(values)} values for {n} completions")
    return values


def _text(value: Any) -> str:
    if value is None:
        return ""
    if isinstance(value, str):
        return value
    if isinstance(value, list | tuple) and len(value) == 1:
        return _text(value[0])
    return str(value)


def _check_dataset(dataset: Any, columns: list[str]) -> None:
    names = getattr(dataset, "column_names", None)
    if isinstance(names, Mapping):  # a DatasetDict: every split must have the columns
        names = sorted(set.intersection(*(set(v) for v in names.values()))) if names else []
    if names is None:
        return
    missing = [c for c in columns if c not in names]
    if missing:
        raise KeyError(f"the reward function needs the dataset column(s) {missing}; the dataset has {list(names)}")


def make_reward_function(*, artifact: Any = None, fallback: Any = "offline", reference_column: str = "solution",
                         question_column: str | None = None, rewards: Any = None, abstain_as_none: bool = False,
                         workers: int = 4, verifier: Any = None, name: str = "autoverifier", dataset: Any = None,
                         **options: Any) -> Callable[..., list[float | None]]:
    """Build a GRPO reward function backed by a frozen verifier.

    ``rewards`` is a :class:`RewardConfig`, a mapping or a YAML path. The reference comes from
    the dataset column ``reference_column``; the question from ``question_column`` when
    given, else from the prompt. Abstentions (possible only with ``fallback="none"``) get
    ``None`` when ``abstain_as_none`` (TRL then ignores that sample for this function),
    otherwise ``rewards.abstain`` or, when that is unset, ``rewards.incorrect``. ``options``
    go to ``load_verifier``; the verifier loads lazily on the first call and is shared per
    process. Pass ``verifier=`` to use an already loaded one, and ``dataset=`` (a ``datasets``
    dataset) to check the columns now rather than at the first step.
    """
    if dataset is not None:
        _check_dataset(dataset, [reference_column] + ([question_column] if question_column else []))
    cfg = RewardConfig.resolve(rewards)
    state: dict[str, Any] = {"verifier": verifier}
    lock = threading.Lock()

    def _verifier() -> Any:
        if state["verifier"] is None:
            with lock:
                if state["verifier"] is None:
                    state["verifier"] = get_verifier(artifact, fallback, **options)
        return state["verifier"]

    def reward_func(prompts: list[Any] | None = None, completions: list[Any] | None = None,
                    **kwargs: Any) -> list[float | None]:
        completions = list(completions or [])
        n = len(completions)
        if n == 0:
            return []
        references = _column(kwargs, reference_column, n)
        if question_column is not None:
            questions = [_text(q) for q in _column(kwargs, question_column, n)]
        elif prompts is not None:
            prompts = list(prompts)
            if len(prompts) != n:
                raise ValueError(f"{len(prompts)} prompts for {n} completions")
            questions = [prompt_text(p) for p in prompts]
        else:
            questions = [""] * n
        refs = [references_of(r) for r in references]
        if any(r is None for r in refs):
            warn_once(f"trl:{reference_column}", f"dataset column {reference_column!r} holds None (or an empty list) "
                                                 "for some samples: they cannot be verified and get None (TRL leaves "
                                                 "them out of this reward)")
        v = _verifier()
        found = verify_references(v, questions, refs, [completion_text(c) for c in completions], workers)
        invalid_ids = invalid_module_ids(getattr(v, "modules", ()))
        verdicts = [x for x in found if x is not None]
        out: list[float | None] = []
        for verdict in found:
            if verdict is None:
                out.append(None)
                continue
            if verdict.correct is None and abstain_as_none:
                out.append(None)
                continue
            r = verdict_to_reward(verdict, cfg, invalid_ids)
            out.append(cfg.incorrect if r is None else r)

        log_extra = kwargs.get("log_extra")
        if callable(log_extra):
            log_extra(f"{name}_decided_by", [str(x.decided_by) if x is not None else "none" for x in found])
            log_extra(f"{name}_reason", [str(x.reason) if x is not None else "invalid:reference_missing"
                                         for x in found])
        log_metric = kwargs.get("log_metric")
        if callable(log_metric) and verdicts:
            m = len(verdicts)
            log_metric(f"{name}/fallback_rate", sum(bool(x.fallback_called) for x in verdicts) / m)
            log_metric(f"{name}/abstain_rate", sum(x.correct is None for x in verdicts) / m)
            log_metric(f"{name}/invalid_rate", sum(is_invalid(x, invalid_ids) for x in verdicts) / m)
        return out

    reward_func.__name__ = name
    reward_func.__qualname__ = name
    reward_func.__doc__ = f"AutoVerifier reward (artifact={artifact!r}, fallback={fallback!r})."
    return reward_func


def make_async_reward_function(**kwargs: Any) -> Callable[..., Awaitable[list[float | None]]]:
    """The ``async`` form of :func:`make_reward_function` (same keywords), for TRL >= 0.27."""
    sync = make_reward_function(**kwargs)

    async def reward_func(prompts: list[Any] | None = None, completions: list[Any] | None = None,
                          **kw: Any) -> list[float | None]:
        return await asyncio.to_thread(sync, prompts=prompts, completions=completions, **kw)

    reward_func.__name__ = sync.__name__
    reward_func.__qualname__ = sync.__qualname__
    reward_func.__doc__ = sync.__doc__
    return reward_func
