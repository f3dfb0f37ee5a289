"""Construction flows: one round (``construction_round``) and N rounds (``construct``).

The flow reads as the paper's steps: replay -> residuals -> cluster -> draft ->
audit + validate + promote -> freeze -> publish. Replay is mapped over chunks on the
configured task runner: threads by default, Dask (``task_runner: dask``) to spread it over
processes or a cluster; each worker rebuilds the verifier from the release once.
"""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any

from prefect import flow, unmapped
from prefect.task_runners import ThreadPoolTaskRunner

from tasks.steps import (
    ConstructConfig,
    chunk_rows,
    cluster_task,
    collect_replay_task,
    draft_task,
    freeze_task,
    prepare_round,
    publish_task,
    replay_spec,
    replay_task,
    residuals_task,
    validate_task,
)


def _round(config: str, round_no: int | None) -> dict[str, Any]:
    started = datetime.now(UTC).isoformat(timespec="seconds")
    key = prepare_round(config, round_no)
    chunks, rows = chunk_rows(key)
    futures = replay_task.map(unmapped(replay_spec(key)), rows)
    collect_replay_task(key, chunks, [f.result() for f in futures])
    residuals_task(key)
    cluster_task(key)
    draft_task(key)
    validate_task(key)
    freeze_task(key)
    return publish_task(key, started)


@flow(name="construction-round", task_runner=ThreadPoolTaskRunner(max_workers=4), log_prints=True)
def construction_round(config: str = "configs/demo.yaml", round_no: int | None = None) -> dict[str, Any]:
    """One construction round over the configured pool, replay mapped on threads."""
    return _round(config, round_no)


def _dask_runner() -> Any:
    try:
        from prefect_dask import DaskTaskRunner
    except ImportError:  # the 'scale' extra is not installed
        return None
    return DaskTaskRunner(cluster_kwargs={"n_workers": 2, "threads_per_worker": 1})


def construction_round_dask(config: str = "configs/demo.yaml", round_no: int | None = None) -> dict[str, Any]:
    """One construction round, replay mapped on Dask (a local cluster, or ``dask_address``)."""
    return _round(config, round_no)


# A module-level flow of its own (not a with_options copy): Dask pickles the flow by reference.
_DASK_RUNNER = _dask_runner()
construction_round_dask = (  # noqa: F811 - the flow replaces its own function under the same name
    flow(name="construction-round-dask", task_runner=_DASK_RUNNER, log_prints=True)(construction_round_dask)
    if _DASK_RUNNER is not None else None
)


@flow(name="construct", log_prints=True)
def construct(config: str = "configs/demo.yaml", rounds: int | None = None) -> list[dict[str, Any]]:
    """Run ``rounds`` construction rounds (default: the config's ``rounds``)."""
    cfg = ConstructConfig.from_yaml(config)
    n = rounds if rounds is not None else cfg.rounds
    round_flow = round_flow_for(cfg)
    return [round_flow(config) for _ in range(n)]


def round_flow_for(cfg: ConstructConfig):
    """The round flow for the configured task runner (threads, or Dask: a local cluster or an address)."""
    if cfg.task_runner == "threads":
        return construction_round.with_options(task_runner=ThreadPoolTaskRunner(max_workers=cfg.max_workers))
    if cfg.task_runner == "dask":
        if construction_round_dask is None:
            raise RuntimeError("task_runner: dask needs the 'scale' extra (pip install 'autoverifier[scale]')")
        runner = construction_round_dask.task_runner
        runner.address = cfg.dask_address
        runner.cluster_kwargs = {"n_workers": cfg.max_workers, "threads_per_worker": 1}
        return construction_round_dask
    raise ValueError(f"task_runner must be 'threads' or 'dask', not {cfg.task_runner!r}")
