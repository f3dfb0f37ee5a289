"""One end-to-end construction round under the Prefect test harness, on a small pool.

The pool holds open-QA answers whose references list aliases ("A/B"): the offline fallback
misses them (residuals), a narrow alias rule fixes them, and a broader variant would pass
two trap answers that mention an alias while naming someone else, so full replay rejects it.
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
from verifier_runtime import load_verifier
from verifier_runtime.artifact import load_artifact, newest_release

PEOPLE = [
    ("Who wrote the novel Kestrel Bay?", "Mara Ellison/M. Ellison"),
    ("Who painted The Quiet Harbour?", "Tomas Vell/T. Vell"),
    ("Who founded the Arden Trust?", "Lucia Ferro/Lady Ferro"),
    ("Who composed the Lantern Suite?", "Oskar Brandt/O. Brandt"),
    ("Who discovered the Pell comet?", "Ines Pell/I. Pell"),
    ("Who designed the Corvid bridge?", "Henrik Sallo/H. Sallo"),
    ("Who directed the film Salt Road?", "Amara Quist/A. Quist"),
    ("Who coached the Harbor Lions in 1990?", "Dev Mallory/Coach Mallory"),
    ("Who invented the Tarn valve?", "Ruth Tarn/R. Tarn"),
    ("Who led the Ostrava expedition?", "Pavel Kros/P. Kros"),
    ("Who translated the Vesna poems?", "Clara Moen/C. Moen"),
    ("Who built the Ember observatory?", "Jonah Vale/J. Vale"),
]


def _pool() -> list[dict]:
    rows = []
    for k, (q, ref) in enumerate(PEOPLE):
        alias = ref.split("/")[k % 2]
        rows.append({"id": f"pos{k}", "question": q, "reference": ref, "response": f"It was {alias}.",
                     "label": True, "source": "fixture", "domain": "open_qa"})
        rows.append({"id": f"neg{k}", "question": q, "reference": ref, "response": "It was Someone Else.",
                     "label": False, "source": "fixture", "domain": "open_qa"})
    for k in range(2):  # traps: an alias is mentioned, but the answer names someone else
        q, ref = PEOPLE[k]
        alias = ref.split("/")[0]
        rows.append({"id": f"trap{k}", "question": q, "reference": ref, "label": False, "source": "fixture",
                     "domain": "open_qa",
                     "response": f"Many people think it was {alias}, but the records of that year clearly show "
                                 "that it was in fact her younger cousin Petra who did it."})
    for k in range(10):  # plain numbers the fallback already gets right (a coverage group)
        rows.append({"id": f"num{k}", "question": f"What is {k} + {k}?", "reference": str(2 * k),
                     "response": f"The answer is {2 * k if k % 3 else 2 * k + 1}.", "label": bool(k % 3),
                     "source": "fixture", "domain": "math"})
    return rows


def _config(tmp_path: Path) -> Path:
    pool_file = tmp_path / "pool.jsonl"
    pool_file.write_text("".join(json.dumps(r) + "\n" for r in _pool()))
    pool_cfg = tmp_path / "pool.yaml"
    pool_cfg.write_text(yaml.safe_dump({"pool": {
        "target_size": 1000, "seed": 1, "split": {"construction": 1.0}, "diagnostics": 0,
        "sources": [{"name": "fixture", "path": str(pool_file), "format": "autoverifier"}],
        "eval_sets": [], "decontamination": {"policy": "report"}}}))
    cfg = tmp_path / "construct.yaml"
    cfg.write_text(yaml.safe_dump({
        "name": "e2e", "db": str(tmp_path / "e2e.duckdb"), "rulebank": str(tmp_path / "rulebank"),
        "start_from": "empty", "fallback": "offline", "rounds": 1, "pool": str(pool_cfg), "chunk_size": 10,
        "construction": {"max_clusters": 4, "coverage_groups": 2, "candidates_per_cluster": 3, "min_support": 3,
                         "max_counterexample_errors": 50, "max_new_direct_errors": 0, "min_cluster_size": 5,
                         "counterexamples_k": 10, "audit": True, "cases_per_module": 3,
                         "search_sentinels": 0},  # no pre-screening: the broad variant must reach full replay
    }))
    return cfg


def test_round_accepts_and_rejects_with_reasons(prefect_harness, tmp_path: Path) -> None:
    from prefect.client.orchestration import get_client

    from flows.construct import construction_round

    cfg = _config(tmp_path)
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
    trap = v.verify(PEOPLE[0][0], PEOPLE[0][1], _pool()[-12]["response"])
    assert trap.correct is False

    async def artifacts():
        async with get_client() as client:
            return await client.read_artifacts()

    keys = {a.key for a in asyncio.run(artifacts())}
    assert {"construction-round", "construction-cards", "construction-trace"} <= keys


def test_dask_task_runner_gives_the_same_round(prefect_harness, tmp_path: Path) -> None:
    """Replay mapped on a local Dask cluster (worker processes) matches the thread runner."""
    from flows.construct import construct

    figures = {}
    for runner in ("threads", "dask"):
        d = tmp_path / runner
        d.mkdir()
        cfg = _config(d)
        data = yaml.safe_load(cfg.read_text())
        data.update({"task_runner": runner, "max_workers": 2})
        cfg.write_text(yaml.safe_dump(data))
        (summary,) = construct(config=str(cfg), rounds=1)
        figures[runner] = (summary["before"], summary["after"], summary["accepted"], summary["rejected"])
    assert figures["dask"] == figures["threads"]
