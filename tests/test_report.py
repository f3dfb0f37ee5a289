"""The HTML report: content, self-containment, and (if Chromium is present) a headless render."""

from __future__ import annotations

import json
import re
import shutil
import subprocess
from pathlib import Path

import pytest

from tasks.evaluate.metrics import ExampleResult
from tasks.evaluate.report import (
    build_report,
    render_report,
    svg_accuracy_chart,
    svg_rounds_chart,
    write_report,
)
from tasks.evaluate.runner import EvalError, store_results, summarize

CHROMIUM = shutil.which("chromium") or ("/usr/bin/chromium" if Path("/usr/bin/chromium").exists() else None)


def _results() -> list[ExampleResult]:
    out = []
    # autoverifier: module "num_eq" (group numeric) decides e0-e2 (e2 wrong), fallback e3-e5 (e5 wrong)
    spec = [
        ("e0", True, True, "num_eq", "numeric"),
        ("e1", False, False, "num_eq", "numeric"),
        ("e2", True, False, "num_eq", "numeric"),
        ("e3", True, True, "fallback:offline", ""),
        ("e4", False, False, "fallback:offline", ""),
        ("e5", False, True, "fallback:offline", ""),
    ]
    fb_pred = {"e0": False, "e1": False, "e2": False, "e3": True, "e4": False, "e5": False}
    for eid, pred, label, by, group in spec:
        out.append(ExampleResult(eid, "verifybench", "autoverifier", pred, label, by, by.startswith("fallback"),
                                 group, "reason<&>" if eid == "e2" else "ok", "short_answer", "math"))
        out.append(ExampleResult(eid, "verifybench", "fallback_only", fb_pred[eid], label, "fallback:offline", True,
                                 "", "ok", "short_answer", "math"))
    return out


def _data() -> dict:
    data = summarize(_results())
    data["notes"] = ["Figures are on the benchmark samples."]
    data["data"] = {"verifybench": {"n": 6, "kind": "sample", "path": "/x/verifybench", "positives": 3}}
    data["artifact"] = {"version": "r0007", "modules": 1, "groups": ["numeric"], "fallback": "offline"}
    data["decontamination"] = {"status": "ok", "pool_config": "configs/pool.yaml", "pool_size": 50,
                               "report": {"n_pool": 50, "sets": {"verifybench": {"n_eval": 6, "exact_triple": 0}}}}
    data["disagreements"][0]["question"] = "What is <b>2+2</b>?"
    return data


def test_svg_charts_are_inline_and_scaled():
    data = _data()
    svg = svg_accuracy_chart(data["benchmarks"])
    assert svg.count("<svg") == 1 and "verifybench" in svg
    # autoverifier 4/6 over a 620-px axis
    assert f'width="{620 * 4 / 6:.1f}"' in svg
    assert "No construction rounds" in svg_rounds_chart([])
    rounds = svg_rounds_chart([{"round": 1, "coverage": 0.1, "direct_errors": 0},
                               {"round": 2, "coverage": 0.3, "direct_errors": 2}])
    assert "<polyline" in rounds and "round 002: direct coverage 30.00%" in rounds
    assert 'data-chart="rounds-errors"' in rounds and "direct errors (examples)" in rounds  # a count axis


def test_report_content_and_self_contained(tmp_path):
    html = render_report(_data(), [{"round": 1, "artifact_version": "r0001", "coverage": 0.2, "direct_errors": 0,
                                    "accepted": 3, "rejected": 1}])
    for needle in ("Accuracy per benchmark", "Wilson", "verifybench", "autoverifier", "fallback_only",
                   "Module-group contributions", "numeric", "Worst disagreements", "direct error",
                   "Decontamination", "exact_triple", "Data provenance", "sample", "r0007",
                   "Figures are on the benchmark samples", "r0001"):
        assert needle in html, needle
    assert "66.7%" in html  # autoverifier accuracy 4/6
    # ablation: numeric removed -> e0,e1,e2 by fallback-only (wrong, right, right): 4/6 -> 4/6, delta 0
    assert "+0.00" in html
    assert "&lt;b&gt;2+2&lt;/b&gt;" in html and "reason&lt;&amp;&gt;" in html  # text is escaped
    assert "<script" not in html.lower()
    external = re.findall(r'(?:src|href)\s*=\s*["\']?(https?:|//)', html)
    assert not external
    assert "No construction rounds" not in html
    empty = render_report(_data(), [])
    assert "No construction rounds recorded" in empty
    write_report(html, tmp_path / "r" / "report.html")
    assert (tmp_path / "r" / "report.html").read_text(encoding="utf-8") == html


def test_build_report_from_json_and_db(tmp_path):
    jp = tmp_path / "eval.json"
    jp.write_text(json.dumps(_data()))
    data, rounds = build_report(eval_json=jp)
    assert data["benchmarks"]["verifybench"]["autoverifier"]["n"] == 6 and rounds == []
    db = tmp_path / "store.duckdb"
    store_results(db, "run-a", _results())
    from tasks.data.store import Store

    with Store(db) as st:
        st.con.execute("INSERT INTO rounds (round, coverage, direct_errors) VALUES (1, 0.25, 0), (2, 0.4, 1)")
    data2, rounds2 = build_report(db=db)
    assert data2["run"]["run_id"] == "run-a"
    assert data2["benchmarks"]["verifybench"]["autoverifier"]["accuracy"] == pytest.approx(4 / 6)
    assert [r["round"] for r in rounds2] == [1, 2]
    html = render_report(data2, rounds2)
    assert "text not stored" in html and "<polyline" in html
    with pytest.raises(EvalError):
        build_report(eval_json=tmp_path / "missing.json")
    with pytest.raises(EvalError):
        build_report()


@pytest.mark.skipif(CHROMIUM is None, reason="chromium not installed")
def test_report_renders_in_headless_chromium(tmp_path):
    page = write_report(render_report(_data(), [{"round": 1, "coverage": 0.2, "direct_errors": 1}]),
                        tmp_path / "report.html")
    png = tmp_path / "shot.png"
    cmd = [CHROMIUM, "--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking",
           "--disable-component-update", "--disable-sync", "--no-first-run", f"--user-data-dir={tmp_path / 'prof'}",
           f"--screenshot={png}", "--window-size=1280,2000", page.resolve().as_uri()]
    subprocess.run(cmd, capture_output=True, timeout=90, check=False)
    assert png.is_file() and png.stat().st_size > 10_000
