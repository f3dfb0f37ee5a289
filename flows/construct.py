"""Construction flows: one round (``construction_round``) and N rounds (``construct``).

The flow reads as the paper's steps: replay -> residuals -> cluster -> draft ->
audit + validate + promote -> freeze -> publish.
"""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any

from prefect import flow
from prefect.task_runners import ThreadPoolTaskRunner

from tasks.steps import (
    ConstructConfig,
    chunk_indices,
    cluster_task,
    ctx_of,
    draft_task,
    freeze_task,
    prepare_round,
    publish_task,
    replay_task,
    residuals_task,
    validate_task,
)


@flow(name="construction-round", task_runner=ThreadPoolTaskRunner(max_workers=4), log_prints=True)
def construction_round(config: str = "configs/demo.yaml", round_no: int | None = None) -> dict[str, Any]:
    """One construction round over the configured pool; returns the round's figures."""
    started = datetime.now(UTC).isoformat(timespec="seconds")
    key = prepare_round(config, round_no)
    ctx = ctx_of(key)
    chunks = chunk_indices(len(ctx.state), ctx.cfg.chunk_size)
    replay_task.map(key, chunks).result()
    residuals_task(key)
    cluster_task(key)
    draft_task(key)
    validate_task(key)
    freeze_task(key)
    return publish_task(key, started)


@flow(name="construct", log_prints=True)
def construct(config: str = "configs/demo.yaml", rounds: int | None = None) -> list[dict[str, Any]]:
    """Run ``rounds`` construction rounds (default: the config's ``rounds``)."""
    n = rounds if rounds is not None else ConstructConfig.from_yaml(config).rounds
    return [construction_round(config) for _ in range(n)]
