"""The report's charts say what its tables say, as Chromium draws them.

Headless Chromium lays the report out; a script added to a copy of the page measures every
axis tick label and every bar or point. From the ticks (their labels and positions) we fit the
axis, read each drawn value back from its bar's edge or its point's centre, and compare it with
the table cell that prints the same value. A chart that draws 8 errors at full height on a
0-100 % axis, a bar of the wrong length, or a missing axis fails here.
"""

from __future__ import annotations

import json
import re
import shutil
import subprocess
from html import unescape
from pathlib import Path

import pytest

from tasks.evaluate.report import render_report, write_report
from tests.test_report import _data

CHROMIUM = shutil.which("chromium") or ("/usr/bin/chromium" if Path("/usr/bin/chromium").exists() else None)
pytestmark = pytest.mark.skipif(CHROMIUM is None, reason="chromium not installed")

MEASURE = """<script>
const charts = {};
for (const svg of document.querySelectorAll('svg[data-chart]')) {
  const box = e => { const b = e.getBoundingClientRect(); return {left: b.left, right: b.right, top: b.top, bottom: b.bottom}; };
  charts[svg.dataset.chart] = {
    ticks: [...svg.querySelectorAll('text.tick')].map(t => ({axis: t.dataset.axis, text: t.textContent, ...box(t)})),
    marks: [...svg.querySelectorAll('rect.bar, circle.point')].map(m => ({key: m.dataset.key, kind: m.tagName,
            sign: m.dataset.sign || '', ...box(m)})),
  };
}
const cells = {};
for (const c of document.querySelectorAll('[data-cell]')) cells[c.dataset.cell] = c.textContent;
const pre = document.createElement('pre'); pre.id = 'measure';
pre.textContent = JSON.stringify({charts, cells}); document.body.appendChild(pre);
</script>"""

CHROMIUM_FLAGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking",
                  "--disable-component-update", "--disable-sync", "--no-first-run", "--disable-quic"]


def measure(html: str, tmp: Path) -> dict:
    page = tmp / "measured.html"
    page.write_text(html.replace("</body>", MEASURE + "</body>"), encoding="utf-8")
    r = subprocess.run([CHROMIUM, *CHROMIUM_FLAGS, f"--user-data-dir={tmp / 'profile'}", "--window-size=1280,4000",
                        "--virtual-time-budget=5000", "--dump-dom", page.resolve().as_uri()],
                       capture_output=True, text=True, timeout=120)
    m = re.search(r'<pre id="measure">(.*?)</pre>', r.stdout, re.S)
    assert m, r.stderr[-2000:]
    return json.loads(unescape(m.group(1)))


def number(text: str) -> float:
    """The first number of a label or cell: '46.32%' -> 0.4632, '+0.25' -> 0.25, '2,677' -> 2677."""
    m = re.search(r"[-+−]?\d[\d,]*(?:\.\d+)?%?", text)
    assert m, text
    t = m.group(0).replace(",", "").replace("−", "-")
    return float(t[:-1]) / 100 if t.endswith("%") else float(t)


def chart_problems(measured: dict) -> list[str]:
    """Every disagreement between a drawn value and its table cell (an empty list: they agree)."""
    problems = []
    for name, chart in measured["charts"].items():
        ticks = chart["ticks"]
        if len(ticks) < 2:
            problems.append(f"{name}: no value axis (fewer than two tick labels)")
            continue
        axis = ticks[0]["axis"]
        pos = [((t["left"] + t["right"]) / 2 if axis == "x" else (t["top"] + t["bottom"]) / 2) for t in ticks]
        vals = [number(t["text"]) for t in ticks]
        n = len(vals)
        mv, mp = sum(vals) / n, sum(pos) / n
        slope = sum((v - mv) * (q - mp) for v, q in zip(vals, pos, strict=True)) / sum((v - mv) ** 2 for v in vals)
        worst_tick = max(abs(mp + slope * (v - mv) - q) for v, q in zip(vals, pos, strict=True))
        if worst_tick > 2.0:
            problems.append(f"{name}: tick labels are not evenly placed (off by {worst_tick:.1f} px)")
        tolerance = 2.5 / abs(slope)  # two and a half pixels, in the axis's units

        def value_at(px: float) -> float:
            return mv + (px - mp) / slope  # noqa: B023 - the axis of this chart

        if not chart["marks"]:
            problems.append(f"{name}: nothing drawn")
        for mark in chart["marks"]:
            cell = measured["cells"].get(f"{name}:{mark['key']}")
            if cell is None:
                problems.append(f"{name}: {mark['key']} is drawn but printed in no table")
                continue
            if mark["kind"] == "circle":
                px = (mark["left"] + mark["right"]) / 2 if axis == "x" else (mark["top"] + mark["bottom"]) / 2
            elif axis == "x":
                px = mark["left"] if mark["sign"] == "-" else mark["right"]
            else:
                px = mark["top"]
            drawn, printed = value_at(px), number(cell)
            if abs(drawn - printed) > tolerance + 0.005 * abs(printed):
                problems.append(f"{name}: {mark['key']} drawn at {drawn:.4g}, the table says {printed:.4g}")
    return problems


ROUNDS = [
    {"config": "demo", "round": 1, "artifact_version": "r0001", "base_release": "r0000", "coverage": 0.4632043,
     "accuracy": 0.8035, "direct_errors": 8, "direct_precision": 0.9965, "fallback_calls": 2677, "accepted": 3,
     "rejected": 25, "figures": {"build": "r0001", "build_path": "/x/rounds/r0001", "rulebank": "/x", "pool": 4987,
                                 "data": "sources"}},
    {"config": "demo", "round": 2, "artifact_version": "r0002", "base_release": "r0001", "coverage": 0.4905,
     "accuracy": 0.8079, "direct_errors": 8, "direct_precision": 0.9967, "fallback_calls": 2541, "accepted": 4,
     "rejected": 20, "figures": {"build": "r0002", "build_path": "/x/rounds/r0002", "rulebank": "/x"}},
    {"config": "demo", "round": 3, "artifact_version": "r0002", "base_release": "r0002", "coverage": 0.4905,
     "accuracy": 0.8079, "direct_errors": 3, "direct_precision": 0.9969, "fallback_calls": 2541, "accepted": 0,
     "rejected": 22, "figures": {"build": None, "rulebank": "/x"}},
]


def _report() -> str:
    data = _data()
    data["ablations"]["all"] = [{"group": "numeric", "replaced": 300, "accuracy": 0.79, "delta": -0.0018},
                                {"group": "verdict_matching", "replaced": 120, "accuracy": 0.81, "delta": 0.004},
                                {"group": "answer_extraction", "replaced": 40, "accuracy": 0.78, "delta": -0.012}]
    return render_report(data, ROUNDS)


def test_every_chart_draws_what_its_table_prints(tmp_path) -> None:
    measured = measure(_report(), tmp_path)
    names = set(measured["charts"])
    assert {"accuracy", "rounds-0-rates", "rounds-0-errors", "rounds-0-calls", "ablation-0"} <= names
    assert chart_problems(measured) == []
    # direct errors are counts on their own axis, not on the coverage axis
    err_ticks = [t["text"] for t in measured["charts"]["rounds-0-errors"]["ticks"]]
    assert not any("%" in t for t in err_ticks) and number(err_ticks[-1]) < 20
    # the ablation axis has a zero and labelled ticks either side
    abl_ticks = [number(t["text"]) for t in measured["charts"]["ablation-0"]["ticks"]]
    assert 0.0 in abl_ticks and min(abl_ticks) < 0 < max(abl_ticks)


@pytest.mark.parametrize("tamper", ["3 errors at full height", "a bar one third too long", "no axis"])
def test_a_chart_that_disagrees_with_its_data_is_caught(tamper, tmp_path) -> None:
    html = _report()
    before = html
    if tamper == "3 errors at full height":  # the old drawing: any error count filling the chart
        html = re.sub(r'(<rect class="bar" data-key="003/direct_errors" x="[\d.]+" y=")[\d.]+(" width="[\d.]+" '
                      r'height=")[\d.]+', r"\g<1>16.00\g<2>170.00", html)
    elif tamper == "a bar one third too long":
        html = re.sub(r'(data-key="verifybench/autoverifier" x="\d+" y="[\d.]+" width=")([\d.]+)',
                      lambda m: m.group(1) + f"{float(m.group(2)) * 4 / 3:.1f}", html)
    else:
        html = re.sub(r'<text class="tick" data-axis="y"[^>]*>[^<]*</text>', "", html)
    assert html != before
    problems = chart_problems(measure(html, tmp_path))
    assert problems, tamper


def test_report_screenshot(tmp_path) -> None:
    """The page renders (what a person sees), with the rounds and ablation charts in it."""
    page = write_report(_report(), tmp_path / "report.html")
    png = tmp_path / "report.png"
    subprocess.run([CHROMIUM, *CHROMIUM_FLAGS, f"--user-data-dir={tmp_path / 'profile'}", f"--screenshot={png}",
                    "--window-size=1200,3000", page.resolve().as_uri()], capture_output=True, timeout=120, check=False)
    assert png.is_file() and png.stat().st_size > 20_000
