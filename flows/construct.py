"""Construction flows: one round (``construction_round``) and N rounds (``construct``).

The flow reads as the paper's steps: replay -> residuals -> cluster -> draft ->
audit + validate + promote -> freeze -> publish. Each task is a thin wrapper over a plain
step function in ``tasks/construct/round.py``; the round's state object is handed from task
to task (no registry). Replay is mapped over chunks on the configured task runner: threads
by default, Dask (``task_runner: dask``) to spread it over processes or a cluster; each
worker builds the verifier from the release once.

A round's flow run is named ``<config>-round-<NNN>``, tagged with the config, its base and its
drafter, and its parameters show the round number and the base (filled in when the run was
started without them, e.g. from a deployment). Its artifacts are keyed per config
(``<config>-round``, ``<config>-cards``, ``<config>-trace``), so two configs never mix their
histories. With ``evaluate_config``, ``construct`` evaluates each new round build with the
``evaluate`` flow and publishes the table next to the round's (``<config>-eval``).
"""

from __future__ import annotations

from typing import Any

from prefect import flow, get_run_logger, tags, task, unmapped
from prefect.artifacts import create_markdown_artifact, create_table_artifact
from prefect.cache_policies import NO_CACHE
from prefect.task_runners import ThreadPoolTaskRunner

from tasks.construct import round as steps
from tasks.construct.config import ConstructConfig
from tasks.construct.round import RoundContext


@task(name="prepare-round", cache_policy=NO_CACHE)
def prepare_task(config: str, round_no: int | None, fresh: bool = False) -> RoundContext:
    """Lock the rule bank, recover a stopped round, plan this one, load the config, pool and base."""
    ctx = steps.prepare_round(config, round_no, fresh=fresh)
    _label_run(ctx, config, fresh)
    return ctx


# Decorated under another name: Dask pickles the function by reference, which must resolve to itself.
replay_task = task(name="replay-chunk", cache_policy=NO_CACHE)(steps.replay_chunk)


@task(name="collect-replay", cache_policy=NO_CACHE)
def collect_replay_task(ctx: RoundContext, chunks: list[list[int]], results: list[list[dict[str, Any]]]) -> int:
    """Merge the chunks' decisions into the round state."""
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
    """Audit each draft's code in the sandbox, validate it in six stages, promote the survivors."""
    return steps.validate_round(ctx)


@task(name="freeze", cache_policy=NO_CACHE)
def freeze_task(ctx: RoundContext) -> str:
    """Write the round's rows, proposals and round build (recoverable at every point)."""
    return steps.freeze_round(ctx)


@task(name="publish", cache_policy=NO_CACHE)
def publish_task(ctx: RoundContext) -> dict[str, Any]:
    """Publish the round's figures as Prefect artifacts keyed per config."""
    summary, trace = steps.record_round(ctx)
    publish_round(summary, ctx.accepted, ctx.rejected, trace)
    return summary


def publish_round(summary: dict[str, Any], accepted: list[dict], rejected: list[dict],
                  trace: list[dict]) -> dict[str, str]:
    """The round's three artifacts; returns their keys."""
    keys = steps.artifact_keys(summary["config"])
    art = steps.round_artifacts(summary, accepted, rejected, trace)
    what = f"froze {summary['build']}" if summary.get("build") else f"nothing accepted, {summary['base_release']} unchanged"
    create_table_artifact(key=keys["cards"], table=art["cards"],
                          description=f"{summary['name']}: every card with its stage and full reason")
    create_markdown_artifact(key=keys["round"], markdown=art["markdown"],
                             description=f"{summary['name']}: {what}")
    create_table_artifact(key=keys["trace"], table=art["trace"],
                          description=f"Rounds of {summary['config']}: figures after each round")
    return {k: keys[k] for k in ("round", "cards", "trace")}


def _label_run(ctx: RoundContext, config: str, fresh: bool) -> None:
    """Name, tag and complete the parameters of the running round's flow run (a run started
    from a deployment or by hand may lack the round number and the base)."""
    from prefect.client.orchestration import get_client
    from prefect.context import FlowRunContext

    run_ctx = FlowRunContext.get()
    if run_ctx is None or run_ctx.flow_run is None:
        return
    fr = run_ctx.flow_run
    params = {**(fr.parameters or {}), "config": config, "round_no": ctx.round_no,
              "base_release": ctx.base.version, "fresh": fresh}
    labels = sorted({*(fr.tags or []), *round_tags(ctx.cfg, ctx.base.version)})
    try:
        with get_client(sync_client=True) as client:
            client.update_flow_run(fr.id, name=steps.round_name(ctx.cfg.name, ctx.round_no), parameters=params,
                                   tags=labels)
    except Exception as exc:  # labels are a convenience; a round never fails over them
        get_run_logger().warning("could not label the flow run: %s", exc)


def round_tags(cfg: ConstructConfig, base_version: str) -> list[str]:
    """The tags of a round's flow run: its config, its base, its drafter."""
    return [f"config:{cfg.name}", f"base:{base_version}", f"drafter:{steps.drafter_names(cfg)}"]


def _round_run_name() -> str:
    """The flow run name, computed when the run is created: ``<config>-round-<NNN>``."""
    from prefect.runtime import flow_run

    p = flow_run.parameters
    cfg = ConstructConfig.from_yaml(p["config"])
    n = p.get("round_no") or steps.plan_round(cfg, fresh=bool(p.get("fresh"))).round_no
    return steps.round_name(cfg.name, int(n))


def _round(config: str, round_no: int | None, fresh: bool) -> dict[str, Any]:
    ctx = prepare_task(config, round_no, fresh)
    try:
        chunks, rows = steps.chunk_rows(ctx)
        futures = replay_task.map(unmapped(steps.replay_spec(ctx)), rows)
        collect_replay_task(ctx, chunks, [f.result() for f in futures])
        residuals_task(ctx)
        cluster_task(ctx)
        draft_task(ctx)
        validate_task(ctx)
        freeze_task(ctx)
        return publish_task(ctx)
    finally:
        steps.close_round(ctx)


@flow(name="construction-round", flow_run_name=_round_run_name,
      task_runner=ThreadPoolTaskRunner(max_workers=4), log_prints=True)
def construction_round(config: str = "configs/demo.yaml", round_no: int | None = None,
                       base_release: str | None = None, fresh: bool = False) -> dict[str, Any]:
    """One construction round over the configured pool, replay mapped on threads.

    ``round_no`` and ``base_release`` are filled in by the round itself (the next number of the
    config's rule bank and the state its last round left); given, they must match that plan.
    """
    _check_base(config, base_release, fresh)
    return _round(config, round_no, fresh)


def _check_base(config: str, base_release: str | None, fresh: bool) -> None:
    if base_release is None:
        return
    plan = steps.plan_round(ConstructConfig.from_yaml(config), fresh=fresh)
    if plan.base_version != base_release:
        raise ValueError(f"the next round of {config} starts from {plan.base_version}, not {base_release}")


def _dask_runner() -> Any:
    try:
        from prefect_dask import DaskTaskRunner
    except ImportError:  # the 'scale' extra is not installed
        return None
    return DaskTaskRunner(cluster_kwargs={"n_workers": 2, "threads_per_worker": 1})


def construction_round_dask(config: str = "configs/demo.yaml", round_no: int | None = None,
                            base_release: str | None = None, fresh: bool = False) -> dict[str, Any]:
    """One construction round, replay mapped on Dask (a local cluster, or ``dask_address``)."""
    _check_base(config, base_release, fresh)
    return _round(config, round_no, fresh)


# A module-level flow of its own (not a with_options copy): Dask pickles the flow by reference.
_DASK_RUNNER = _dask_runner()
construction_round_dask = (  # noqa: F811 - the flow replaces its own function under the same name
    flow(name="construction-round-dask", flow_run_name=_round_run_name, task_runner=_DASK_RUNNER,
         log_prints=True)(construction_round_dask)
    if _DASK_RUNNER is not None else None
)


def _construct_run_name() -> str:
    from prefect.runtime import flow_run

    p = flow_run.parameters
    cfg = ConstructConfig.from_yaml(p["config"])
    return f"{steps.slug(cfg.name)}-from-round-{steps.plan_round(cfg, fresh=bool(p.get('fresh'))).round_no:03d}"


def rounds_to_run(cfg: ConstructConfig, rounds: int | None, until: int | None, next_round: int) -> int:
    """How many rounds a run makes: ``rounds`` more (default: the config's ``rounds``), or with
    ``until``, up to and including round ``until`` (zero when it is already done)."""
    if rounds is not None and until is not None:
        raise ValueError("give rounds or until, not both")
    if until is not None:
        return max(0, until - next_round + 1)
    return rounds if rounds is not None else cfg.rounds


@flow(name="construct", flow_run_name=_construct_run_name, log_prints=True)
def construct(config: str = "configs/demo.yaml", rounds: int | None = None, until: int | None = None,
              fresh: bool = False, evaluate_config: str | None = None,
              evaluate_limit: int | None = None) -> list[dict[str, Any]]:
    """Run construction rounds: ``rounds`` more (default: the config's ``rounds``), or up to
    round ``until``. Each continues from the state the last one left (``fresh``: the first
    starts over from the config's ``start_from``). A round that accepts nothing ends the run
    (the next would repeat it). With ``evaluate_config``, each new round build is evaluated."""
    logger = get_run_logger()
    cfg = ConstructConfig.from_yaml(config)
    if fresh:
        archived = steps.archive_fresh(cfg)
        if archived:
            logger.info("fresh start: earlier preview proposals and rejected cards moved to %s", archived)
    plan = steps.plan_round(cfg, fresh=fresh)
    n = rounds_to_run(cfg, rounds, until, plan.round_no)
    if n == 0:
        logger.info("%s: round %d is already done (next is %d); nothing to run", cfg.name, until, plan.round_no)
    round_flow = round_flow_for(cfg)
    summaries: list[dict[str, Any]] = []
    for k in range(n):
        plan = steps.plan_round(cfg, fresh=fresh and k == 0)
        logger.info("%s: round %d of this run, %s (base %s)", cfg.name, k + 1, steps.round_name(cfg.name, plan.round_no),
                    plan.base_version)
        with tags(*round_tags(cfg, plan.base_version)):
            summary = round_flow(config, round_no=plan.round_no, base_release=plan.base_version, fresh=plan.fresh)
        summaries.append(summary)
        if summary.get("build") and evaluate_config:
            evaluate_round(cfg, summary, evaluate_config, evaluate_limit)
        if not summary.get("build"):
            if k + 1 < n:
                logger.info("%s: stopping after %s: %s", cfg.name, summary["name"], summary["nothing_accepted"])
            break
    return summaries


def evaluate_round(cfg: ConstructConfig, summary: dict[str, Any], evaluate_config: str,
                   limit: int | None = None) -> dict[str, Any]:
    """Evaluate a round's build with the ``evaluate`` flow (a subflow of the run) and publish
    its table next to the round's artifacts (``<config>-eval``, ``<config>-eval-accuracy``)."""
    from flows.evaluate import evaluate

    keys = steps.artifact_keys(cfg.name)
    return evaluate.with_options(flow_run_name=f"{summary['name']}-eval")(
        config_path=evaluate_config, artifact=summary["build_path"], limit=limit,
        summary_key=keys["eval"], table_key=keys["eval_table"],
        title=f"{summary['name']}: evaluation of round build {summary['build']}")


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
