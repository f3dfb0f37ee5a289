"""A release records the toolkit it was validated with; a changed toolkit file is detected at load
(a warning recorded on every Verdict, ``strict=True`` refuses) and by the snapshot test.

The changed toolkit is a private copy of ``verifier_runtime`` put first on ``PYTHONPATH`` of a
child process, so the real package is never touched while other tests run.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

from verifier_runtime.artifact import load_artifact, newest_release
from verifier_runtime.fingerprint import fingerprint, probe_set, toolkit_hash

REPO = Path(__file__).resolve().parent.parent
RELEASE = newest_release(REPO / "rulebank")

CHILD = r"""
import json, sys, warnings
from verifier_runtime import ArtifactError, load_verifier
import verifier_runtime
out = {"package": verifier_runtime.__file__}
with warnings.catch_warnings(record=True) as caught:
    warnings.simplefilter("always")
    v = load_verifier(sys.argv[1], fallback="offline")
out["warnings"] = [str(w.message) for w in caught if w.category.__name__ == "ToolkitMismatchWarning"]
out["verdict_warning"] = v.verify("What is 2+2?", "4", "The answer is 4.").artifact_warning
try:
    load_verifier(sys.argv[1], fallback="offline", strict=True)
    out["strict"] = "loaded"
except ArtifactError as e:
    out["strict"] = str(e)
if len(sys.argv) > 2:  # the snapshot test's comparison, under this toolkit
    from tasks.rulebank.build import snapshot, snapshot_differences
    from verifier_runtime.artifact import load_artifact
    recorded = json.loads(open(sys.argv[2]).read())
    out["snapshot"] = snapshot_differences(recorded, snapshot(load_artifact(sys.argv[1])))
print(json.dumps(out))
"""


def _run_with_toolkit(tmp_path: Path, change) -> dict:
    pkg = tmp_path / "pkg"
    shutil.copytree(REPO / "verifier_runtime", pkg / "verifier_runtime",
                    ignore=shutil.ignore_patterns("__pycache__", "_shipped"))
    change(pkg / "verifier_runtime" / "toolkit")
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(pkg), str(REPO)])}
    args = [sys.executable, "-c", CHILD, str(RELEASE), str(REPO / "rulebank" / "snapshot.json")]
    proc = subprocess.run(args, capture_output=True, text=True, env=env, cwd=tmp_path, timeout=240)
    assert proc.returncode == 0, proc.stderr[-2000:]
    out = json.loads(proc.stdout.strip().splitlines()[-1])
    assert out["package"].startswith(str(pkg)), out["package"]  # the changed copy was the one loaded
    return out


def test_the_shipped_release_records_this_toolkit() -> None:
    art = load_artifact(RELEASE)
    tk = art.manifest["toolkit"]
    assert tk["sha256"] == toolkit_hash()[0], (
        "the toolkit changed since the shipped release was built: rebuild it (`autoverifier rules build`) "
        "and update the snapshot (`autoverifier rules snapshot --update`)")
    assert tk["probes"]["n"] == len(probe_set())


def test_fingerprint_hashes_content(tmp_path: Path) -> None:
    for name in ("tk", "tk2"):
        shutil.copytree(REPO / "verifier_runtime" / "toolkit", tmp_path / name,
                        ignore=shutil.ignore_patterns("__pycache__"))
    assert toolkit_hash(tmp_path / "tk") == toolkit_hash()  # content, not location
    f = tmp_path / "tk2" / "numbers.py"
    f.write_text(f.read_text() + "\n# edit\n")
    assert toolkit_hash(tmp_path / "tk2")[0] != toolkit_hash()[0]
    assert fingerprint([], tmp_path / "tk")["sha256"] == toolkit_hash()[0]


def test_an_edited_toolkit_file_is_detected_at_load(tmp_path: Path) -> None:
    def comment_only(tk: Path) -> None:
        f = tk / "numbers.py"
        f.write_text(f.read_text() + "\n# a comment added after the release was built\n")

    out = _run_with_toolkit(tmp_path, comment_only)
    assert out["warnings"] and "validated with toolkit" in out["warnings"][0]
    assert "probe verdicts unchanged" in out["warnings"][0]
    assert out["verdict_warning"] == out["warnings"][0]  # recorded on every Verdict
    assert "strict=True refuses" in out["strict"]
    assert any(d.startswith("toolkit_sha256") for d in out["snapshot"])  # the snapshot test fails too


def test_a_behaviour_change_in_the_toolkit_shows_in_probes_and_snapshot(tmp_path: Path) -> None:
    def break_numbers(tk: Path) -> None:
        target = tk / "numbers.py"  # every number now reads as unparseable
        assert "def parse_number(" in target.read_text()
        target.write_text(target.read_text() + "\n\ndef parse_number(s, **kwargs):\n    return None\n")

    out = _run_with_toolkit(tmp_path, break_numbers)
    assert "probe verdicts CHANGED" in out["warnings"][0]
    assert any(d.startswith("triple #") for d in out["snapshot"]), out["snapshot"][:5]


def test_no_warning_under_the_same_toolkit(recwarn) -> None:
    from verifier_runtime import load_verifier

    v = load_verifier(RELEASE, fallback="none", strict=True)
    assert v.artifact_warning == "" and v.verify("What is 2+2?", "4", "4").artifact_warning == ""
    assert not [w for w in recwarn if w.category.__name__ == "ToolkitMismatchWarning"]
    assert json.loads((RELEASE / "manifest.json").read_text())["toolkit"]["probes"]["verdicts_sha256"]
