"""A self-contained HTML evaluation report: inline CSS, charts as inline SVG, no external files.

    html = render_report(eval_json, rounds)          # eval_json: what `autoverifier eval --json` writes
    Path("reports/report.html").write_text(html)

The charts are drawn here as plain SVG (no JavaScript, fonts or plotting library), so the
file opens anywhere, offline, and diffs as text.
"""

from __future__ import annotations

import json
import os
from collections.abc import Mapping, Sequence
from datetime import UTC, datetime
from html import escape
from pathlib import Path
from typing import Any

PALETTE = ("#1f6feb", "#8a8f98", "#d97706", "#2f9e44", "#9c36b5", "#c92a2a")
VERIFIER_ORDER = ("autoverifier", "fallback_only", "math_verify", "autoverifier_llm", "llm_only")

CSS = """
body{font-family:system-ui,-apple-system,"Segoe UI",Roboto,sans-serif;margin:0;color:#1b1f24;background:#fafbfc}
main{max-width:1100px;margin:0 auto;padding:24px 28px 60px}
h1{font-size:26px;margin:8px 0 4px}h2{font-size:19px;margin:34px 0 8px;border-bottom:1px solid #d0d7de;padding-bottom:4px}
h3{font-size:15px;margin:18px 0 6px}
p.meta{color:#57606a;margin:0 0 12px}
table{border-collapse:collapse;margin:8px 0 12px;font-size:13px;background:#fff}
th,td{border:1px solid #d0d7de;padding:4px 8px;text-align:left;vertical-align:top;overflow-wrap:anywhere}
table.wide{table-layout:fixed;width:100%}
th{background:#f3f5f7}td.num{text-align:right;font-variant-numeric:tabular-nums}
.note{background:#fff8e5;border:1px solid #e6c767;padding:10px 14px;border-radius:6px}
.note li{margin:3px 0}.empty{color:#57606a;font-style:italic}
.best{font-weight:600}.neg{color:#b42318}.pos{color:#1a7f37}
pre{white-space:pre-wrap;word-break:break-word;margin:0;font-size:12px;max-height:9em;overflow:auto}
svg{background:#fff;border:1px solid #d0d7de;border-radius:4px;margin:6px 0}
.legend span{display:inline-block;margin-right:14px;font-size:13px}
p.data{color:#24292f;background:#f6f8fa;border-left:3px solid #8a8f98;padding:4px 10px;margin:6px 0;font-size:13px}
.legend i{display:inline-block;width:11px;height:11px;margin-right:5px;vertical-align:-1px}
"""


def _pct(x: float | None, digits: int = 1) -> str:
    return "–" if x is None else f"{100.0 * x:.{digits}f}%"


def _num(x: Any) -> str:
    if x is None:
        return "–"
    if isinstance(x, float):
        return f"{x:.4g}"
    return escape(str(x))


def _ordered(names: Sequence[str]) -> list[str]:
    known = [v for v in VERIFIER_ORDER if v in names]
    return known + sorted(n for n in names if n not in known)


def _colors(names: Sequence[str]) -> dict[str, str]:
    return {n: PALETTE[i % len(PALETTE)] for i, n in enumerate(names)}


def _legend(colors: Mapping[str, str]) -> str:
    items = "".join(f'<span><i style="background:{c}"></i>{escape(n)}</span>' for n, c in colors.items())
    return f'<div class="legend">{items}</div>'


# --------------------------------------------------------------------------- SVG charts
#
# Every chart has a value axis with ticks, tick labels and a unit. Each drawn value (a bar or a
# point) carries ``data-key``; the table cell that prints the same value carries
# ``data-cell="<chart>:<key>"``, so a test can read a value back from the drawing (through the
# axis ticks) and compare it with the table.


def nice_ticks(lo: float, hi: float, count: int = 5) -> list[float]:
    """Round tick values covering [lo, hi] (steps of 1, 2 or 5 times a power of ten)."""
    import math

    if hi <= lo:
        hi = lo + 1.0
    raw = (hi - lo) / max(count - 1, 1)
    mag = 10 ** math.floor(math.log10(raw))
    step = next(m * mag for m in (1, 2, 2.5, 5, 10) if m * mag >= raw)
    first = math.floor(lo / step + 1e-9) * step
    ticks, t = [], first
    while t < hi + step * 0.999:
        ticks.append(round(t, 10))
        t += step
    return ticks


def _fmt_tick(v: float, unit: str) -> str:
    if unit == "%":
        return f"{100 * v:.0f}%"
    if unit == "pts":
        return f"{v:+.2g}" if v else "0"
    return f"{v:,.0f}" if abs(v - round(v)) < 1e-9 else f"{v:,.1f}"


def _svg_open(chart: str, width: float, height: float, label: str) -> str:
    return (f'<svg xmlns="http://www.w3.org/2000/svg" width="{width:.0f}" height="{height:.0f}" role="img" '
            f'aria-label="{escape(label)}" data-chart="{escape(chart)}">')


def svg_accuracy_chart(benchmarks: Mapping[str, Mapping[str, Mapping[str, Any]]]) -> str:
    """Grouped horizontal bars: accuracy per benchmark and verifier (0-100 %), with Wilson-interval whiskers."""
    benches = sorted(benchmarks)
    verifiers = _ordered(sorted({v for b in benches for v in benchmarks[b]}))
    if not benches or not verifiers:
        return '<p class="empty">No accuracy figures.</p>'
    colors = _colors(verifiers)
    bar, gap, left, width, top = 14, 14, 170, 620, 26
    group_h = bar * len(verifiers) + gap
    plot_h = group_h * len(benches)
    height = top + plot_h + 46
    parts = [_svg_open("accuracy", left + width + 80, height, "Accuracy per benchmark and verifier")]
    for t in nice_ticks(0.0, 1.0, 6):
        x = left + width * t
        parts.append(f'<line x1="{x:.1f}" y1="{top}" x2="{x:.1f}" y2="{top + plot_h}" stroke="#e5e7eb"/>')
        parts.append(f'<text class="tick" data-axis="x" x="{x:.1f}" y="{top + plot_h + 14}" font-size="11" '
                     f'text-anchor="middle" fill="#57606a">{_fmt_tick(t, "%")}</text>')
    parts.append(f'<line x1="{left}" y1="{top + plot_h}" x2="{left + width}" y2="{top + plot_h}" stroke="#57606a"/>')
    parts.append(f'<text x="{left + width / 2}" y="{top + plot_h + 34}" font-size="12" text-anchor="middle">'
                 'accuracy (% of the benchmark\'s examples judged right)</text>')
    for i, b in enumerate(benches):
        y0 = top + 4 + i * group_h
        parts.append(f'<text x="{left - 8}" y="{y0 + group_h / 2 - gap / 2:.1f}" font-size="12" text-anchor="end" '
                     f'dominant-baseline="middle">{escape(b)}</text>')
        for j, v in enumerate(verifiers):
            fig = benchmarks[b].get(v)
            if not fig:
                continue
            y = y0 + j * bar
            acc = float(fig.get("accuracy", 0.0))
            parts.append(f'<rect class="bar" data-key="{escape(b)}/{escape(v)}" x="{left}" y="{y + 1}" '
                         f'width="{width * acc:.1f}" height="{bar - 3}" fill="{colors[v]}"><title>{escape(v)} on '
                         f'{escape(b)}: {_pct(acc)}</title></rect>')
            ci = fig.get("accuracy_ci")
            if ci:
                lo, hi = left + width * float(ci[0]), left + width * float(ci[1])
                ym = y + (bar - 1) / 2
                parts.append(f'<line x1="{lo:.1f}" y1="{ym:.1f}" x2="{hi:.1f}" y2="{ym:.1f}" stroke="#111" '
                             f'stroke-width="1.2"/>')
                for xx in (lo, hi):
                    parts.append(f'<line x1="{xx:.1f}" y1="{ym - 3:.1f}" x2="{xx:.1f}" y2="{ym + 3:.1f}" '
                                 f'stroke="#111" stroke-width="1.2"/>')
            parts.append(f'<text x="{left + width + 6}" y="{y + bar / 2:.1f}" font-size="11" '
                         f'dominant-baseline="middle">{_pct(acc)}</text>')
    parts.append("</svg>")
    return _legend(colors) + "".join(parts)


def _round_key(r: Mapping[str, Any]) -> str:
    return f"{int(r['round']):03d}"


def _round_froze(r: Mapping[str, Any]) -> str:
    f = r.get("figures") or {}
    if "build" in f:
        return str(f.get("build") or "nothing")
    return str(r.get("artifact_version") or "–")


def _column_chart(chart: str, pts: Sequence[Mapping[str, Any]], series: Sequence[tuple[str, str, str]], *,
                  unit: str, axis_label: str, kind: str) -> str:
    """Rounds on the x axis (number and what each froze); ``series`` (key, label, colour) on one
    value axis: lines with points (``kind="line"``) or bars (``kind="bar"``)."""
    left, top, width, plot_h = 70, 16, 640, 170
    n = len(pts)
    step = width / max(n, 1)
    vals = [float(r[k]) for r in pts for k, _, _ in series if r.get(k) is not None]
    if unit == "%":
        ticks = nice_ticks(0.0, 1.0, 6)
    else:
        ticks = nice_ticks(0.0, max(vals + [1.0]), 5)
    vmax = ticks[-1]

    def y_of(v: float) -> float:
        return top + plot_h * (1 - v / vmax)

    parts = [_svg_open(chart, left + width + 20, top + plot_h + 62, axis_label)]
    for t in ticks:
        y = y_of(t)
        parts.append(f'<line x1="{left}" y1="{y:.2f}" x2="{left + width}" y2="{y:.2f}" stroke="#eef0f2"/>')
        parts.append(f'<text class="tick" data-axis="y" x="{left - 6}" y="{y:.2f}" font-size="11" text-anchor="end" '
                     f'dominant-baseline="middle" fill="#57606a">{_fmt_tick(t, unit)}</text>')
    parts.append(f'<line x1="{left}" y1="{top}" x2="{left}" y2="{top + plot_h}" stroke="#57606a"/>')
    parts.append(f'<line x1="{left}" y1="{top + plot_h}" x2="{left + width}" y2="{top + plot_h}" stroke="#57606a"/>')
    parts.append(f'<text x="14" y="{top + plot_h / 2:.1f}" font-size="12" text-anchor="middle" '
                 f'transform="rotate(-90 14 {top + plot_h / 2:.1f})">{escape(axis_label)}</text>')
    bw = step * 0.6 / max(len(series), 1)
    for si, (key, label, color) in enumerate(series):
        line = []
        for i, r in enumerate(pts):
            v = r.get(key)
            if v is None:
                continue
            cx = left + step * (i + 0.5)
            rk = _round_key(r)
            shown = _pct(float(v), 2) if unit == "%" else f"{int(v):,}"
            if kind == "bar":
                x = cx - step * 0.3 + si * bw
                y = y_of(float(v))
                parts.append(f'<rect class="bar" data-key="{rk}/{key}" x="{x:.1f}" y="{y:.2f}" width="{bw * 0.9:.1f}" '
                             f'height="{top + plot_h - y:.2f}" fill="{color}"><title>round {rk}: {escape(label)} '
                             f'{shown}</title></rect>')
            else:
                line.append((cx, y_of(float(v)), rk, shown))
        if line:
            parts.append(f'<polyline points="{" ".join(f"{x:.1f},{y:.2f}" for x, y, _, _ in line)}" fill="none" '
                         f'stroke="{color}" stroke-width="2"/>')
            parts += [f'<circle class="point" data-key="{rk}/{key}" cx="{x:.1f}" cy="{y:.2f}" r="3.5" fill="{color}">'
                      f'<title>round {rk}: {escape(label)} {shown}</title></circle>' for x, y, rk, shown in line]
    for i, r in enumerate(pts):
        cx = left + step * (i + 0.5)
        parts.append(f'<text x="{cx:.1f}" y="{top + plot_h + 15}" font-size="11" text-anchor="middle">'
                     f'{_round_key(r)}</text><text x="{cx:.1f}" y="{top + plot_h + 28}" font-size="10" '
                     f'text-anchor="middle" fill="#57606a">{escape(_round_froze(r))}</text>')
    parts.append(f'<text x="{left + width / 2}" y="{top + plot_h + 48}" font-size="12" text-anchor="middle">'
                 'construction round (and the round build it froze)</text></svg>')
    legend = _legend({label: color for _, label, color in series})
    return legend + "".join(parts)


def svg_rounds_chart(rounds: Sequence[Mapping[str, Any]], chart: str = "rounds") -> str:
    """A config's trace across its round builds: direct coverage and accuracy (% of the pool, one
    axis), direct errors (a count, its own axis) and fallback calls (a count, its own axis)."""
    pts = [r for r in rounds if r.get("round") is not None]
    if not pts:
        return '<p class="empty">No construction rounds recorded in the store.</p>'
    return (
        _column_chart(f"{chart}-rates", pts, [("coverage", "direct coverage", "#1f6feb"),
                                              ("accuracy", "accuracy", "#2f9e44")],
                      unit="%", axis_label="% of pool examples", kind="line")
        + _column_chart(f"{chart}-errors", pts, [("direct_errors", "direct errors", "#c92a2a")],
                        unit="count", axis_label="direct errors (examples)", kind="bar")
        + _column_chart(f"{chart}-calls", pts, [("fallback_calls", "fallback calls", "#8a8f98")],
                        unit="count", axis_label="fallback calls (examples)", kind="bar")
    )


# The ablation axis spans at least this many points each way: a change of a few hundredths
# of a point is drawn small, as it is.
ABLATION_MIN_SPAN_PTS = 1.0


def svg_ablation_chart(ablations: Sequence[Mapping[str, Any]], chart: str = "ablation") -> str:
    """Bars of the accuracy change (points) when one module group is removed, around a zero line
    on a labelled symmetric axis (negative: the group helps)."""
    if not ablations:
        return '<p class="empty">No module group made a direct decision, so there is nothing to ablate.</p>'
    left, width, bar, top = 200, 520, 22, 12
    biggest = max(abs(100 * float(a["delta"])) for a in ablations)
    span = max(nice_ticks(0.0, max(biggest, ABLATION_MIN_SPAN_PTS), 3)[-1], ABLATION_MIN_SPAN_PTS)
    ticks = [t for t in nice_ticks(-span, span, 5) if -span - 1e-9 <= t <= span + 1e-9]
    mid = left + width / 2
    plot_h = bar * len(ablations)

    def x_of(pts: float) -> float:
        return mid + (width / 2) * pts / span

    height = top + plot_h + 50
    parts = [_svg_open(chart, left + width + 90, height, "Removal ablations: accuracy change in points")]
    for t in ticks:
        x = x_of(t)
        parts.append(f'<line x1="{x:.2f}" y1="{top}" x2="{x:.2f}" y2="{top + plot_h}" stroke="#eef0f2"/>')
        parts.append(f'<text class="tick" data-axis="x" x="{x:.2f}" y="{top + plot_h + 14}" font-size="11" '
                     f'text-anchor="middle" fill="#57606a">{_fmt_tick(t, "pts")}</text>')
    parts.append(f'<line class="zero" x1="{mid}" y1="{top - 4}" x2="{mid}" y2="{top + plot_h + 4}" stroke="#1b1f24" '
                 'stroke-width="1.5"/>')
    parts.append(f'<line x1="{left}" y1="{top + plot_h}" x2="{left + width}" y2="{top + plot_h}" stroke="#57606a"/>')
    parts.append(f'<text x="{mid}" y="{top + plot_h + 34}" font-size="12" text-anchor="middle">accuracy change '
                 'when the group is removed (percentage points; left of 0: the group helps)</text>')
    for i, a in enumerate(ablations):
        y = top + i * bar
        d = 100 * float(a["delta"])
        x0, x1 = sorted((mid, x_of(d)))
        color = "#2f9e44" if d > 0 else "#c92a2a"
        g = escape(str(a["group"]))
        parts.append(f'<text x="{left - 8}" y="{y + bar / 2:.1f}" font-size="12" text-anchor="end" '
                     f'dominant-baseline="middle">{g}</text>')
        parts.append(f'<rect class="bar" data-key="{g}" data-sign="{"-" if d < 0 else "+"}" x="{x0:.2f}" y="{y + 4}" '
                     f'width="{x1 - x0:.2f}" height="{bar - 8}" fill="{color}"><title>{g}: {d:+.2f} points</title></rect>')
        parts.append(f'<text x="{left + width + 6}" y="{y + bar / 2:.1f}" font-size="11" '
                     f'dominant-baseline="middle">{d:+.2f} pts</text>')
    parts.append("</svg>")
    return "".join(parts)


# --------------------------------------------------------------------------- tables


def _accuracy_table(data: Mapping[str, Any]) -> str:
    benches = data.get("benchmarks", {})
    verifiers = _ordered(sorted({v for b in benches.values() for v in b}))
    head = "".join(f"<th>{escape(v)}</th>" for v in verifiers)
    rows = []
    for b in sorted(benches):
        best = max((benches[b][v]["accuracy"] for v in verifiers if v in benches[b]), default=None)
        cells = []
        for v in verifiers:
            f = benches[b].get(v)
            if not f:
                cells.append("<td>–</td>")
                continue
            lo, hi = f.get("accuracy_ci") or (None, None)
            cls = "num best" if f["accuracy"] == best else "num"
            cells.append(f'<td class="{cls}" data-cell="accuracy:{escape(b)}/{escape(v)}">{_pct(f["accuracy"], 2)}'
                         f'<br><small>[{_pct(lo)}, {_pct(hi)}] n={f["n"]:,}</small></td>')
        rows.append(f"<tr><th>{escape(b)}</th>{''.join(cells)}</tr>")
    for key, label in (("macro", "macro average"), ("micro", "micro (pooled)")):
        vals = data.get(key) or {}
        if vals:
            cells = "".join(f'<td class="num">{_pct(vals.get(v))}</td>' for v in verifiers)
            rows.append(f"<tr><th>{label}</th>{cells}</tr>")
    return f"<table><tr><th>benchmark</th>{head}</tr>{''.join(rows)}</table>"


def _direct_table(data: Mapping[str, Any]) -> str:
    rows = []
    for b, per in sorted(data.get("benchmarks", {}).items()):
        a = per.get("autoverifier")
        if not a:
            continue
        c = (data.get("corrections") or {}).get(b, {})
        rows.append(
            f"<tr><th>{escape(b)}</th><td class='num'>{_pct(a.get('direct_coverage'))}</td>"
            f"<td class='num'>{_pct(a.get('direct_precision'))}</td><td class='num'>{_num(a.get('direct_errors'))}</td>"
            f"<td class='num'>{_num(a.get('fallback_calls'))}</td><td class='num'>{_num(c.get('fallback_only_calls'))}</td>"
            f"<td class='num'>{_pct(c.get('fallback_calls_avoided'))}</td><td class='num'>{_num(c.get('corrected'))}</td>"
            f"<td class='num'>{_num(c.get('new_errors'))}</td></tr>"
        )
    if not rows:
        return '<p class="empty">No autoverifier results.</p>'
    return ("<table><tr><th>benchmark</th><th>direct coverage</th><th>direct precision</th><th>direct errors</th>"
            "<th>fallback calls</th><th>fallback-only calls</th><th>calls avoided</th>"
            "<th>corrected vs fallback-only</th><th>new errors</th></tr>" + "".join(rows) + "</table>")


def _paired_table(data: Mapping[str, Any]) -> str:
    rows = []
    for scope, comps in sorted((data.get("paired") or {}).items(), key=lambda kv: (kv[0] == "all", kv[0])):
        for name, p in comps.items():
            diff = p.get("mean_diff") or 0.0
            cls = "pos" if diff > 0 else "neg" if diff < 0 else ""
            rows.append(
                f"<tr><td>{escape(scope)}</td><td>{escape(name)}</td><td class='num'>{p['n']}</td>"
                f"<td class='num {cls}'>{100 * diff:+.2f}</td><td class='num'>[{100 * p['ci_low']:+.2f}, "
                f"{100 * p['ci_high']:+.2f}]</td><td class='num'>{_num(p.get('z'))}</td>"
                f"<td class='num'>{p['p_normal']:.3g}</td><td class='num'>{p['a_only_correct']} / "
                f"{p['b_only_correct']}</td><td class='num'>{p['p_mcnemar']:.3g}</td></tr>"
            )
    if not rows:
        return '<p class="empty">No paired comparisons (one verifier only).</p>'
    return ("<table><tr><th>scope</th><th>comparison</th><th>n</th><th>diff (pts)</th><th>95% CI</th><th>z</th>"
            "<th>p (normal)</th><th>only A / only B right</th><th>p (McNemar exact)</th></tr>"
            + "".join(rows) + "</table>")


def _ablation_section(data: Mapping[str, Any]) -> str:
    abl = data.get("ablations") or {}
    if not abl:
        return '<p class="empty">No ablations: they need both autoverifier and fallback_only results.</p>'
    if not any(abl.values()):
        return '<p class="empty">No module group made a direct decision, so there is nothing to ablate.</p>'
    out = []
    for k, scope in enumerate(sorted(abl, key=lambda s: (s != "all", s))):
        items = abl[scope]
        title = "all benchmarks pooled" if scope == "all" else scope
        chart = f"ablation-{k}"
        out.append(f"<h3>{escape(title)}</h3>{svg_ablation_chart(items, chart)}")
        if items:
            rows = "".join(
                f"<tr><td>{escape(str(a['group']))}</td><td class='num'>{a['replaced']:,}</td>"
                f"<td class='num'>{_pct(a['accuracy'], 2)}</td><td class='num' data-cell='{chart}:"
                f"{escape(str(a['group']))}'>{100 * a['delta']:+.2f}</td></tr>"
                for a in items
            )
            out.append("<table><tr><th>group removed</th><th>decisions replaced</th><th>accuracy</th>"
                       f"<th>delta (pts)</th></tr>{rows}</table>")
    return "".join(out)


def _rounds_table(rounds: Sequence[Mapping[str, Any]], chart: str = "rounds") -> str:
    if not rounds:
        return ""
    head = "".join(f"<th>{c}</th>" for c in ("round", "base", "froze", "direct coverage", "accuracy",
                                             "direct errors", "direct precision", "fallback calls", "accepted",
                                             "rejected"))
    body = []
    for r in rounds:
        rk = _round_key(r)
        f = r.get("figures") or {}

        def cell(series: str, key: str, text: str, rk: str = rk) -> str:
            return f"<td class='num' data-cell='{chart}-{series}:{rk}/{key}'>{text}</td>"

        def count(v: Any) -> str:
            return "–" if v is None else f"{int(v):,}"

        body.append(
            f"<tr><td>{rk}</td><td>{escape(str(r.get('base_release') or f.get('base_release') or '–'))}</td>"
            f"<td>{escape(_round_froze(r))}</td>"
            + cell("rates", "coverage", _pct(r.get("coverage"), 2)) + cell("rates", "accuracy", _pct(r.get("accuracy"), 2))
            + cell("errors", "direct_errors", count(r.get("direct_errors")))
            + f"<td class='num'>{_pct(r.get('direct_precision'), 2)}</td>"
            + cell("calls", "fallback_calls", count(r.get("fallback_calls")))
            + f"<td class='num'>{count(r.get('accepted'))}</td><td class='num'>{count(r.get('rejected'))}</td></tr>")
    return f"<table><tr>{head}</tr>{''.join(body)}</table>"


def _rounds_section(rounds: Sequence[Mapping[str, Any]], data: Mapping[str, Any]) -> tuple[str, list[str]]:
    """One trace per construction config: what it is (store, rule bank, rounds, builds, pool), its
    charts and its table. Returns the HTML and notes for the top of the page."""
    sources = data.get("sources") or {}
    where = sources.get("rounds_db") or sources.get("db")
    if not rounds:
        hint = sources.get("rounds_hint")
        return ('<p class="empty">No construction rounds recorded in '
                + (f"<code>{escape(str(where))}</code>" if where else "the given store")
                + (f"; {escape(hint)}" if hint else "") + ".</p>"), []
    notes: list[str] = []
    by_config: dict[str, list[Mapping[str, Any]]] = {}
    for r in rounds:
        by_config.setdefault(str(r.get("config") or ""), []).append(r)
    art = data.get("artifact") or {}
    art_path = str(art.get("path") or "")
    out = []
    for k, (config, rs) in enumerate(sorted(by_config.items())):
        rs = sorted(rs, key=lambda r: int(r["round"]))
        figs = [r.get("figures") or {} for r in rs]
        builds = [_round_froze(r) for r in rs if _round_froze(r) not in ("nothing", "–")]
        bank = next((f.get("rulebank") for f in reversed(figs) if f.get("rulebank")), None)
        pool = next((f for f in reversed(figs) if f.get("pool")), {})
        label = config or "(a store written before configs were recorded)"
        desc = (f"Config <b>{escape(label)}</b>: rounds {_round_key(rs[0])}–{_round_key(rs[-1])}"
                + (f" from <code>{escape(str(where))}</code>" if where else "")
                + (f", round builds {escape(builds[0])}–{escape(builds[-1])} under <code>{escape(str(bank))}/rounds"
                   "</code>" if builds and bank else f", round builds {escape(', '.join(builds))}" if builds else "")
                + (f"; pool {pool['pool']:,} construction examples ({escape(str(pool.get('data')))})"
                   if pool.get("pool") else "") + ". Figures are on the construction pool, not the benchmarks.")
        build_paths = {str(f.get("build_path")) for f in figs if f.get("build_path")}
        if art.get("version") and art_path not in build_paths:
            notes.append(f"The evaluation is of release {art.get('version')}"
                         + (f" ({art_path})" if art_path else "") + f"; the construction rounds of '{label}' "
                         f"froze {', '.join(builds) or 'nothing'}" + (f" under {bank}" if bank else "")
                         + ": that is another artifact, and their figures are on the construction pool.")
        chart = f"rounds-{k}"
        out.append(f"<h3>{escape(label)}</h3><p class='data'>{desc}</p>{svg_rounds_chart(rs, chart)}"
                   f"{_rounds_table(rs, chart)}")
    return "".join(out), notes


def _disagreements(data: Mapping[str, Any]) -> str:
    items = data.get("disagreements") or []
    if not items:
        return '<p class="empty">No autoverifier errors to show.</p>'
    rows = []
    for d in items:
        kind = "direct error" if d.get("direct") else "fallback error"
        texts = "".join(
            f"<b>{k}</b><pre>{escape(str(d[k]))}</pre>" for k in ("question", "reference", "response") if d.get(k)
        ) or '<span class="empty">text not stored (report built from the database)</span>'
        rows.append(
            f"<tr><td>{escape(str(d.get('benchmark')))}<br><small>{escape(str(d.get('example_id')))}</small></td>"
            f"<td>{kind}<br>label {'correct' if d.get('label') else 'incorrect'}, said "
            f"{escape(str(d.get('pred')))}</td><td>{escape(str(d.get('decided_by')))}<br><small>"
            f"{escape(str(d.get('group') or ''))}</small></td><td>{escape(str(d.get('reason')))}</td>"
            f"<td>{texts}</td></tr>"
        )
    cols = "".join(f'<col style="width:{w}%">' for w in (13, 13, 14, 12, 48))
    return (f"<table class='wide'><colgroup>{cols}</colgroup><tr><th>example</th><th>what went wrong</th><th>decided by</th><th>reason</th>"
            "<th>text (truncated)</th></tr>" + "".join(rows) + "</table>")


def _decontamination(data: Mapping[str, Any]) -> str:
    dec = data.get("decontamination")
    if not dec:
        return '<p class="note">No decontamination audit is attached to this evaluation.</p>'
    status = dec.get("status")
    if status != "ok":
        return f'<p class="note">Decontamination audit {escape(str(status))}: {escape(str(dec.get("reason")))}</p>'
    rep = dec.get("report") or {}
    head = (f"<p>Pool: <code>{escape(str(dec.get('pool_config')))}</code>, "
            f"{_num(dec.get('pool_size'))} examples.</p>")
    per = rep.get("per_set") or rep.get("sets") or rep.get("eval_sets")
    if isinstance(per, Mapping) and per and all(isinstance(v, Mapping) for v in per.values()):
        keys = sorted({k for v in per.values() for k, x in v.items() if isinstance(x, (int, float, str, bool))})
        body = "".join(
            f"<tr><th>{escape(str(name))}</th>" + "".join(f"<td class='num'>{_num(v.get(k))}</td>" for k in keys)
            + "</tr>"
            for name, v in sorted(per.items())
        )
        return head + f"<table><tr><th>set</th>{''.join(f'<th>{escape(k)}</th>' for k in keys)}</tr>{body}</table>"
    flat = {k: v for k, v in rep.items() if isinstance(v, (int, float, str, bool)) or v is None}
    body = "".join(f"<tr><th>{escape(str(k))}</th><td>{_num(v)}</td></tr>" for k, v in flat.items())
    rest = {k: v for k, v in rep.items() if k not in flat}
    extra = (f"<pre>{escape(json.dumps(rest, indent=1, default=str)[:6000])}</pre>" if rest else "")
    return head + (f"<table>{body}</table>" if body else "") + extra


def _provenance(data: Mapping[str, Any]) -> str:
    prov = data.get("data") or {}
    art = data.get("artifact") or {}
    rows = "".join(
        f"<tr><th>{escape(b)}</th><td>{escape(str(p.get('kind')))}</td><td class='num'>{_num(p.get('n'))}</td>"
        f"<td class='num'>{_num(p.get('positives'))}</td><td><code>{escape(str(p.get('path')))}</code></td></tr>"
        for b, p in sorted(prov.items())
    )
    table = ("<table><tr><th>benchmark</th><th>data</th><th>n</th><th>labelled correct</th><th>path</th></tr>"
             f"{rows}</table>") if rows else '<p class="empty">Data provenance not recorded.</p>'
    a = (f"<p>Artifact <b>{escape(str(art.get('version')))}</b>, {_num(art.get('modules'))} code modules in groups "
         f"{escape(', '.join(art.get('groups') or []) or 'none')}; fallback <b>{escape(str(art.get('fallback')))}"
         "</b>.</p>") if art else ""
    return a + table


def _eval_data_line(data: Mapping[str, Any]) -> str:
    """Which release, fallback, benchmarks, run and file the evaluation figures come from."""
    art = data.get("artifact") or {}
    run = data.get("run") or {}
    sources = data.get("sources") or {}
    prov = data.get("data") or {}
    benches = sorted(data.get("benchmarks") or {})
    bench_txt = ", ".join(
        f"{escape(b)} ({escape(str(prov[b].get('kind')))}, n={prov[b].get('n'):,})" if b in prov and
        isinstance(prov[b].get("n"), int) else escape(b) for b in benches) or "none"
    db = sources.get("db") or run.get("db")
    origin = (f" from the evaluation JSON <code>{escape(str(sources['eval_json']))}</code>" if sources.get("eval_json")
              else f" from the store <code>{escape(str(db))}</code>" if db else "")
    release = (f"release <b>{escape(str(art.get('version')))}</b>"
               + (f" (<code>{escape(str(art.get('path')))}</code>)" if art.get("path") else "")
               + f", fallback {escape(str(art.get('fallback')))}") if art else "release not recorded"
    return (f"<p class='data'>Data: {release}; benchmarks {bench_txt}; run "
            f"{escape(str(run.get('run_id', '–')))}{origin}.</p>")


def render_report(data: Mapping[str, Any], rounds: Sequence[Mapping[str, Any]] = (),
                  *, title: str = "AutoVerifier evaluation") -> str:
    """The full HTML page for an evaluation JSON and the store's construction rounds. Every
    section says which data it shows (release, store, rounds, benchmarks)."""
    run = data.get("run") or {}
    notes = list(data.get("notes") or [])
    rounds_html, round_notes = _rounds_section(rounds, data)
    notes += round_notes
    if not rounds:
        notes.append("No construction rounds recorded in the store; the per-round section is empty.")
    notes_html = "".join(f"<li>{escape(n)}</li>" for n in notes)
    generated = datetime.now(UTC).strftime("%Y-%m-%d %H:%M UTC")
    eval_line = _eval_data_line(data)
    sections = [
        f"<h1>{escape(title)}</h1>",
        f'<p class="meta">Run {escape(str(run.get("run_id", "–")))} · generated {generated} · '
        f'{_num(run.get("elapsed_s"))} s</p>',
        eval_line,
        f'<div class="note"><b>Read this first</b><ul>{notes_html}</ul></div>' if notes_html else "",
        "<h2>Accuracy per benchmark</h2>", eval_line,
        "<p>Bars: accuracy (% of each benchmark's examples); whiskers: 95% Wilson interval.</p>",
        svg_accuracy_chart(data.get("benchmarks") or {}),
        _accuracy_table(data),
        "<h2>Direct decisions and fallback calls</h2>", eval_line,
        _direct_table(data),
        "<h2>Paired comparisons</h2>", eval_line, "<p>Per-example correctness differences (A − B): paired normal "
        "approximation and exact McNemar test.</p>",
        _paired_table(data),
        "<h2>Construction rounds: coverage, accuracy, direct errors and fallback calls per round</h2>",
        "<p>Each config's rounds across the round builds they froze: rates on a % axis, direct errors and "
        "fallback calls as counts on axes of their own.</p>",
        rounds_html,
        "<h2>Module-group contributions (removal ablations)</h2>", eval_line, "<p>Each group's direct decisions "
        "replaced by the fallback-only verdict on the same examples, everything else unchanged.</p>",
        _ablation_section(data),
        "<h2>Worst disagreements</h2>", eval_line, "<p>Examples autoverifier gets wrong, direct errors first.</p>",
        _disagreements(data),
        "<h2>Decontamination</h2>",
        _decontamination(data),
        "<h2>Data provenance</h2>",
        _provenance(data),
    ]
    return ("<!DOCTYPE html><html lang='en'><head><meta charset='utf-8'>"
            f"<meta name='viewport' content='width=device-width,initial-scale=1'><title>{escape(title)}</title>"
            f"<style>{CSS}</style></head><body><main>{''.join(sections)}</main></body></html>\n")


def load_rounds(db: str | os.PathLike[str] | None, config: str | None = None) -> list[dict[str, Any]]:
    """The finished construction rounds in a store (every config's, or ``config``'s), oldest first."""
    from tasks.data.store import Store

    if not db or not Path(db).is_file():
        return []
    with Store(db) as st:  # opened for writing: a store of an older schema is migrated on open
        return st.rounds(config)


def build_report(
    *, eval_json: str | os.PathLike[str] | None = None, db: str | os.PathLike[str] | None = None,
    rounds_db: str | os.PathLike[str] | None = None, config: str | None = None,
) -> tuple[dict[str, Any], list[dict[str, Any]]]:
    """The evaluation data and construction rounds for a report.

    With ``eval_json`` the evaluation comes from that file; otherwise the newest run in the
    database's ``eval_results`` is summarised again (no example texts or decontamination then).
    Rounds come from ``rounds_db`` when given, else from ``db`` (``config``: one config's).
    """
    from tasks.evaluate.runner import EvalError, load_results, summarize

    data: dict[str, Any]
    if eval_json is not None:
        p = Path(eval_json)
        if not p.is_file():
            raise EvalError(f"evaluation JSON not found: {p}")
        data = json.loads(p.read_text(encoding="utf-8"))
        if "benchmarks" not in data:
            raise EvalError(f"{p} is not an evaluation JSON (no 'benchmarks' key)")
    elif db is not None:
        run_id, results = load_results(db)
        if not results:
            raise EvalError(f"no evaluation results in {db}; run `autoverifier eval` first")
        data = summarize(results)
        data["run"] = {"run_id": run_id, "db": str(db)}
        data["notes"] = ["Rebuilt from the database: example texts and the decontamination audit are not stored "
                         "there; pass --eval-json for the full report."]
    else:
        raise EvalError("give an evaluation JSON or a database")
    source = rounds_db if rounds_db is not None else db
    rounds = load_rounds(source, config)
    data["sources"] = {"eval_json": str(eval_json) if eval_json else None, "db": str(db) if db else None,
                       "rounds_db": str(source) if source else None}
    if not rounds:
        demo = Path("data/demo/autoverifier.duckdb")
        if demo.is_file() and (source is None or Path(source).resolve() != demo.resolve()):
            data["sources"]["rounds_hint"] = f"the demo's rounds are in {demo}: pass --rounds-db {demo}"
    return data, rounds


def write_report(html: str, out: str | os.PathLike[str]) -> Path:
    """Write the HTML file (creating parent folders)."""
    p = Path(out)
    p.parent.mkdir(parents=True, exist_ok=True)
    p.write_text(html, encoding="utf-8")
    return p
