"""``autoverifier construct`` and ``autoverifier demo``."""

from __future__ import annotations

import os
from pathlib import Path

import typer
from rich.console import Console

err = Console(stderr=True)
out = Console()

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


ROUND_COLUMNS = ("round", "base", "froze", "coverage", "direct errors", "direct precision", "accuracy",
                 "fallback calls", "validation coverage", "validation direct precision", "accepted", "rejected",
                 "seconds")


def _pct(x: float | None) -> str:
    return "-" if x is None else f"{100 * x:.2f}%"


def round_rows(summaries: list[dict]) -> list[list[str]]:
    """One row per round, numbers formatted (percentages with two decimals, counts with separators)."""
    rows = []
    for s in summaries:
        a = s["after"]
        v = (s.get("validation_split") or {}).get("after") or {}  # the pool's validation split
        prec = a.get("direct_precision")
        secs = sum(v for k, v in s["timings_s"].items() if k != "replay_started")
        rows.append([s.get("name") or str(s["round"]), str(s["base_release"]), str(s.get("build") or "nothing"),
                     f"{100 * a['coverage']:.2f}%", f"{a['direct_errors']:,}",
                     "-" if prec is None else f"{100 * prec:.2f}%", f"{100 * a['accuracy']:.2f}%",
                     f"{a['fallback_calls']:,}", _pct(v.get("coverage")), _pct(v.get("direct_precision")),
                     f"{s['accepted']:,}", f"{s['rejected']:,}", f"{secs:,.1f}"])
    return rows


def print_rows(title: str, columns: tuple[str, ...] | list[str], rows: list[list[str]], *, stderr: bool = True,
               no_wrap: bool = True) -> None:
    """The shared table printer (TSV when the stream is not a terminal), numbers right-aligned."""
    from autoverifier._tables import print_rows as _print

    _print(title, columns, rows, stderr=stderr, no_wrap=no_wrap, right=ROUND_COLUMNS[3:])


def prefect_defaults(quiet: bool = False) -> None:
    """Local runs need no server: Prefect starts a temporary one; give it time on a busy machine.
    Every step logs at INFO (the flow run's page and the console); ``quiet`` keeps warnings only."""
    os.environ.setdefault("PREFECT_SERVER_ANALYTICS_ENABLED", "false")
    os.environ.setdefault("PREFECT_SERVER_EPHEMERAL_STARTUP_TIMEOUT_SECONDS", "120")
    os.environ["PREFECT_LOGGING_LEVEL"] = "WARNING" if quiet else os.environ.get("PREFECT_LOGGING_LEVEL", "INFO")


def run_construct(config: str, rounds: int | None, api_url: str | None, *, until: int | None = None,
                  fresh: bool = False, quiet: bool = False, evaluate_config: str | None = None,
                  evaluate_limit: int | None = None) -> list[dict]:
    if api_url:
        os.environ["PREFECT_API_URL"] = api_url
    prefect_defaults(quiet)
    from flows.construct import construct

    return construct(config=config, rounds=rounds, until=until, fresh=fresh, evaluate_config=evaluate_config,
                     evaluate_limit=evaluate_limit)


def register(app: typer.Typer) -> None:
    @app.command("construct")
    def construct_cmd(
        config: Path = typer.Option(Path("configs/demo.yaml"), "--config", "-c", help="Construction config YAML."),
        rounds: int | None = typer.Option(None, "--rounds", "-n", min=1,
                                          help="Run N more rounds after the last finished one (default: the "
                                               "config's rounds)."),
        until: int | None = typer.Option(None, "--until", min=1,
                                         help="Run rounds up to and including round ROUND (none if it is done)."),
        fresh: bool = typer.Option(False, "--fresh", help="Start over from the config's start_from (earlier "
                                                          "preview proposals are archived; round numbers go on)."),
        evaluate: Path | None = typer.Option(None, "--evaluate", help="Evaluate each new round build with this "
                                                                      "eval config (the evaluate flow)."),
        evaluate_limit: int | None = typer.Option(None, "--evaluate-limit", min=1,
                                                  help="First N examples per benchmark in those evaluations."),
        quiet: bool = typer.Option(False, "--quiet", "-q", help="Warnings only (no per-step log lines)."),
        api_url: str | None = typer.Option(None, "--api-url", help="A Prefect server to run against."),
    ) -> None:
        """Run construction rounds (Prefect flows): each proposes preview modules in the rule bank's source.

        A config's rounds continue from where its last round left off, numbered after it; a
        round stopped half-way (even killed) is rolled back or completed by the next one.
        """
        if not config.is_file():
            err.print(f"[red]config not found: {config}[/red]")
            raise typer.Exit(2)
        if rounds is not None and until is not None:
            raise typer.BadParameter("give --rounds or --until, not both")
        from tasks.construct.journal import RoundBusyError

        try:
            summaries = run_construct(str(config), rounds, api_url, until=until, fresh=fresh, quiet=quiet,
                                      evaluate_config=str(evaluate) if evaluate else None,
                                      evaluate_limit=evaluate_limit)
        except RoundBusyError as exc:
            err.print(f"[red]error:[/red] {exc}")
            raise typer.Exit(1) from None
        if not summaries:
            err.print("no round to run")
            return
        print_rows("Construction rounds", ROUND_COLUMNS, round_rows(summaries))
        for s in summaries:
            if s.get("nothing_accepted"):
                err.print(f"{s['name']}: nothing accepted, nothing frozen: {s['nothing_accepted']}")
        last = summaries[-1]
        err.print(f"data={last['data']} pool={last['pool']:,}; store {last['db']}; rule bank {last['rulebank']}")

    @app.command("demo")
    def demo_cmd(
        config: Path = typer.Option(Path("configs/demo.yaml"), "--config", "-c"),
        rounds: int | None = typer.Option(None, "--rounds", "-n", min=1),
    ) -> None:
        """A demo construction on the embedded defaults, then a few verifications with its last round build."""
        from tasks.construct.config import ConstructConfig
        from tasks.construct.round import plan_round
        from tasks.rulebank.source import RuleBank
        from verifier_runtime import load_verifier

        cfg = ConstructConfig.from_yaml(config)
        summaries = run_construct(str(config), rounds, None)
        if summaries:
            print_rows("Construction rounds", ROUND_COLUMNS, round_rows(summaries))
        data = summaries[-1]["data"] if summaries else "unknown"
        err.print(f"Construction data used: {data} "
                  f"({'real construction data from the shared folder' if data == 'sources' else 'the built-in constructed examples (shared folder not found)'}).")
        bank = RuleBank(cfg.path(cfg.rulebank))
        state = plan_round(cfg).base  # where the next round would start: the newest state of the run
        if state == "empty":
            err.print("[red]no round build yet: no round has accepted a module[/red]")
            raise typer.Exit(1)
        v = load_verifier(Path(state) if Path(state).is_absolute() else bank.root / state, fallback="offline")
        rows = []
        for q, r, s in DEMO_TRIPLES:
            vd = v.verify(q, r, s)
            rows.append([q, r, s, str(vd.correct), vd.decided_by, vd.reason or ""])
        print_rows(f"Verifying with round build {v.artifact_version} ({len(v.modules)} modules, preview: not a "
                   "release)", ("question", "reference", "response", "correct", "decided by", "reason"), rows,
                   stderr=False, no_wrap=False)
        out.print(f"Proposed modules (preview) are in {bank.modules_dir}. Review them with "
                  f"`autoverifier rules list --rulebank {bank.root}` and `rules show ID`; a reviewed "
                  f"`rules activate ID --why ...` then `rules build` makes a release.")
