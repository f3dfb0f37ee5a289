"""``autoverifier construct`` and ``autoverifier demo``."""

from __future__ import annotations

import os
from pathlib import Path

import typer
from rich.console import Console
from rich.table import Table

err = Console(stderr=True, width=None if Console(stderr=True).is_terminal else 140)
out = Console(width=None if Console().is_terminal else 140)

DEMO_TRIPLES = [
    ("What is 3/4 written as a decimal?", "0.75", "Dividing, 3/4 = 0.75, so the answer is $\\boxed{\\frac{3}{4}}$."),
    ("Round pi to 2 decimal places.", "3.14", "pi is about 3.14159..., so **3.14**"),
    ("What percentage of 200 is 50?", "25%", "50/200 = 0.25, i.e. the answer is 25"),
    ("How long is the rod? Answer in cm.", "150 cm", "The rod is 1.5 m long. Final answer: 1.5 m"),
    ("Which planet is known as the Red Planet? (A) Venus (B) Mars (C) Jupiter", "B", "The answer is Mars."),
    ("Who wrote 'Pride and Prejudice'?", "Jane Austen", "It was written by Jane Austen in 1813."),
    ("What is 7 * 8?", "56", "7 * 8 = 54. The answer is 54."),
    ("Solve for x: 2x + 6 = 0.", "-3", "Let me think about this problem step by step"),
]


def _round_table(summaries: list[dict]) -> Table:
    t = Table(title="Construction rounds")
    for col in ("round", "round build", "coverage", "direct errors", "direct precision", "accuracy",
                "fallback calls", "accepted", "rejected", "seconds"):
        t.add_column(col, justify="right")
    for s in summaries:
        a = s["after"]
        prec = a.get("direct_precision")
        t.add_row(str(s["round"]), str(s["release"]), f"{100 * a['coverage']:.2f}%", str(a["direct_errors"]),
                  "-" if prec is None else f"{100 * prec:.2f}%", f"{100 * a['accuracy']:.2f}%",
                  str(a["fallback_calls"]), str(s["accepted"]), str(s["rejected"]),
                  f"{sum(s['timings_s'].values()):.1f}")
    return t


def prefect_defaults() -> None:
    """Local runs need no server: Prefect starts a temporary one; give it time on a busy machine."""
    os.environ.setdefault("PREFECT_SERVER_ANALYTICS_ENABLED", "false")
    os.environ.setdefault("PREFECT_SERVER_EPHEMERAL_STARTUP_TIMEOUT_SECONDS", "120")
    os.environ.setdefault("PREFECT_LOGGING_LEVEL", "WARNING")


def run_construct(config: str, rounds: int | None, api_url: str | None) -> list[dict]:
    if api_url:
        os.environ["PREFECT_API_URL"] = api_url
    prefect_defaults()
    from flows.construct import construct

    return construct(config=config, rounds=rounds)


def register(app: typer.Typer) -> None:
    @app.command("construct")
    def construct_cmd(
        config: Path = typer.Option(Path("configs/demo.yaml"), "--config", "-c", help="Construction config YAML."),
        rounds: int | None = typer.Option(None, "--rounds", "-n", min=1, help="Rounds to run (default: config)."),
        api_url: str | None = typer.Option(None, "--api-url", help="A Prefect server to run against."),
    ) -> None:
        """Run construction rounds (Prefect flows): each proposes preview modules in the rule bank's source."""
        if not config.is_file():
            err.print(f"[red]config not found: {config}[/red]")
            raise typer.Exit(2)
        summaries = run_construct(str(config), rounds, api_url)
        err.print(_round_table(summaries))
        for s in summaries:
            err.print(f"round {s['round']}: data={s['data']} pool={s['pool']} residuals={s['residuals']} "
                      f"clusters={s['clusters']} timings={s['timings_s']}")

    @app.command("demo")
    def demo_cmd(
        config: Path = typer.Option(Path("configs/demo.yaml"), "--config", "-c"),
        rounds: int | None = typer.Option(None, "--rounds", "-n", min=1),
    ) -> None:
        """A demo construction on the embedded defaults, then a few verifications with its last round build."""
        from tasks.construct.config import ConstructConfig
        from tasks.construct.round import round_builds
        from tasks.rulebank.source import RuleBank
        from verifier_runtime import load_verifier

        cfg = ConstructConfig.from_yaml(config)
        summaries = run_construct(str(config), rounds, None)
        err.print(_round_table(summaries))
        data = summaries[-1]["data"] if summaries else "unknown"
        err.print(f"Construction data used: {data} "
                  f"({'real construction data from the shared folder' if data == 'sources' else 'the built-in constructed examples (shared folder not found)'}).")
        bank = RuleBank(cfg.path(cfg.rulebank))
        builds = round_builds(bank)
        if not builds:
            err.print("[red]no round build was written[/red]")
            raise typer.Exit(1)
        v = load_verifier(builds[-1], fallback="offline")
        t = Table(title=f"Verifying with round build {v.artifact_version} ({len(v.modules)} modules, preview: not a release)")
        for col in ("question", "reference", "response", "correct", "decided by", "reason"):
            t.add_column(col, overflow="fold")
        for q, r, s in DEMO_TRIPLES:
            vd = v.verify(q, r, s)
            t.add_row(q[:50], r, s[:60], str(vd.correct), vd.decided_by, vd.reason)
        out.print(t)
        out.print(f"Proposed modules (preview) are in {bank.modules_dir}. Review them with "
                  f"`autoverifier rules list --rulebank {bank.root}` and `rules show ID`; a reviewed "
                  f"`rules activate ID --why ...` then `rules build` makes a release.")
