"""The runtime contract: artifact loading, the cascade, hard limits, batch, verdict fields."""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
import tarfile
import threading
import time
from pathlib import Path

import pytest

from tests.helpers import build_release, module_source
from verifier_runtime import ArtifactError, Decision, FallbackResult, load_artifact, load_verifier
from verifier_runtime.artifact import pack_release

REPO = Path(__file__).resolve().parent.parent


class ScriptedFallback:
    """A fallback that says ``correct`` and counts its calls."""

    name = "scripted"

    def __init__(self, correct: bool | None = True) -> None:
        self.correct = correct
        self.calls = 0
        self.guidance_seen: list[str] = []

    def judge(self, question, reference, response, *, guidance=""):
        self.calls += 1
        self.guidance_seen.append(guidance)
        return FallbackResult(self.correct, "scripted")

    def judge_batch(self, rows, *, guidance="", workers=4):
        return [self.judge(*r, guidance=guidance) for r in rows]


@pytest.fixture()
def cascade_release(tmp_path: Path) -> Path:
    mods = [
        ("m1_abstain", "verdict_matching", module_source("m1_abstain", "return Decision.abstain('never')"), 10),
        ("m2_raises", "verdict_matching", module_source("m2_raises", "return 1 // 0 if x.response == 'boom' else "
                                                       "Decision.abstain('no')"), 20),
        ("m3_exact", "verdict_matching", module_source(
            "m3_exact", "if x.response.strip() == x.reference.strip():\n    return Decision.passed('exact')\n"
            "return Decision.abstain('different')"), 30),
        ("m4_fail_all", "mismatch", module_source("m4_fail_all", "if x.response == 'fail-me':\n"
                                                  "    return Decision.failed('forced')\nreturn Decision.abstain('no')"), 40),
        ("m5_pass_all", "mismatch", module_source("m5_pass_all", "return Decision.passed('late')"
                                                  " if x.response == 'fail-me' else Decision.abstain('no')"), 50),
        ("m6_spin", "slow", module_source("m6_spin", "if x.response == 'spin':\n    n = 0\n    while True:\n"
                                          "        n += 1\nreturn Decision.abstain('no')"), 60),
    ]
    return build_release(tmp_path / "rel" / "r0001", mods, guidance="learned guidance text")


def test_first_direct_decision_wins_and_is_not_overridden(cascade_release: Path) -> None:
    fb = ScriptedFallback(True)
    v = load_verifier(cascade_release, fallback=fb)
    assert [m.id for m in v.modules] == ["m1_abstain", "m2_raises", "m3_exact", "m4_fail_all", "m5_pass_all", "m6_spin"]
    verdict = v.verify("q", "42", "42")
    assert verdict.correct is True and verdict.decided_by == "m3_exact" and not verdict.fallback_called
    verdict = v.verify("q", "42", "fail-me")  # m4 FAILs; m5 would PASS but runs after
    assert verdict.correct is False and verdict.decided_by == "m4_fail_all" and verdict.reason == "forced"
    assert [t[0] for t in verdict.trace] == ["m1_abstain", "m2_raises", "m3_exact", "m4_fail_all"]
    assert fb.calls == 0
    verdict = v.verify("q", "42", "something else")
    assert verdict.fallback_called and verdict.decided_by == "fallback:scripted" and verdict.correct is True
    assert fb.calls == 1 and fb.guidance_seen == ["learned guidance text"]
    assert verdict.artifact_version == "r0001" and verdict.elapsed_ms >= 0


def test_module_error_abstains_with_reason_and_strict_raises(cascade_release: Path) -> None:
    v = load_verifier(cascade_release, fallback="none")
    verdict = v.verify("q", "1", "boom")
    assert verdict.correct is None and verdict.decided_by == "none"
    assert ("m2_raises", "ABSTAIN", "module_error:ZeroDivisionError") in verdict.trace
    strict = load_verifier(cascade_release, fallback="none", strict=True)
    with pytest.raises(ZeroDivisionError):
        strict.verify("q", "1", "boom")


def test_module_over_budget_abstains_in_any_thread(cascade_release: Path) -> None:
    v = load_verifier(cascade_release, fallback=ScriptedFallback(False), module_budget_s=0.2, budget_s=1.0)
    results: list = []

    def run() -> None:
        t0 = time.monotonic()
        results.append((v.verify("q", "1", "spin"), time.monotonic() - t0))

    threads = [threading.Thread(target=run) for _ in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(10)
    assert len(results) == 4
    for verdict, took in results:
        assert took < 2.0
        assert ("m6_spin", "ABSTAIN", "module_timeout") in verdict.trace
        assert verdict.fallback_called and verdict.correct is False


def test_exclude_groups_and_none_fallback(cascade_release: Path) -> None:
    v = load_verifier(cascade_release, fallback="none", exclude_groups={"mismatch"})
    assert "m4_fail_all" not in [m.id for m in v.modules]
    assert v.verify("q", "42", "fail-me").correct is None


def test_verify_batch_keeps_order_and_batches_fallback(cascade_release: Path) -> None:
    fb = ScriptedFallback(True)
    v = load_verifier(cascade_release, fallback=fb)
    rows = [{"question": "q", "reference": str(i), "response": str(i) if i % 2 else "x"} for i in range(40)]
    out = v.verify_batch(rows, workers=4)
    assert [o.decided_by for o in out] == ["m3_exact" if i % 2 else "fallback:scripted" for i in range(40)]
    assert fb.calls == 20
    assert all(o.correct is True for o in out)


def test_artifact_tamper_missing_extra_schema(cascade_release: Path, tmp_path: Path) -> None:
    load_artifact(cascade_release)
    bad = tmp_path / "tampered"
    shutil.copytree(cascade_release, bad)
    f = bad / "modules" / "m3_exact.py"
    f.write_text(f.read_text().replace("exact", "exakt"))
    with pytest.raises(ArtifactError, match="hash mismatch"):
        load_artifact(bad)
    missing = tmp_path / "missing"
    shutil.copytree(cascade_release, missing)
    (missing / "modules" / "m1_abstain.py").unlink()
    with pytest.raises(ArtifactError, match="missing"):
        load_artifact(missing)
    extra = tmp_path / "extra"
    shutil.copytree(cascade_release, extra)
    (extra / "modules" / "sneaky.py").write_text("x = 1\n")
    with pytest.raises(ArtifactError, match="not listed"):
        load_artifact(extra)
    schema = tmp_path / "schema"
    shutil.copytree(cascade_release, schema)
    m = json.loads((schema / "manifest.json").read_text())
    m["schema_version"] = 99
    (schema / "manifest.json").write_text(json.dumps(m))
    with pytest.raises(ArtifactError, match="schema version 99"):
        load_artifact(schema)
    with pytest.raises(ArtifactError, match="not found"):
        load_artifact(tmp_path / "nowhere")


def test_artifact_policy_recheck_refuses_hostile_module(tmp_path: Path) -> None:
    src = module_source("evil", "return Decision.passed(open('/etc/passwd').read())")
    rel = build_release(tmp_path / "r0001", [("evil", "verdict_matching", src, 1)])
    with pytest.raises(ArtifactError, match="policy"):
        load_verifier(rel, fallback="none")


def test_tar_gz_roundtrip_and_traversal(cascade_release: Path, tmp_path: Path) -> None:
    tar = pack_release(cascade_release, tmp_path / "rel.tar.gz")
    art = load_artifact(tar)
    assert art.version == "r0001" and len(art.modules) == 6
    v = load_verifier(tar, fallback="none")
    assert v.verify("q", "7", "7").decided_by == "m3_exact"
    evil = tmp_path / "evil.tar.gz"
    with tarfile.open(evil, "w:gz") as t:
        p = tmp_path / "payload"
        p.write_text("x")
        t.add(p, arcname="../escape.txt")
    with pytest.raises(ArtifactError, match="unsafe path"):
        load_artifact(evil)


def test_default_release_is_newest_shipped() -> None:
    v = load_verifier(fallback="none")
    releases = sorted(p.name for p in (REPO / "rulebank" / "releases").iterdir() if p.name.startswith("r"))
    assert v.artifact_version == releases[-1]


def test_verdict_fields_and_to_dict() -> None:
    v = load_verifier(fallback="offline")
    d = v.verify("What is 2+2?", "4", "The answer is $\\boxed{4}$.").to_dict()
    assert set(d) == {"correct", "decided_by", "reason", "fallback_called", "artifact_version", "elapsed_ms",
                      "artifact_warning"}
    assert d["correct"] is True


def test_decision_helpers() -> None:
    assert Decision.passed("r").correct is True and Decision.failed().correct is False
    assert Decision.abstain().correct is None and not Decision.abstain().direct


def test_import_is_light() -> None:
    code = ("import sys, time; t=time.process_time(); import verifier_runtime; dt=time.process_time()-t; "
            "heavy=[m for m in ('prefect','duckdb','polars','umap','torch','sympy','pint','numpy','openai','anthropic') "
            "if m in sys.modules]; print(dt, heavy)")
    # the import's own CPU time, the best of three fresh interpreters: not a busy machine's scheduling
    runs = [subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout.split(" ", 1)
            for _ in range(3)]
    assert min(float(r[0]) for r in runs) < 0.5, runs
    assert all(r[1].strip() == "[]" for r in runs), runs


def test_release_write_is_atomic(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A crash while a release is written leaves the previous state: no partial release appears."""
    from verifier_runtime.artifact import newest_release

    root = tmp_path / "rb"
    build_release(root / "releases" / "r0001", [("m1", "g", module_source("m1", "return Decision.abstain()"), 1)])
    calls = {"n": 0}
    real_write = Path.write_bytes

    def failing_write(self, *a, **kw):
        calls["n"] += 1
        if calls["n"] == 3:
            raise OSError("disk full")
        return real_write(self, *a, **kw)

    monkeypatch.setattr(Path, "write_bytes", failing_write)
    with pytest.raises(OSError, match="disk full"):
        build_release(root / "releases" / "r0002", [("m1", "g", module_source("m1", "return Decision.abstain()"), 1),
                                                     ("m2", "g", module_source("m2", "return Decision.abstain()"), 2)],
                      version="r0002")
    monkeypatch.undo()
    assert newest_release(root).name == "r0001"
    assert sorted(p.name for p in (root / "releases").iterdir()) == ["r0001"]
    load_artifact(newest_release(root))


def test_no_direct_pass_for_reordered_formulas_or_sequences() -> None:
    """No module may PASS a reordered SMILES string or codon as an equal commutative product."""
    from verifier_runtime import load_verifier

    v = load_verifier(fallback="none")
    for q, ref, resp in (("Give the SMILES of ethylamine.", "CCN", "CNC"), ("Which start codon?", "ATG", "GTA"),
                         ("SMILES of ethanol?", "CCO", "COC")):
        assert v.verify(q, ref, resp).correct is not True, (ref, resp)
