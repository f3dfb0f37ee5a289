"""Construction flows: one round (``construction_round``) and N rounds (``construct``).

The flow reads as the paper's steps: replay -> residuals -> cluster -> draft ->
audit + validate + promote -> freeze -> publish. Each task is a thin wrapper over a plain
step function in ``tasks/construct/round.py``; the round's state object is handed from task
to task (no registry). Replay is mapped over chunks on the configured task runner: threads
by default, Dask (``task_runner: dask``) to spread it over processes or a cluster; each
worker builds the verifier from the release once.
"""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any

from prefect import flow, task, unmapped
from prefect.artifacts import create_markdown_artifact, create_table_artifact
from prefect.cache_policies import NO_CACHE
from prefect.task_runners import ThreadPoolTaskRunner

from tasks.construct import round as steps
from tasks.construct.config import ConstructConfig
from tasks.construct.round import RoundContext


@task(name="prepare-round", cache_policy=NO_CACHE)
def prepare_task(config: str, round_no: int | None) -> RoundContext:
    """Load the config, the pool and the current release."""
    return steps.prepare_round(config, round_no)


# Decorated under another name: Dask pickles the function by reference, which must resolve to itself.
replay_task = task(name="replay-chunk", cache_policy=NO_CACHE)(steps.replay_chunk)


@task(name="collect-replay", cache_policy=NO_CACHE)
def collect_replay_task(ctx: RoundContext, chunks: list[list[int]], results: list[list[dict[str, Any]]]) -> int:
    """Merge the chunks' decisions into the round state and store every decision."""
    return steps.collect_replay(ctx, chunks, results)


@task(name="residuals", cache_policy=NO_CACHE)
def residuals_task(ctx: RoundContext) -> int:
    """Collect the wrong decisions (direct and fallback) with their features."""
    return steps.find_round_residuals(ctx)


@task(name="cluster", cache_policy=NO_CACHE)
def cluster_task(ctx: RoundContext) -> int:
    """Cluster the residuals (embeddings, UMAP, HDBSCAN) and add coverage groups; rank them."""
    return steps.cluster_round(ctx)


@task(name="draft", cache_policy=NO_CACHE)
def draft_task(ctx: RoundContext) -> int:
    """Draft rule cards for the top clusters (offline templates; an LLM drafter when configured)."""
    return steps.draft_round(ctx)


@task(name="audit-validate-promote", cache_policy=NO_CACHE)
def validate_task(ctx: RoundContext) -> int:
    """Audit each draft's code in the sandbox, validate it in four stages, promote the survivors."""
    return steps.validate_round(ctx)


@task(name="freeze", cache_policy=NO_CACHE)
def freeze_task(ctx: RoundContext) -> str:
    """Freeze the promoted state as the round's release; keep rejected cards."""
    return steps.freeze_round(ctx)


@task(name="publish", cache_policy=NO_CACHE)
def publish_task(ctx: RoundContext, started_at: str) -> dict[str, Any]:
    """Record the round's figures in the store and publish them as Prefect artifacts."""
    summary, trace = steps.record_round(ctx, started_at)
    art = steps.round_artifacts(summary, ctx.accepted, ctx.rejected, trace)
    create_markdown_artifact(key="construction-round", markdown=art["markdown"],
                             description=f"Round {summary['round']} summary")
    create_table_artifact(key="construction-cards", table=art["cards"],
                          description=f"Round {summary['round']}: accepted and rejected cards")
    create_table_artifact(key="construction-trace", table=art["trace"],
                          description="Construction replay trace over rounds")
    return summary


def _round(config: str, round_no: int | None) -> dict[str, Any]:
    started = datetime.now(UTC).isoformat(timespec="seconds")
    ctx = prepare_task(config, round_no)
    chunks, rows = steps.chunk_rows(ctx)
    futures = replay_task.map(unmapped(steps.replay_spec(ctx)), rows)
    collect_replay_task(ctx, chunks, [f.result() for f in futures])
    residuals_task(ctx)
    cluster_task(ctx)
    draft_task(ctx)
    validate_task(ctx)
    freeze_task(ctx)
    return publish_task(ctx, started)


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
