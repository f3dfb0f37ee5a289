"""``autoverifier eval`` and ``autoverifier report``: evaluation figures and the HTML report."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import typer


def _print_summary(report: dict[str, Any]) -> None:
    """A rich table: accuracy [Wilson CI], direct coverage and fallback calls per benchmark and verifier."""
    from rich.console import Console

    from autoverifier._tables import print_rows

    console = Console()
    benches = report.get("benchmarks", {})
    verifiers: list[str] = []
    for per in benches.values():
        verifiers.extend(v for v in per if v not in verifiers)
    rows = []
    for b, per in sorted(benches.items()):
        n = next(iter(per.values()))["n"] if per else 0
        cells = []
        for v in verifiers:
            f = per.get(v)
            if not f:
                cells.append("–")
                continue
            lo, hi = f["accuracy_ci"]
            cells.append(f"{100 * f['accuracy']:.2f}% [{100 * lo:.1f}–{100 * hi:.1f}] · "
                         f"{100 * f['direct_coverage']:.0f}% direct · {f['fallback_calls']:,} fallback")
        rows.append([b, f"{n:,}", *cells])
    for key in ("macro", "micro"):
        vals = report.get(key) or {}
        if vals:
            rows.append([key, "", *[f"{100 * vals[v]:.2f}%" if v in vals else "–" for v in verifiers]])
    art = report.get("artifact") or {}
    print_rows(f"Release {art.get('version', '?')}: accuracy [95% Wilson interval] · direct coverage · fallback calls",
               ["benchmark", "n", *verifiers], rows, stderr=False, no_wrap=False, right=["n", *verifiers])
    corr = (report.get("corrections") or {}).get("all")
    if corr:
        avoided = corr.get("fallback_calls_avoided")
        console.print(
            f"vs fallback_only (all): corrected {corr['corrected']}, new errors {corr['new_errors']}, "
            f"fallback calls {corr['fallback_calls']} vs {corr['fallback_only_calls']}"
            + (f" ({100 * avoided:.1f}% avoided)" if avoided is not None else "")
        )
    for name, p in ((report.get("paired") or {}).get("all") or {}).items():
        console.print(f"{name}: {100 * p['mean_diff']:+.2f} pts [{100 * p['ci_low']:+.2f}, {100 * p['ci_high']:+.2f}]"
                      f", p={p['p_normal']:.3g} (normal), McNemar p={p['p_mcnemar']:.3g}")
    dec = report.get("decontamination") or {}
    console.print(f"decontamination: {dec.get('status')}" + (f" ({dec['reason']})" if dec.get("reason") else ""))
    for n in report.get("notes") or []:
        console.print(f"[yellow]note:[/yellow] {n}")
    run = report.get("run") or {}
    console.print(f"run {run.get('run_id')} · {run.get('elapsed_s')} s · stored rows: {run.get('rows_stored', 0)}")


def register(app: typer.Typer) -> None:
    """Add the ``eval`` and ``report`` commands."""

    @app.command("eval")
    def eval_cmd(
        config: Path = typer.Option(Path("configs/eval.yaml"), "--config", "-c", help="Eval YAML config."),
        benchmark: str | None = typer.Option(None, "--benchmark", "-b", help="Evaluate this benchmark only."),
        artifact: str | None = typer.Option(None, "--artifact", help="Release dir or .tar.gz (default: newest)."),
        fallback: str | None = typer.Option(None, "--fallback", help="offline | none | openai | anthropic"),
        json_path: Path | None = typer.Option(None, "--json", help="Write the evaluation JSON here."),
        db: Path | None = typer.Option(None, "--db", help="DuckDB store for per-example results."),
        limit: int | None = typer.Option(None, "--limit", min=1, help="First N examples per benchmark."),
        workers: int | None = typer.Option(None, "--workers", min=1, help="Threads for the module pass."),
        flow: bool = typer.Option(False, "--flow", help="Run as the Prefect `evaluate` flow (publishes artifacts)."),
    ) -> None:
        """Run the verifiers side by side on the benchmarks and print the figures."""
        from tasks.evaluate.runner import EvalError, evaluate, load_eval_config

        if fallback is not None and fallback not in ("offline", "none", "openai", "anthropic"):
            raise typer.BadParameter("--fallback must be offline, none, openai or anthropic")
        overrides = dict(benchmark=benchmark, artifact=artifact, fallback=fallback,
                         json_path=str(json_path) if json_path else None, db=str(db) if db else None,
                         limit=limit, workers=workers)
        try:
            if flow:
                import os

                # a cold ephemeral Prefect server can need more than Prefect's default 20 s on a small machine
                os.environ.setdefault("PREFECT_SERVER_EPHEMERAL_STARTUP_TIMEOUT_SECONDS", "120")
                from flows.evaluate import evaluate as evaluate_flow

                report = evaluate_flow(config_path=str(config), **overrides)
            else:
                cfg = load_eval_config(config, **overrides)
                report = evaluate(cfg).report
        except EvalError as e:
            typer.secho(f"error: {e}", fg=typer.colors.RED, err=True)
            raise typer.Exit(2) from e
        _print_summary(report)
        if json_path:
            typer.echo(f"wrote {json_path}")

    @app.command("report")
    def report_cmd(
        db: Path | None = typer.Option(None, "--db", help="DuckDB store (eval results and construction rounds)."),
        eval_json: Path | None = typer.Option(None, "--eval-json", help="Evaluation JSON from `autoverifier eval`."),
        rounds_db: Path | None = typer.Option(None, "--rounds-db", help="Take the construction rounds from this "
                                              "store (e.g. data/demo/autoverifier.duckdb) instead of --db."),
        config: str | None = typer.Option(None, "--config", help="Only this construction config's rounds."),
        out: Path = typer.Option(Path("reports/report.html"), "--out", "-o", help="HTML file to write."),
    ) -> None:
        """Write a self-contained HTML report (inline CSS and SVG); each section names its data."""
        from tasks.evaluate.report import build_report, render_report, write_report
        from tasks.evaluate.runner import EvalError

        if db is None and eval_json is None:
            default_db = Path("data/autoverifier.duckdb")
            if not default_db.is_file():
                raise typer.BadParameter("give --eval-json or --db (data/autoverifier.duckdb does not exist)")
            db = default_db
        try:
            if rounds_db is not None and not rounds_db.is_file():
                raise EvalError(f"--rounds-db {rounds_db} does not exist")
            data, rounds = build_report(eval_json=eval_json, db=db, rounds_db=rounds_db, config=config)
        except EvalError as e:
            typer.secho(f"error: {e}", fg=typer.colors.RED, err=True)
            raise typer.Exit(2) from e
        path = write_report(render_report(data, rounds), out)
        configs = sorted({r.get("config") or "?" for r in rounds})
        typer.echo(f"wrote {path} (release {(data.get('artifact') or {}).get('version', '?')}; "
                   + (f"{len(rounds)} construction round(s) of {', '.join(configs)}" if rounds else
                      "no construction rounds" + (f": {data['sources']['rounds_hint']}"
                                                  if data.get("sources", {}).get("rounds_hint") else ""))
                   + ")")
