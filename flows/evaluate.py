"""The ``evaluate`` Prefect flow: the evaluation runner as small tasks, with UI artifacts.

The steps are those of ``tasks.evaluate.runner.evaluate`` (each benchmark through
``run_benchmark``, the decontamination audit, then ``build_report``), each wrapped in a task;
tasks pass small values (a config dict, a run id, benchmark names) and per-example results
travel through the store's ``eval_results`` table.

    from flows.evaluate import evaluate
    report = evaluate(config_path="configs/eval.yaml", benchmark="verifybench", limit=50)
"""

from __future__ import annotations

import tempfile
import time
from pathlib import Path
from typing import Any

from prefect import flow, get_run_logger, task
from prefect.artifacts import create_markdown_artifact, create_table_artifact
from prefect.cache_policies import NO_CACHE

from tasks.evaluate.runner import (
    EvalConfig,
    build_report,
    build_verifiers,
    decontamination,
    load_eval_config,
    load_eval_sets,
    load_results,
    new_run_id,
    run_benchmark,
)


def _cfg(cfg: dict[str, Any]) -> EvalConfig:
    return EvalConfig(**cfg)


@task(name="load-eval-config", cache_policy=NO_CACHE)
def load_config(config_path: str | None, overrides: dict[str, Any]) -> dict[str, Any]:
    """Read and check the eval config; returns it as a plain dict."""
    cfg = load_eval_config(config_path, **overrides)
    if not cfg.db:  # results travel through the store, so a run always has one
        cfg.db = str(Path(tempfile.mkdtemp(prefix="autoverifier-eval-")) / "eval.duckdb")
    return cfg.to_dict()


@task(name="evaluate-benchmark", cache_policy=NO_CACHE)
def evaluate_benchmark(cfg: dict[str, Any], benchmark: str, run_id: str) -> dict[str, Any]:
    """Run every verifier on one benchmark and append the results to the store."""
    c = _cfg(cfg)
    c.benchmarks = [benchmark]
    part = run_benchmark(c, benchmark, run_id, load_eval_sets(c)[benchmark], build_verifiers(c))
    get_run_logger().info("%s: %d results stored", benchmark, part["rows"])
    return {k: v for k, v in part.items() if k != "results"}  # the results travel through the store


@task(name="audit-decontamination", cache_policy=NO_CACHE)
def audit_decontamination(cfg: dict[str, Any]) -> dict[str, Any]:
    """Decontamination audit of the evaluation sets against the construction pool."""
    c = _cfg(cfg)
    return decontamination(c, load_eval_sets(c))


@task(name="summarize-evaluation", cache_policy=NO_CACHE)
def summarize_run(cfg: dict[str, Any], run_id: str, parts: list[dict[str, Any]],
                  decontam: dict[str, Any], started: float) -> dict[str, Any]:
    """Figures of the whole run from the stored results, written to JSON when configured."""
    c = _cfg(cfg)
    _, results = load_results(c.resolve(c.db), run_id)
    return build_report(c, results, load_eval_sets(c), parts, decontam, run_id=run_id, started=started, flow=True)


def summary_markdown(report: dict[str, Any], title: str = "AutoVerifier evaluation") -> str:
    """The run's figures as Markdown (the Prefect UI artifact)."""
    benches = report.get("benchmarks", {})
    verifiers = sorted({v for per in benches.values() for v in per})
    art = report.get("artifact") or {}
    lines = [f"# {title}", ""]
    if art:
        lines += [f"Release **{art.get('version')}** ({art.get('modules')} modules, fallback {art.get('fallback')})"
                  + (f" from `{art.get('path')}`" if art.get("path") else "") + "; benchmarks: "
                  + ", ".join(sorted(benches)) + ".", ""]
    lines += [f"> {n}" for n in report.get("notes") or []]
    lines += ["", "| benchmark | n | " + " | ".join(verifiers) + " |", "|---|---|" + "---|" * len(verifiers)]
    for b, per in sorted(benches.items()):
        n = next(iter(per.values()))["n"] if per else 0
        cells = []
        for v in verifiers:
            f = per.get(v)
            cells.append("–" if not f else f"{100 * f['accuracy']:.2f}% [{100 * f['accuracy_ci'][0]:.1f}, "
                         f"{100 * f['accuracy_ci'][1]:.1f}]")
        lines.append(f"| {b} | {n} | " + " | ".join(cells) + " |")
    macro = report.get("macro") or {}
    lines.append("| macro | | " + " | ".join(f"{100 * macro[v]:.2f}%" if v in macro else "–" for v in verifiers)
                 + " |")
    corr = (report.get("corrections") or {}).get("all")
    if corr:
        avoided = corr.get("fallback_calls_avoided")
        lines += ["", f"Corrections vs fallback-only: {corr['corrected']} corrected, {corr['new_errors']} new errors; "
                  f"fallback calls {corr['fallback_calls']} vs {corr['fallback_only_calls']}"
                  + (f" ({100 * avoided:.1f}% avoided)." if avoided is not None else ".")]
    for name, p in ((report.get("paired") or {}).get("all") or {}).items():
        lines.append(f"- {name}: {100 * p['mean_diff']:+.2f} pts, 95% CI [{100 * p['ci_low']:+.2f}, "
                     f"{100 * p['ci_high']:+.2f}], p={p['p_normal']:.3g}, McNemar p={p['p_mcnemar']:.3g}")
    abl = (report.get("ablations") or {}).get("all") or []
    if abl:
        lines += ["", "| group removed | replaced | delta (pts) |", "|---|---|---|"]
        lines += [f"| {a['group']} | {a['replaced']} | {100 * a['delta']:+.2f} |" for a in abl]
    dec = report.get("decontamination") or {}
    lines += ["", f"Decontamination: **{dec.get('status')}**" + (f" – {dec['reason']}" if dec.get("reason") else "")]
    return "\n".join(lines) + "\n"


def accuracy_rows(report: dict[str, Any]) -> list[dict[str, Any]]:
    """One row per (benchmark, verifier): the table artifact."""
    rows = []
    for b, per in sorted(report.get("benchmarks", {}).items()):
        for v, f in sorted(per.items()):
            rows.append({"benchmark": b, "verifier": v, "n": f["n"], "accuracy": round(f["accuracy"], 4),
                         "ci_low": round(f["accuracy_ci"][0], 4), "ci_high": round(f["accuracy_ci"][1], 4),
                         "direct_coverage": round(f["direct_coverage"], 4),
                         "direct_precision": None if f["direct_precision"] is None else round(f["direct_precision"], 4),
                         "fallback_calls": f["fallback_calls"]})
    return rows


@task(name="publish-evaluation", cache_policy=NO_CACHE)
def publish(report: dict[str, Any], summary_key: str = "evaluation-summary", table_key: str = "evaluation-accuracy",
            title: str = "AutoVerifier evaluation") -> list[str]:
    """Publish the figures as Prefect UI artifacts; returns their keys."""
    create_markdown_artifact(key=summary_key, markdown=summary_markdown(report, title),
                             description=f"{title}: accuracy, paired tests, ablations")
    create_table_artifact(key=table_key, table=accuracy_rows(report),
                          description=f"{title}: accuracy with 95% Wilson intervals per benchmark and verifier")
    return [summary_key, table_key]


@flow(name="evaluate", log_prints=False)
def evaluate(
    config_path: str | None = "configs/eval.yaml",
    benchmark: str | None = None,
    artifact: str | None = None,
    fallback: str | None = None,
    json_path: str | None = None,
    db: str | None = None,
    limit: int | None = None,
    workers: int | None = None,
    run_id: str | None = None,
    summary_key: str = "evaluation-summary",
    table_key: str = "evaluation-accuracy",
    title: str = "AutoVerifier evaluation",
) -> dict[str, Any]:
    """Evaluate the verifiers side by side on the benchmarks and publish the figures (under
    ``summary_key`` and ``table_key``: a construction round publishes ``<config>-eval``)."""
    started = time.perf_counter()
    overrides = dict(benchmark=benchmark, artifact=artifact, fallback=fallback, json_path=json_path, db=db,
                     limit=limit, workers=workers)
    cfg = load_config(config_path, overrides)
    run_id = run_id or new_run_id()
    parts = [evaluate_benchmark(cfg, b, run_id) for b in cfg["benchmarks"]]
    decontam = audit_decontamination(cfg)
    report = summarize_run(cfg, run_id, parts, decontam, started)
    publish(report, summary_key, table_key, title)
    return report
