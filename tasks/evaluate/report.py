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


def svg_accuracy_chart(benchmarks: Mapping[str, Mapping[str, Mapping[str, Any]]]) -> str:
    """Grouped horizontal bars: accuracy per benchmark and verifier, with Wilson-interval whiskers."""
    benches = sorted(benchmarks)
    verifiers = _ordered(sorted({v for b in benches for v in benchmarks[b]}))
    if not benches or not verifiers:
        return '<p class="empty">No accuracy figures.</p>'
    colors = _colors(verifiers)
    bar, gap, left, width = 14, 14, 170, 620
    group_h = bar * len(verifiers) + gap
    height = 30 + group_h * len(benches) + 20
    parts = [f'<svg xmlns="http://www.w3.org/2000/svg" width="{left + width + 80}" height="{height}" '
             f'role="img" aria-label="Accuracy per benchmark">']
    for t in range(0, 11, 2):
        x = left + width * t / 10
        parts.append(f'<line x1="{x:.1f}" y1="20" x2="{x:.1f}" y2="{height - 20}" stroke="#e5e7eb"/>')
        parts.append(f'<text x="{x:.1f}" y="14" font-size="11" text-anchor="middle" fill="#57606a">{t * 10}%</text>')
    for i, b in enumerate(benches):
        y0 = 24 + i * group_h
        parts.append(f'<text x="{left - 8}" y="{y0 + group_h / 2:.1f}" font-size="12" text-anchor="end" '
                     f'dominant-baseline="middle">{escape(b)}</text>')
        for j, v in enumerate(verifiers):
            fig = benchmarks[b].get(v)
            if not fig:
                continue
            y = y0 + j * bar
            acc = float(fig.get("accuracy", 0.0))
            parts.append(f'<rect x="{left}" y="{y + 1}" width="{width * acc:.1f}" height="{bar - 3}" '
                         f'fill="{colors[v]}"><title>{escape(v)}: {_pct(acc)}</title></rect>')
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


def svg_rounds_chart(rounds: Sequence[Mapping[str, Any]]) -> str:
    """Direct coverage (line, left axis) and direct errors (bars, right axis) per construction round."""
    pts = [r for r in rounds if r.get("round") is not None]
    if not pts:
        return '<p class="empty">No construction rounds recorded in the store.</p>'
    left, top, width, height = 60, 20, 640, 200
    n = len(pts)
    max_err = max([int(r.get("direct_errors") or 0) for r in pts] + [1])
    step = width / max(n, 1)
    parts = [f'<svg xmlns="http://www.w3.org/2000/svg" width="{left + width + 70}" height="{top + height + 50}" '
             f'role="img" aria-label="Coverage per round">']
    for t in range(0, 11, 2):
        y = top + height * (1 - t / 10)
        parts.append(f'<line x1="{left}" y1="{y:.1f}" x2="{left + width}" y2="{y:.1f}" stroke="#eef0f2"/>')
        parts.append(f'<text x="{left - 6}" y="{y + 4:.1f}" font-size="11" text-anchor="end" fill="#1f6feb">'
                     f'{t * 10}%</text>')
    parts.append(f'<text x="{left + width + 8}" y="{top + 4}" font-size="11" fill="#c92a2a">{max_err} err</text>')
    line = []
    for i, r in enumerate(pts):
        cx = left + step * (i + 0.5)
        err = int(r.get("direct_errors") or 0)
        bh = height * err / max_err
        parts.append(f'<rect x="{cx - step * 0.2:.1f}" y="{top + height - bh:.1f}" width="{step * 0.4:.1f}" '
                     f'height="{bh:.1f}" fill="#c92a2a" opacity="0.55"><title>round {r["round"]}: {err} direct '
                     f'errors</title></rect>')
        cov = r.get("coverage")
        if cov is not None:
            line.append((cx, top + height * (1 - float(cov)), float(cov), r["round"]))
        parts.append(f'<text x="{cx:.1f}" y="{top + height + 16}" font-size="11" text-anchor="middle">'
                     f'{escape(str(r["round"]))}</text>')
    if line:
        path = " ".join(f"{x:.1f},{y:.1f}" for x, y, _, _ in line)
        parts.append(f'<polyline points="{path}" fill="none" stroke="#1f6feb" stroke-width="2"/>')
        for x, y, c, rd in line:
            parts.append(f'<circle cx="{x:.1f}" cy="{y:.1f}" r="3.5" fill="#1f6feb"><title>round {rd}: '
                         f'coverage {_pct(c)}</title></circle>')
    parts.append(f'<text x="{left + width / 2}" y="{top + height + 36}" font-size="12" text-anchor="middle">'
                 f'construction round</text></svg>')
    return _legend({"direct coverage": "#1f6feb", "direct errors": "#c92a2a"}) + "".join(parts)


def svg_ablation_chart(ablations: Sequence[Mapping[str, Any]]) -> str:
    """Bars of the accuracy change when one module group is removed (negative: the group helps)."""
    if not ablations:
        return '<p class="empty">No module group made a direct decision, so there is nothing to ablate.</p>'
    left, width, bar = 200, 520, 20
    span = max(abs(float(a["delta"])) for a in ablations) or 0.01
    mid = left + width / 2
    height = 30 + bar * len(ablations) + 10
    parts = [f'<svg xmlns="http://www.w3.org/2000/svg" width="{left + width + 90}" height="{height}" '
             f'role="img" aria-label="Removal ablations">',
             f'<line x1="{mid}" y1="10" x2="{mid}" y2="{height - 6}" stroke="#57606a"/>',
             f'<text x="{mid}" y="12" font-size="11" text-anchor="middle" fill="#57606a">0</text>']
    for i, a in enumerate(ablations):
        y = 22 + i * bar
        d = float(a["delta"])
        w = (width / 2) * abs(d) / span
        x = mid if d >= 0 else mid - w
        color = "#2f9e44" if d > 0 else "#c92a2a"
        parts.append(f'<text x="{left - 8}" y="{y + bar / 2:.1f}" font-size="12" text-anchor="end" '
                     f'dominant-baseline="middle">{escape(str(a["group"]))}</text>')
        parts.append(f'<rect x="{x:.1f}" y="{y + 3}" width="{max(w, 0.5):.1f}" height="{bar - 6}" fill="{color}">'
                     f'<title>{escape(str(a["group"]))}: {100 * d:+.2f} points</title></rect>')
        parts.append(f'<text x="{left + width + 6}" y="{y + bar / 2:.1f}" font-size="11" '
                     f'dominant-baseline="middle">{100 * d:+.2f} pts</text>')
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
            cells.append(f'<td class="{cls}">{_pct(f["accuracy"])}<br><small>[{_pct(lo)}, {_pct(hi)}] '
                         f'n={f["n"]}</small></td>')
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
    for scope in sorted(abl, key=lambda s: (s != "all", s)):
        items = abl[scope]
        title = "all benchmarks pooled" if scope == "all" else scope
        out.append(f"<h3>{escape(title)}</h3>{svg_ablation_chart(items)}")
        if items:
            rows = "".join(
                f"<tr><td>{escape(str(a['group']))}</td><td class='num'>{a['replaced']}</td>"
                f"<td class='num'>{_pct(a['accuracy'], 2)}</td><td class='num'>{100 * a['delta']:+.2f}</td></tr>"
                for a in items
            )
            out.append("<table><tr><th>group removed</th><th>decisions replaced</th><th>accuracy</th>"
                       f"<th>delta (pts)</th></tr>{rows}</table>")
    return "".join(out)


def _rounds_table(rounds: Sequence[Mapping[str, Any]]) -> str:
    if not rounds:
        return ""
    cols = [c for c in ("round", "artifact_version", "coverage", "direct_errors", "direct_precision", "accuracy",
                        "fallback_calls", "accepted", "rejected") if any(c in r for r in rounds)]
    head = "".join(f"<th>{escape(c)}</th>" for c in cols)
    body = []
    for r in rounds:
        cells = []
        for c in cols:
            v = r.get(c)
            txt = _pct(v) if c in ("coverage", "direct_precision", "accuracy") and v is not None else _num(v)
            cells.append(f"<td class='num'>{txt}</td>")
        body.append(f"<tr>{''.join(cells)}</tr>")
    return f"<table><tr>{head}</tr>{''.join(body)}</table>"


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


def render_report(data: Mapping[str, Any], rounds: Sequence[Mapping[str, Any]] = (),
                  *, title: str = "AutoVerifier evaluation") -> str:
    """The full HTML page for an evaluation JSON and the store's construction rounds."""
    run = data.get("run") or {}
    notes = list(data.get("notes") or [])
    if not rounds:
        notes.append("No construction rounds recorded in the store; the per-round section is empty.")
    notes_html = "".join(f"<li>{escape(n)}</li>" for n in notes)
    generated = datetime.now(UTC).strftime("%Y-%m-%d %H:%M UTC")
    sections = [
        f"<h1>{escape(title)}</h1>",
        f'<p class="meta">Run {escape(str(run.get("run_id", "–")))} · generated {generated} · '
        f'{_num(run.get("elapsed_s"))} s</p>',
        f'<div class="note"><b>Read this first</b><ul>{notes_html}</ul></div>' if notes_html else "",
        "<h2>Accuracy per benchmark</h2><p>Bars: accuracy; whiskers: 95% Wilson interval.</p>",
        svg_accuracy_chart(data.get("benchmarks") or {}),
        _accuracy_table(data),
        "<h2>Direct decisions and fallback calls</h2>",
        _direct_table(data),
        "<h2>Paired comparisons</h2><p>Per-example correctness differences (A − B): paired normal "
        "approximation and exact McNemar test.</p>",
        _paired_table(data),
        "<h2>Coverage and direct errors per construction round</h2>",
        svg_rounds_chart(rounds),
        _rounds_table(rounds),
        "<h2>Module-group contributions (removal ablations)</h2><p>Each group's direct decisions replaced by "
        "the fallback-only verdict on the same examples, everything else unchanged.</p>",
        _ablation_section(data),
        "<h2>Worst disagreements</h2><p>Examples autoverifier gets wrong, direct errors first.</p>",
        _disagreements(data),
        "<h2>Decontamination</h2>",
        _decontamination(data),
        "<h2>Data provenance</h2>",
        _provenance(data),
    ]
    return ("<!DOCTYPE html><html lang='en'><head><meta charset='utf-8'>"
            f"<meta name='viewport' content='width=device-width,initial-scale=1'><title>{escape(title)}</title>"
            f"<style>{CSS}</style></head><body><main>{''.join(sections)}</main></body></html>\n")


def build_report(
    *, eval_json: str | os.PathLike[str] | None = None, db: str | os.PathLike[str] | None = None
) -> tuple[dict[str, Any], list[dict[str, Any]]]:
    """The evaluation data and construction rounds for a report.

    With ``eval_json`` the evaluation comes from that file; otherwise the newest run in the
    database's ``eval_results`` is summarised again (no example texts or decontamination then).
    """
    from tasks.evaluate.runner import EvalError, load_results, load_rounds, summarize

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
    return data, load_rounds(db) if db is not None else []


def write_report(html: str, out: str | os.PathLike[str]) -> Path:
    """Write the HTML file (creating parent folders)."""
    p = Path(out)
    p.parent.mkdir(parents=True, exist_ok=True)
    p.write_text(html, encoding="utf-8")
    return p
