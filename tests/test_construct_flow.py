"""One end-to-end construction round under the Prefect test harness, on a small pool.

The pool holds open-QA answers whose references list aliases ("A/B") and whose responses name
the alias in a middle sentence: the offline judge reads a paragraph's answer from its first or
last sentence, so it misses them (residuals); a narrow alias rule for short answers fixes
them, and a broader variant would pass two long trap answers that mention an alias as a belief
others held while naming someone else, so full replay rejects it.
"""

from __future__ import annotations

import asyncio
import json
from pathlib import Path

import pytest
import yaml

from tasks.construct.round import round_builds
from tasks.rulebank import lifecycle
from tasks.rulebank.build import build, check_modules, failures
from tasks.rulebank.source import RuleBank, RuleBankError
from tests.helpers import PEOPLE, alias_pool, small_construct_config
from verifier_runtime import load_verifier
from verifier_runtime.artifact import load_artifact, newest_release


def test_round_accepts_and_rejects_with_reasons(prefect_harness, tmp_path: Path) -> None:
    from prefect.client.orchestration import get_client

    from flows.construct import construction_round

    cfg = small_construct_config(tmp_path)
    summary = construction_round(config=str(cfg))
    assert summary["round"] == 1 and summary["pool"] == 36
    assert summary["accepted"] >= 1, summary
    assert summary["after"]["accuracy"] > summary["before"]["accuracy"]
    assert summary["after"]["direct_errors"] == 0

    rb = tmp_path / "rulebank"
    assert newest_release(rb) is None  # construction writes no release: it proposes
    builds = round_builds(RuleBank(rb))
    assert [b.name for b in builds] == [summary["release"]] == ["r0001"]
    release = builds[-1]
    art = load_artifact(release)
    cards = [json.loads(t) for p, t in art.files.items() if p.startswith("cards/")]
    alias_cards = [c for c in cards if c["template"] == "alias_match"]
    assert alias_cards, [c["template"] for c in cards]
    assert alias_cards[0]["evidence"]["full_replay"]["new_direct_errors"] == 0
    assert alias_cards[0]["audit"]["passed"] is True

    # the proposals sit in the source as preview modules, with their cases; they pass them
    bank = RuleBank(rb)
    proposed = bank.modules()
    assert proposed and {m.status for m in proposed} == {"preview"}
    alias = next(m for m in proposed if m.card["template"] == "alias_match")
    assert alias.cases and not failures(check_modules([alias]))
    assert "counterexamples" not in json.dumps(alias.card["learned"])  # evidence as figures, not positions
    # only a reviewed activation makes a release, built from the source
    with pytest.raises(RuleBankError, match="no active module"):
        build(bank)
    bank.save(alias.with_card(lifecycle.activate(alias.card, "reviewed in the test")))
    built = build(bank)
    assert [e.id for e in load_artifact(built.path).modules] == [alias.id]

    rejected = [m.card for m in bank.rejected()]
    replay_rejects = [c for c in rejected if c["stage"] == "full_replay"]
    assert replay_rejects, [(c["stage"], c["why"]) for c in rejected]
    assert "new direct errors" in replay_rejects[0]["why"]
    assert all(c["status"] == "rejected" for c in rejected)

    v = load_verifier(release, fallback="offline")
    ok = v.verify(PEOPLE[0][0], PEOPLE[0][1], "It was M. Ellison.")
    assert ok.correct is True and ok.decided_by.endswith("alias_match")
    trap = v.verify(PEOPLE[0][0], PEOPLE[0][1], alias_pool()[-12]["response"])
    assert trap.correct is False

    async def artifacts_and_runs():
        async with get_client() as client:
            return await client.read_artifacts(), await client.read_flow_runs()

    artifacts, runs = asyncio.run(artifacts_and_runs())
    by_key = {a.key: a for a in artifacts}
    assert {"e2e-round", "e2e-cards", "e2e-trace"} <= set(by_key)
    # the round's run: named after its config and number, tagged, its parameters filled in
    run = next(r for r in runs if r.name == "e2e-round-001")
    assert {"config:e2e", "base:r0000", "drafter:offline"} <= set(run.tags)
    assert run.parameters["round_no"] == 1 and run.parameters["base_release"] == "r0000"
    md = by_key["e2e-round"].data
    assert md.startswith("# e2e-round-001: froze round build r0001") and "/artifacts/key/e2e-cards" in md
    trace = json.loads(by_key["e2e-trace"].data) if isinstance(by_key["e2e-trace"].data, str) else by_key["e2e-trace"].data
    assert trace[0]["round"] == "001" and trace[0]["froze"] == "r0001" and trace[0]["coverage"].endswith("%")
    assert all(len(v.split(".")[-1]) == 3 for v in [trace[0]["coverage"]])  # two decimals and the % sign
    cards = json.loads(by_key["e2e-cards"].data) if isinstance(by_key["e2e-cards"].data, str) else by_key["e2e-cards"].data
    reasons = {c["card"]: c["reason"] for c in cards}
    from tasks.data.store import Store

    with Store(tmp_path / "e2e.duckdb") as st:
        longest = max((c["reason"] for c in st.cards(round=1)), key=len)
    assert " ".join(longest.split()) in reasons.values()


def test_dask_task_runner_gives_the_same_round(prefect_harness, tmp_path: Path) -> None:
    """Replay mapped on a local Dask cluster (worker processes) matches the thread runner."""
    from flows.construct import construct

    figures = {}
    for runner in ("threads", "dask"):
        d = tmp_path / runner
        d.mkdir()
        cfg = small_construct_config(d)
        data = yaml.safe_load(cfg.read_text())
        data.update({"task_runner": runner, "max_workers": 2})
        cfg.write_text(yaml.safe_dump(data))
        (summary,) = construct(config=str(cfg), rounds=1)
        figures[runner] = (summary["before"], summary["after"], summary["accepted"], summary["rejected"])
    assert figures["dask"] == figures["threads"]


def test_each_new_round_build_is_evaluated_next_to_the_round(prefect_harness, shared_dir, tmp_path: Path) -> None:
    """construct(evaluate_config=...) runs the evaluate flow on the round's build and publishes
    its table under the config's keys; a round that froze nothing is not evaluated."""
    from prefect.client.orchestration import get_client

    from flows.construct import construct

    cfg = small_construct_config(tmp_path)
    eval_cfg = tmp_path / "eval.yaml"
    eval_cfg.write_text(yaml.safe_dump({"benchmarks": ["verifybench"], "verifiers": ["autoverifier", "fallback_only"],
                                        "limit": 5, "db": str(tmp_path / "eval.duckdb"), "decontamination": False,
                                        "shared": str(shared_dir)}))
    summaries = construct(config=str(cfg), rounds=3, evaluate_config=str(eval_cfg))
    # round 2 accepts nothing: it freezes nothing and ends the run (round 3 would repeat it)
    assert [(s["round"], s["build"]) for s in summaries] == [(1, "r0001"), (2, None)]

    async def read():
        async with get_client() as client:
            return await client.read_artifacts(), await client.read_flow_runs()

    artifacts, runs = asyncio.run(read())
    evals = [a for a in artifacts if a.key == "e2e-eval"]
    assert len(evals) == 1 and "Release **r0001**" in evals[0].data and summaries[0]["build_path"] in evals[0].data
    assert any(a.key == "e2e-eval-accuracy" for a in artifacts)
    assert any(r.name == "e2e-round-001-eval" for r in runs)
