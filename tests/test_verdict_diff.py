"""benchmarks/verdict_diff.py: a record of every decision, and a comparison that finds a changed one."""

from __future__ import annotations

import importlib.util
import json
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent


def _tool():
    spec = importlib.util.spec_from_file_location("verdict_diff", REPO / "benchmarks" / "verdict_diff.py")
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


def test_record_and_compare_find_exactly_the_changed_triple(tmp_path, monkeypatch, capsys):
    monkeypatch.setenv("AUTOVERIFIER_SHARED", str(tmp_path / "no_shared"))  # golden suites only
    tool = _tool()
    a, b = tmp_path / "a.json", tmp_path / "b.json"
    n = tool.record(a, with_pool=False, artifact=None)
    assert n > 1000
    data = json.loads(a.read_text())
    assert all(row["decisions"][-1].startswith("judge ") for row in data["rows"])
    assert tool.compare(a, a, show=0) == 0
    data["rows"][0]["decisions"][-1] = "judge None|edited"
    b.write_text(json.dumps(data))
    assert tool.compare(a, b, show=5) == 1
    assert "-> judge None|edited" in capsys.readouterr().out
