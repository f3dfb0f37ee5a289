"""A wheel install (not an editable one) loads the shipped release by default.

Builds the wheel with uv, installs it into a fresh virtual environment (dependencies from uv's
cache, offline; no network), and loads the verifier there from a folder outside the checkout.
"""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
import zipfile
from pathlib import Path

import pytest

from verifier_runtime.artifact import newest_release

REPO = Path(__file__).resolve().parent.parent
UV = shutil.which("uv") or str(Path(sys.executable).parent / "uv")

CHILD = r"""
import json, sys
import verifier_runtime
from verifier_runtime import load_verifier
v = load_verifier()
r = v.verify("Who wrote it?", "Jane Austen/J. Austen", "It was J. Austen.")
print(json.dumps({"package": verifier_runtime.__file__, "release": v.artifact_version, "modules": len(v.modules),
                  "decided_by": r.decided_by, "correct": r.correct, "warning": r.artifact_warning}))
"""


@pytest.mark.skipif(not Path(UV).exists(), reason="uv not installed")
def test_a_wheel_install_loads_the_shipped_release(tmp_path: Path) -> None:
    src = tmp_path / "src"  # a clean copy of the checkout: the build never writes into the repository
    top = {".git", ".venv", "data", "build", "dist", "reports", ".ruff_cache"}  # top-level only: tasks/data stays

    def ignore(folder: str, names: list[str]) -> set[str]:
        skip = {n for n in names if n == "__pycache__" or n.endswith(".egg-info")}
        return skip | (top & set(names) if Path(folder) == REPO else set())

    shutil.copytree(REPO, src, ignore=ignore)
    build = subprocess.run([UV, "build", "--wheel", "--out-dir", str(tmp_path / "dist"), "--offline", str(src)],
                           capture_output=True, text=True, timeout=600)
    assert build.returncode == 0, build.stderr[-3000:]
    (wheel,) = (tmp_path / "dist").glob("autoverifier-*.whl")
    shipped = newest_release(REPO / "rulebank").name
    names = zipfile.ZipFile(wheel).namelist()
    assert f"verifier_runtime/_shipped/releases/{shipped}/manifest.json" in names
    assert "verifier_runtime/probes.json" in names and "tasks/data/seed_examples.jsonl" in names
    assert not any(n.startswith("rulebank/") for n in names)

    venv = tmp_path / "venv"
    subprocess.run([UV, "venv", "--python", sys.executable, str(venv)], check=True, capture_output=True, timeout=120)
    py = venv / "bin" / "python"
    inst = subprocess.run([UV, "pip", "install", "--offline", "--python", str(py), str(wheel)],
                          capture_output=True, text=True, timeout=600)
    if inst.returncode != 0 and "offline" in inst.stderr.lower():
        pytest.skip(f"the wheel's dependencies are not in uv's cache: {inst.stderr[-300:]}")
    assert inst.returncode == 0, inst.stderr[-3000:]
    run = subprocess.run([str(py), "-c", CHILD], capture_output=True, text=True, cwd=tmp_path, timeout=300,
                         env={"PATH": "/usr/bin:/bin", "HOME": str(tmp_path)})
    assert run.returncode == 0, run.stderr[-3000:]
    out = json.loads(run.stdout.strip().splitlines()[-1])
    assert out["package"].startswith(str(venv)), out  # the installed copy, not the checkout
    assert out["release"] == shipped and out["modules"] > 0
    assert out["decided_by"] == "m010_alias_match" and out["correct"] is True and out["warning"] == ""
