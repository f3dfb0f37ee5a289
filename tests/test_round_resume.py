"""Rounds that resume: numbering, transactions, and a SIGKILL at every step of a round.

Each kill runs a real round in a child process that kills itself (SIGKILL: no cleanup, no
``finally``) at one point: the child wraps the real function at that point, so the code under
test is unchanged. The next round of the same rule bank must then leave exactly what a round
that was never killed leaves: one record per round, the round's rows once (replays, residuals,
clusters, cards, validations), the same proposals under the same ids, loadable round builds,
no journal and no temporary files.
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest
import yaml

from tasks.construct import round as steps
from tasks.construct.config import ConstructConfig
from tasks.construct.journal import RoundBusyError, RoundLedger, RoundLock
from tasks.data.store import ROUND_TABLES, Store
from tasks.rulebank.source import RuleBank
from tests.helpers import small_construct_config
from verifier_runtime.artifact import load_artifact

REPO = Path(__file__).resolve().parent.parent

# The child: wrap one real function so the process SIGKILLs itself right before or after its
# n-th call, then run one round exactly as `run_round` does.
CHILD = textwrap.dedent("""
    import os, signal, sys
    config, target, when, n, match = sys.argv[1], sys.argv[2], sys.argv[3], int(sys.argv[4]), sys.argv[5]
    import importlib
    modname, _, attr = target.rpartition(":")
    owner_path, _, name = attr.rpartition(".")
    owner = importlib.import_module(modname)
    for part in filter(None, owner_path.split(".")):
        owner = getattr(owner, part)
    original = getattr(owner, name)
    calls = [0]
    def wrapped(*a, **k):
        if match and not any(match in str(x) for x in a):  # only the calls that touch this path
            return original(*a, **k)
        calls[0] += 1
        if when == "before" and calls[0] >= n:
            os.kill(os.getpid(), signal.SIGKILL)
        out = original(*a, **k)
        if when == "after" and calls[0] >= n:
            os.kill(os.getpid(), signal.SIGKILL)
        return out
    setattr(owner, name, wrapped)
    from tasks.construct.round import run_round
    run_round(config)
    print("round finished without being killed", file=sys.stderr)
""")

# (point, function wrapped, before/after, which call, only calls whose arguments contain this)
KILL_POINTS = [
    ("prepare", "tasks.construct.round:load_pool_examples", "after", 1, ""),
    ("replay", "tasks.construct.round:replay_rows", "before", 2, ""),
    ("validate", "tasks.construct.round:validate_draft", "before", 2, ""),
    ("freeze: store written", "tasks.data.store:Store.replace_round", "after", 1, ""),
    ("freeze: half the source", "tasks.rulebank.source:RuleBank.save_rejected", "after", 3, ""),
    ("freeze: build half written", "verifier_runtime.artifact:os.replace", "before", 1, "/rounds/.r0"),
    ("freeze: build in place", "tasks.construct.round:write_release", "after", 1, ""),
    ("freeze: ledger written", "tasks.construct.journal:RoundLedger.append", "after", 1, ""),
    ("publish", "tasks.construct.round:record_round", "before", 1, ""),
]


def _config(d: Path) -> Path:
    # the sandbox audit (a subprocess per module) is tested elsewhere; here it would only add time
    cfg = small_construct_config(d)
    data = yaml.safe_load(cfg.read_text())
    data["construction"]["audit"] = False
    cfg.write_text(yaml.safe_dump(data))
    return cfg


def _snapshot(cfg_path: Path) -> dict:
    """What a finished round leaves: store rows per round, rounds, proposals, builds, ledger, leftovers."""
    cfg = ConstructConfig.from_yaml(cfg_path)
    root = cfg.path(cfg.rulebank)
    bank = RuleBank(root)
    with Store(cfg.path(cfg.db)) as st:
        counts = {n: st.round_counts(cfg.name, n) for n in (1, 2)}
        rounds = [(r["round"], r["status"], r["artifact_version"]) for r in st.rounds(status=None)]
        cards = {r["card_id"] for r in st.cards(round=1)}
    builds = steps.round_builds(bank)
    return {
        "counts": counts, "rounds": rounds, "round1_cards": cards,
        "modules": sorted((m.id, m.status, json.dumps(m.card.get("parameters"), sort_keys=True))
                          for m in bank.modules()),
        "rejected_round1": sorted(r.id for r in bank.rejected() if int(r.card.get("round") or 0) == 1),
        "builds": [(b.name, load_artifact(b).manifest["module_order"]) for b in builds],
        "ledger": [(e["round"], e["build"]) for e in RoundLedger(root).entries()],
        "leftovers": sorted(p.name for p in (root / "rounds").iterdir() if p.name.startswith(".")
                            and p.name != ".lock") + sorted(str(p.relative_to(root)) for p in root.rglob(".*.*")
                                                            if p.is_file() and "rounds" not in p.parts),
    }


@pytest.fixture(scope="module")
def reference(tmp_path_factory) -> dict:
    """Two rounds never killed: round 1 accepts, round 2 accepts nothing."""
    d = tmp_path_factory.mktemp("reference")
    cfg = _config(d)
    first = steps.run_round(str(cfg))
    second = steps.run_round(str(cfg))
    assert first["build"] == "r0001" and first["accepted"] >= 1
    assert second["round"] == 2 and second["build"] is None and second["nothing_accepted"]
    return _snapshot(cfg)


@pytest.mark.parametrize("point,target,when,n,match", KILL_POINTS, ids=[k[0] for k in KILL_POINTS])
def test_a_killed_round_is_recovered_by_the_next(point, target, when, n, match, reference, tmp_path) -> None:
    cfg = _config(tmp_path)
    env = {**os.environ, "PYTHONPATH": str(REPO), "PYTHONDONTWRITEBYTECODE": "1"}
    child = subprocess.run([sys.executable, "-c", CHILD, str(cfg), target, when, str(n), match], cwd=REPO, env=env,
                           capture_output=True, text=True, timeout=240)
    assert child.returncode == -signal.SIGKILL, (point, child.returncode, child.stderr[-3000:])
    # the next runs: they finish or undo the killed round, then go on until two rounds are done
    summaries = []
    while len(RoundLedger(tmp_path / "rulebank").entries()) < 2:
        summaries.append(steps.run_round(str(cfg)))
        assert len(summaries) <= 2, summaries
    got = _snapshot(cfg)
    assert got["rounds"] == reference["rounds"] == [(1, "complete", "r0001"), (2, "complete", "r0001")]
    assert got["counts"] == reference["counts"], point  # every row once: none lost, none doubled
    assert got["round1_cards"] == reference["round1_cards"]
    assert got["modules"] == reference["modules"], point  # the same proposals, under the same ids
    assert got["rejected_round1"] == reference["rejected_round1"]
    assert got["builds"] == reference["builds"]  # no duplicate build, every build loads
    assert got["ledger"] == reference["ledger"] == [(1, "r0001"), (2, None)]
    assert got["leftovers"] == [], got["leftovers"]  # no journal, no temporary files
    if point == "publish":
        assert summaries[0]["round"] == 2 and not summaries[0]["recovered"]  # round 1 was whole already
    elif point in ("freeze: build in place", "freeze: ledger written"):
        assert summaries[0]["round"] == 2 and "completed" in summaries[0]["recovered"][0]  # rolled forward
    elif point in ("prepare", "replay", "validate"):
        assert summaries[0]["round"] == 1  # nothing had been frozen: round 1 runs again
    else:
        assert summaries[0]["round"] == 1 and "rolled back" in " ".join(summaries[0]["recovered"])


def test_numbering_plan_and_round_limits(tmp_path) -> None:
    cfg_path = small_construct_config(tmp_path)
    cfg = ConstructConfig.from_yaml(cfg_path)
    plan = steps.plan_round(cfg)
    assert (plan.round_no, plan.base, plan.base_version, plan.action) == (1, "empty", "r0000", None)
    from flows.construct import rounds_to_run

    assert rounds_to_run(cfg, None, None, 1) == cfg.rounds
    assert rounds_to_run(cfg, 3, None, 5) == 3  # --rounds N: N more
    assert rounds_to_run(cfg, None, 6, 5) == 2  # --until 6 from round 5: rounds 5 and 6
    assert rounds_to_run(cfg, None, 4, 5) == 0  # already done
    with pytest.raises(ValueError):
        rounds_to_run(cfg, 1, 2, 1)
    with pytest.raises(ValueError, match="next round is 1"):
        steps.prepare_round(str(cfg_path), round_no=3)
    steps.run_round(str(cfg_path))
    plan = steps.plan_round(cfg)
    assert (plan.round_no, plan.base, plan.base_version) == (2, "rounds/r0001", "r0001")
    fresh = steps.plan_round(cfg, fresh=True)
    assert (fresh.round_no, fresh.base, fresh.base_version) == (2, "empty", "r0000")  # numbers go on
    assert steps.next_build_name(RuleBank(tmp_path / "rulebank"), "r0000") == "r0002"  # names are never reused


def test_one_round_at_a_time_per_rule_bank(tmp_path) -> None:
    cfg_path = small_construct_config(tmp_path)
    lock = RoundLock(tmp_path / "rulebank").acquire()
    try:
        with pytest.raises(RoundBusyError, match="one round at a time"):
            steps.prepare_round(str(cfg_path))
    finally:
        lock.release()


def test_fresh_archives_previews_and_goes_on_numbering(tmp_path) -> None:
    cfg_path = small_construct_config(tmp_path)
    cfg = ConstructConfig.from_yaml(cfg_path)
    first = steps.run_round(str(cfg_path))
    bank = RuleBank(tmp_path / "rulebank")
    ids = [m.id for m in bank.modules()]
    archived = steps.archive_fresh(cfg)
    assert archived and not bank.modules() and not bank.rejected()
    assert sorted(p.name for p in (Path(archived) / "modules").iterdir()) == ids
    again = steps.run_round(str(cfg_path), fresh=True)
    assert again["round"] == 2 and again["base_release"] == "r0000" and again["build"] == "r0002"
    assert again["accepted"] == first["accepted"]  # the same pool and start: the same proposals
    assert [m.id for m in bank.modules()] == ids  # the same ids again: nothing is proposed twice
    assert steps.plan_round(cfg).base == "rounds/r0002"


def test_store_v1_files_are_migrated(tmp_path) -> None:
    import duckdb

    db = tmp_path / "old.duckdb"
    con = duckdb.connect(str(db))
    con.execute("CREATE TABLE schema_version (version INTEGER, created_at TIMESTAMP)")
    con.execute("INSERT INTO schema_version VALUES (1, now())")
    con.execute("CREATE TABLE rounds (round INTEGER PRIMARY KEY, artifact_version VARCHAR, coverage DOUBLE)")
    con.execute("INSERT INTO rounds VALUES (1, 'r0001', 0.4), (2, 'r0002', 0.5)")
    con.execute("CREATE TABLE replays (round INTEGER, example_id VARCHAR)")
    con.execute("INSERT INTO replays VALUES (1, 'e1'), (1, 'e2')")
    con.close()
    with Store(db) as st:
        assert st.schema_version == 2
        assert [(r["config"], r["round"], r["status"]) for r in st.rounds()] == [("", 1, "complete"),
                                                                                  ("", 2, "complete")]
        assert st.round_counts("", 1)["replays"] == 2
        st.replace_round("", 1, {"replays": [{"example_id": "e3"}]})
        assert st.round_counts("", 1) == {t: int(t == "replays") for t in ROUND_TABLES}


def test_replace_round_is_one_transaction(tmp_path) -> None:
    with Store(tmp_path / "s.duckdb") as st:
        st.replace_round("a", 1, {"replays": [{"example_id": "e1"}], "rounds": [{"artifact_version": "r0001"}]})
        st.replace_round("b", 1, {"replays": [{"example_id": "e1"}, {"example_id": "e2"}]})
        with pytest.raises(Exception):  # noqa: B017 - a bad row half-way: nothing of the rerun stays
            st.replace_round("a", 1, {"replays": [{"example_id": "e9"}], "rounds": [{"coverage": "bad"}]})
        assert st.round_counts("a", 1)["replays"] == 1 and st.round_counts("b", 1)["replays"] == 2
        assert [r["artifact_version"] for r in st.rounds("a")] == ["r0001"]
        assert st.set_round_status("a", 1, "freezing") == 1 and st.rounds("a") == []


def test_round_artifacts_format_numbers_and_keep_reasons_whole() -> None:
    reason = "full replay: " + "a wrong direct decision on a trap | " * 20 + "end"
    summary = {"config": "Demo Config", "name": "demo-config-round-004", "round": 4, "release": "r0003",
               "build": None, "build_path": None, "base_release": "r0003", "pool": 9974, "data": "sources",
               "residuals": 1812, "clusters": 18, "drafts": 40, "accepted": 0, "rejected": 1,
               "rejected_by_stage": {"full_replay": 1}, "proposals": [], "drafter": "offline",
               "nothing_accepted": "all 1 card(s) were rejected (1 at full_replay)",
               "before": {"coverage": 0.4632043312612793, "direct_errors": 8, "direct_precision": 0.99654,
                          "accuracy": 0.8035, "fallback_calls": 2677},
               "after": {"coverage": 0.4632043312612793, "direct_errors": 8, "direct_precision": 0.99654,
                         "accuracy": 0.8035, "fallback_calls": 2677}, "timings_s": {"replay": 12.25}}
    card = {"card_id": "r04-c1-0", "status": "rejected", "stage": "full_replay", "template": "text_match",
            "reason": reason}
    trace = [{"round": 4, "artifact_version": "r0003", "base_release": "r0003", "coverage": 0.4632043312612793,
              "direct_errors": 8, "direct_precision": 0.99654, "accuracy": 0.8035, "fallback_calls": 2677,
              "accepted": 0, "rejected": 1, "figures": summary}]
    art = steps.round_artifacts(summary, [], [card], trace)
    assert steps.artifact_keys("Demo Config")["round"] == "demo-config-round"
    assert art["cards"][0]["reason"] == " ".join(reason.split())  # whole
    md = art["markdown"]
    assert md.startswith("# demo-config-round-004: nothing accepted (r0003 unchanged)")
    assert "Nothing accepted, nothing frozen" in md and "at full_replay" in md
    assert f"- **r04-c1-0** at *full_replay* (text_match): {' '.join(reason.split())}" in md  # whole
    assert "| direct coverage | 46.32% | 46.32% | +0.00 pts |" in md and "| fallback calls | 2,677 | 2,677 | +0 |" in md
    assert art["trace"] == [{"round": "004", "base": "r0003", "froze": "nothing", "coverage": "46.32%",
                             "direct errors": "8", "direct precision": "99.65%", "accuracy": "80.35%",
                             "fallback calls": "2,677", "accepted": "0", "rejected": "1"}]


def test_a_newer_release_starts_a_new_line_of_rounds(tmp_path) -> None:
    """start_from: newest: rounds continue from their own builds until a person builds a newer
    release; the next round then starts from that release (numbers and build names go on)."""
    from tests.helpers import build_release, module_source

    bank = tmp_path / "rulebank"
    build_release(bank / "releases" / "r0001", [("m1", "verdict_matching",
                                                 module_source("m1", "return Decision.abstain('no')"), 1)])
    cfg_path = _config(tmp_path)
    data = yaml.safe_load(cfg_path.read_text())
    data["start_from"] = "newest"
    cfg_path.write_text(yaml.safe_dump(data))
    cfg = ConstructConfig.from_yaml(cfg_path)
    assert (steps.plan_round(cfg).base, steps.plan_round(cfg).base_version) == ("releases/r0001", "r0001")
    first = steps.run_round(str(cfg_path))
    assert first["base_release"] == "r0001" and first["build"] == "r0002"  # after the release's name
    assert steps.plan_round(cfg).base == "rounds/r0002"
    build_release(bank / "releases" / "r0003", [("m1", "verdict_matching",
                                                 module_source("m1", "return Decision.abstain('no')"), 1)],
                  version="r0003")
    plan = steps.plan_round(cfg)
    assert (plan.round_no, plan.base, plan.base_version) == (2, "releases/r0003", "r0003")
    assert steps.next_build_name(RuleBank(bank), plan.base_version) == "r0004"
