"""The rule bank as source: every module's cases, the lifecycle, deterministic builds, diff,
explain, the snapshot of the shipped release, and the commands on the shipped rule bank."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest
import yaml
from typer.testing import CliRunner

from autoverifier.cli import app
from tasks.rulebank import lifecycle
from tasks.rulebank.build import (
    build,
    check_modules,
    diff,
    failures,
    fixed_set,
    release_spec,
    run_cases,
    snapshot,
    snapshot_differences,
)
from tasks.rulebank.source import RuleBank, RuleBankError, compose_module, read_module
from verifier_runtime import load_verifier
from verifier_runtime.artifact import load_artifact, newest_release, release_files
from verifier_runtime.sandbox import check_module_source

REPO = Path(__file__).resolve().parent.parent
BANK = RuleBank(REPO / "rulebank")
MODULES = BANK.modules()


@pytest.fixture()
def bank_copy(tmp_path: Path) -> RuleBank:
    """A private copy of the shipped rule bank (modules, prompt, newest release)."""
    root = tmp_path / "rulebank"
    shutil.copytree(BANK.modules_dir, root / "modules")
    shutil.copytree(BANK.root / "prompt", root / "prompt")
    newest = newest_release(BANK.root)
    shutil.copytree(newest, root / "releases" / newest.name)
    return RuleBank(root)


def test_the_shipped_rule_bank_has_modules() -> None:
    assert MODULES and all(m.status in ("preview", "active", "retired") for m in MODULES)


@pytest.mark.parametrize("module", MODULES, ids=[m.id for m in MODULES])
def test_module_passes_its_cases(module) -> None:
    results = run_cases(module)
    assert results, f"{module.id} has no cases"
    assert not failures({module.id: results})


@pytest.mark.parametrize("module", MODULES, ids=[m.id for m in MODULES])
def test_module_source_is_reviewable(module) -> None:
    card = module.card
    assert check_module_source(compose_module(module)) == []
    assert card["why"] and card["parameters"] and card.get("template_version")
    assert all(p["meaning"] for p in card["parameters"].values()), "every parameter says what it means"
    labels = {c["expected"] for c in module.cases}
    assert "PASS" in labels or "FAIL" in labels
    assert "ABSTAIN" in labels
    assert all(c.get("label_provenance") and "example_id" in c for c in module.cases)
    for err in card.get("tolerated_errors") or []:  # by their text, never by pool position
        assert {"question", "reference", "response", "label"} <= set(err)
    text = (module.path / "card.yaml").read_text()
    assert "counterexamples: [" not in text and "new_direct_error_ids" not in text


def test_rejected_cards_keep_stage_and_reason() -> None:
    rejected = BANK.rejected()
    assert rejected
    for r in rejected:
        assert r.card["status"] == "rejected" and r.card["stage"] and r.card["why"]


def test_the_shipped_release_is_built_from_the_active_modules() -> None:
    """The source rebuilds the shipped release byte for byte (same source, same toolkit)."""
    from verifier_runtime.artifact import releases

    *older, newest = releases(BANK.root)
    art = load_artifact(newest)
    assert [e.id for e in art.modules] == [m.id for m in BANK.modules("active")]
    spec = release_spec(BANK, art.version, base=load_artifact(older[-1]) if older else None)
    assert release_files(spec) == {p: (newest / p).read_bytes() for p in [*art.files, "manifest.json"]}


def test_build_is_deterministic(bank_copy: RuleBank, tmp_path: Path) -> None:
    a = build(bank_copy, "r0100", dest=tmp_path / "a" / "r0100")
    b = build(bank_copy, "r0100", dest=tmp_path / "b" / "r0100")
    files_a = sorted(p.relative_to(a.path) for p in a.path.rglob("*") if p.is_file())
    files_b = sorted(p.relative_to(b.path) for p in b.path.rglob("*") if p.is_file())
    assert files_a == files_b
    assert all((a.path / f).read_bytes() == (b.path / f).read_bytes() for f in files_a)
    manifest = json.loads((a.path / "manifest.json").read_text())
    assert "created_at" not in manifest and manifest["toolkit"]["sha256"]
    # nothing changed since the newest release: no new release is written
    assert build(bank_copy).path is None


def _shipped_and_next() -> tuple[str, str]:
    shipped = newest_release(BANK.root).name
    return shipped, f"r{int(shipped[1:]) + 1:04d}"


def test_retire_build_and_the_module_no_longer_decides(bank_copy: RuleBank) -> None:
    shipped, nxt = _shipped_and_next()
    target = "m010_alias_match"
    m = bank_copy.module(target)
    bank_copy.save(m.with_card(lifecycle.retire(m.card, "tested retirement")))
    res = build(bank_copy)
    assert res.path is not None and res.version == nxt
    art = load_artifact(res.path)
    assert target not in [e.id for e in art.modules]
    v = load_verifier(res.path, fallback="offline")
    for case in (c for c in m.cases if c["expected"] != "ABSTAIN"):
        assert v.verify(case["question"], case["reference"], case["response"]).decided_by != target
    d = diff(load_artifact(bank_copy.releases_dir / shipped), art)
    assert d["modules"]["removed"] == [target] and d["verdict_changes"]
    assert all(c[shipped]["decided_by"] == target for c in d["verdict_changes"])
    assert "retired `m010_alias_match`" in art.files["CHANGELOG.md"]
    assert nxt in (bank_copy.root / "CHANGELOG.md").read_text()
    # restored, it is back in the next build
    m = bank_copy.module(target)
    bank_copy.save(m.with_card(lifecycle.restore(m.card)))
    assert bank_copy.module(target).status == "active"


def test_editing_a_parameter_breaks_a_case_and_rules_test_catches_it(bank_copy: RuleBank) -> None:
    runner = CliRunner()
    ok = runner.invoke(app, ["rules", "test", "--rulebank", str(bank_copy.root)])
    assert ok.exit_code == 0, ok.output
    card_path = bank_copy.modules_dir / "m011_final_number" / "card.yaml"
    card = yaml.safe_load(card_path.read_text())
    card["parameters"]["max_answer_words"]["value"] = 1  # too narrow for its own support cases
    card_path.write_text(yaml.safe_dump(card, sort_keys=False))
    bad = runner.invoke(app, ["rules", "test", "m011_final_number", "--rulebank", str(bank_copy.root)])
    assert bad.exit_code == 1 and "expected PASS, got ABSTAIN" in bad.output
    built = runner.invoke(app, ["rules", "build", "--rulebank", str(bank_copy.root)])
    assert built.exit_code == 2 and "cases fail" in built.output
    assert sorted(p.name for p in bank_copy.releases_dir.iterdir()) == [_shipped_and_next()[0]]


def test_lifecycle_transitions_are_checked() -> None:
    card = {"id": "m1", "status": "preview", "history": []}
    active = lifecycle.activate(card, "reviewed")
    assert active["status"] == "active" and active["history"][-1] == {"status": "active", "from": "preview",
                                                                      "why": "reviewed"}
    assert card["status"] == "preview"  # pure: the input is unchanged
    with pytest.raises(RuleBankError, match="only a preview"):
        lifecycle.activate(active, "again")
    retired = lifecycle.retire(active, "noisy")
    assert retired["retired_why"] == "noisy"
    with pytest.raises(RuleBankError, match="already retired"):
        lifecycle.retire(retired, "x")
    assert lifecycle.restore(retired)["status"] == "active"
    assert lifecycle.restore(lifecycle.retire(card, "x"))["status"] == "preview"
    with pytest.raises(RuleBankError, match="say why"):
        lifecycle.retire(active, "  ")


def test_activate_command_and_only_active_modules_ship(bank_copy: RuleBank) -> None:
    m = bank_copy.module("m007_text_match")
    bank_copy.save(m.with_card({**m.card, "status": "preview"}))
    assert "m007_text_match" not in [entry.id for entry, _ in release_spec(bank_copy, "r0099").modules]
    runner = CliRunner()
    out = runner.invoke(app, ["rules", "activate", "m007_text_match", "--why", "reviewed in a test",
                              "--rulebank", str(bank_copy.root)])
    assert out.exit_code == 0 and "preview -> active" in out.output
    assert bank_copy.module("m007_text_match").status == "active"
    again = runner.invoke(app, ["rules", "activate", "m007_text_match", "--why", "x", "--rulebank",
                                str(bank_copy.root)])
    assert again.exit_code == 2 and "only a preview" in again.output


def test_malformed_source_is_a_clear_error(bank_copy: RuleBank) -> None:
    folder = bank_copy.modules_dir / "m011_final_number"
    (folder / "card.yaml").write_text("id: m011_final_number\nstatus: shipping\n")
    with pytest.raises(RuleBankError, match="status must be one of"):
        read_module(folder)
    (folder / "card.yaml").write_text("{{{not yaml")
    with pytest.raises(RuleBankError, match="not valid YAML"):
        read_module(folder)
    out = CliRunner().invoke(app, ["rules", "list", "--rulebank", str(bank_copy.root)])
    assert out.exit_code == 2 and "error:" in out.output


def test_module_code_may_not_set_its_own_params(bank_copy: RuleBank) -> None:
    m = bank_copy.module("m011_final_number")
    bad = m.__class__(m.id, m.card, m.code + "\nPARAMS = {}\n", m.cases)
    assert "must not set PARAMS" in str(check_modules([bad])[m.id])


def test_commands_on_the_shipped_rule_bank() -> None:
    runner = CliRunner()
    listed = runner.invoke(app, ["rules", "list"])
    assert listed.exit_code == 0 and "m011_final_number" in listed.output
    shown = runner.invoke(app, ["rules", "show", "m011_final_number"])
    assert shown.exit_code == 0 and "def decide" in shown.output and "max_answer_words" in shown.output
    missing = runner.invoke(app, ["rules", "show", "m999_nothing"])
    assert missing.exit_code == 2 and "no module" in missing.output
    tested = runner.invoke(app, ["rules", "test"])
    assert tested.exit_code == 0, tested.output
    ex = runner.invoke(app, ["rules", "explain", "--json", "Who wrote it?", "Jane Austen/J. Austen",
                             "It was J. Austen."])
    out = json.loads(ex.output)
    assert out["decided_by"] == "m010_alias_match" and out["correct"] is True
    assert len(out["modules"]) == len(BANK.modules("active")) and out["judge"]["name"] == "offline"
    assert [m["id"] for m in out["modules"] if m["decides"]] == ["m010_alias_match"]
    d = runner.invoke(app, ["rules", "diff", "r0003", "r0004"])
    assert d.exit_code == 0 and f"fixed set ({len(fixed_set())} triples, offline judge): 0" in d.output, d.output
    snap = runner.invoke(app, ["rules", "snapshot"])
    assert snap.exit_code == 0, snap.output


def test_snapshot_of_the_shipped_release() -> None:
    """CI snapshot: the shipped release's verdicts on the fixed set change only together with a
    deliberate snapshot update (`autoverifier rules snapshot --update`) in the same commit."""
    recorded = json.loads((BANK.root / "snapshot.json").read_text())
    now = snapshot(load_artifact(newest_release(BANK.root)))
    assert not snapshot_differences(recorded, now), (
        "the shipped release's verdicts changed: if deliberate, run `autoverifier rules snapshot --update`")
    assert len(now["verdicts"]) == len(fixed_set())


def test_snapshot_differences_are_readable() -> None:
    now = {"release": "r0004", "toolkit_sha256": "a" * 64, "fallback": "offline", "fixed_set_sha256": "x",
           "verdicts": [["m1", True, "r"], ["fallback:offline", False, "x"]]}
    old = json.loads(json.dumps(now))
    old["toolkit_sha256"] = "b" * 64
    old["verdicts"][1] = ["m2", True, "y"]
    diffs = snapshot_differences(old, now)
    assert any(d.startswith("toolkit_sha256") for d in diffs) and any(d.startswith("triple #1") for d in diffs)


def test_a_release_records_the_pools_its_modules_were_learned_from(bank_copy: RuleBank, tmp_path: Path) -> None:
    from tasks.construct.promote import pool_composition
    from tasks.data.schema import Example

    m = bank_copy.module("m011_final_number")
    examples = [Example(id=f"e{k}", question="q", reference="1", response="1", label=bool(k % 2), source="gsm8k",
                        domain="math", split="construction") for k in range(3)]
    comp = pool_composition(examples)
    assert comp["size"] == 3 and comp["by_source"] == {"gsm8k": 3} and comp["by_label"] == {"correct": 1, "incorrect": 2}
    card = {**m.card, "learned": {**(m.card.get("learned") or {}), "pool": {"hash": "feedface", "size": 3,
                                                                           "composition": comp}}}
    bank_copy.save(m.with_card(card))
    res = build(bank_copy, "r0100", dest=tmp_path / "r0100")
    pools = load_artifact(res.path).manifest["provenance"]["pools"]
    assert pools["feedface"] == {"modules": ["m011_final_number"], "size": 3, "composition": comp}
    assert sum(len(p["modules"]) for p in pools.values()) == len(bank_copy.modules("active"))
