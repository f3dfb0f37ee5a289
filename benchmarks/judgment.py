"""Judgment quality of the shipped verifier, against a baseline commit, in one run.

    .venv/bin/python benchmarks/judgment.py [--suite golden|hedges|samples|all]
        [--baseline COMMIT|none] [--json out.json] [--write-doc]

Measures, for the offline verifier (code modules, then the embedded offline judge):

* the golden suite (``tests/golden/judgment/*.jsonl``): accuracy per file and overall, false
  positives (labelled incorrect, judged correct) and false negatives;
* the hedge suite (``tests/golden/hedges/``): accuracy, and false positives of the offline
  verifier and of the direct path (``fallback="none"``: modules alone) counted separately;
* the shared benchmark samples (``$AUTOVERIFIER_SHARED`` or ``../shared`` next to the repo,
  ``benchmarks/{verifybench,verifybench_hard,sci_verifybench}/sample.jsonl``): accuracy with a
  95% Wilson interval, false positives and negatives, direct coverage (share decided by a code
  module) and direct precision (share of those decisions that agree with the label).

The same figures are computed for a baseline: the verifier as of ``--baseline`` (default
``fd65720``, the commit that ships release r0003), materialised with ``git archive`` into a
temporary directory and run in a subprocess with ``PYTHONPATH`` pointing there, so the old code
and its own ``rulebank/`` never mix with the current code in one process.

``--write-doc`` (with ``--suite all``) rewrites the table between the ``judgment-table``
markers of ``docs/criterion.md``. The script exits 0 whether or not the targets are met; the
target lines say which are.
"""

from __future__ import annotations

import argparse
import json
import math
import os
import subprocess
import sys
import tempfile
import time
from collections import defaultdict
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parent.parent
DOC = REPO / "docs" / "criterion.md"
DOC_START, DOC_END = "<!-- judgment-table:start -->", "<!-- judgment-table:end -->"
DEFAULT_BASELINE = "fd65720"
SAMPLES = ("verifybench", "verifybench_hard", "sci_verifybench")
# The offline verifier's accuracy on the samples with release r0003, as quoted when the targets
# were set; shown next to the baseline measured in the same run.
R0003_QUOTED = {"verifybench": 82.4, "verifybench_hard": 78.7, "sci_verifybench": 65.1}
GOLDEN_TARGET = 0.98
Z95 = 1.959963984540054


# ---------------------------------------------------------------- rows


def shared_dir() -> Path:
    return Path(os.environ.get("AUTOVERIFIER_SHARED", REPO.parent / "shared"))


def golden_rows(suite: str) -> list[dict[str, Any]]:
    from tests.golden_cases import load_suite

    return [{"suite": "golden" if suite == "judgment" else "hedges", "file": c["file"], "id": c["id"],
             "question": c["question"], "reference": c["reference"], "response": c["response"],
             "label": c["label"], "reason_prefix": c.get("reason_prefix")} for c in load_suite(suite)]


def sample_rows(notes: list[str]) -> list[dict[str, Any]]:
    root = shared_dir() / "benchmarks"
    rows: list[dict[str, Any]] = []
    for name in SAMPLES:
        path = root / name / "sample.jsonl"
        if not path.is_file():
            notes.append(f"sample {name} skipped: {path} not found")
            continue
        for i, line in enumerate(path.read_text(encoding="utf-8").splitlines()):
            if not line.strip():
                continue
            d = json.loads(line)
            gold = d.get("gold_ans")
            if gold not in ("[Correct]", "[Incorrect]"):
                notes.append(f"sample {name} line {i + 1} skipped: gold_ans {gold!r}")
                continue
            rows.append({"suite": "samples", "file": name, "id": f"{name}-{i + 1}",
                         "question": d.get("question", ""), "reference": d.get("answer", ""),
                         "response": d.get("model_ans", ""), "label": gold == "[Correct]",
                         "reason_prefix": None})
    return rows


# ---------------------------------------------------------------- judging (also the worker's code)


def judge_rows(rows: list[dict[str, Any]]) -> dict[str, Any]:
    """Verdicts of the offline verifier and of the direct path, for whatever ``verifier_runtime``
    is importable: the current code here, the baseline's inside the worker subprocess."""
    import verifier_runtime
    from verifier_runtime import load_verifier

    offline = load_verifier(fallback="offline")
    direct = load_verifier(fallback="none")
    t0 = time.perf_counter()
    verdicts = []
    for r in rows:
        a = offline.verify(r["question"], r["reference"], r["response"])
        b = direct.verify(r["question"], r["reference"], r["response"])
        verdicts.append({"offline": a.correct, "decided_by": a.decided_by, "reason": a.reason,
                         "direct": b.correct, "direct_reason": b.reason})
    return {"artifact_version": offline.artifact_version, "module": str(Path(verifier_runtime.__file__).parent),
            "seconds": time.perf_counter() - t0, "verdicts": verdicts}


def worker_main(in_path: str, out_path: str) -> None:
    rows = [json.loads(line) for line in Path(in_path).read_text(encoding="utf-8").splitlines() if line]
    Path(out_path).write_text(json.dumps(judge_rows(rows)), encoding="utf-8")


def run_baseline(commit: str, rows: list[dict[str, Any]]) -> dict[str, Any]:
    """Judge ``rows`` with the verifier as of ``commit``, in a subprocess over a ``git archive``."""
    sha = subprocess.run(["git", "-C", str(REPO), "rev-parse", "--verify", f"{commit}^{{commit}}"],
                         capture_output=True, text=True, check=True).stdout.strip()
    with tempfile.TemporaryDirectory(prefix="judgment-baseline-") as tmp:
        src = Path(tmp) / "src"
        src.mkdir()
        archive = subprocess.run(["git", "-C", str(REPO), "archive", sha], capture_output=True, check=True)
        subprocess.run(["tar", "-x", "-C", str(src)], input=archive.stdout, check=True)
        in_path, out_path = Path(tmp) / "rows.jsonl", Path(tmp) / "verdicts.json"
        in_path.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
        env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "AUTOVERIFIER_RULEBANK")}
        env["PYTHONPATH"] = str(src)
        proc = subprocess.run([sys.executable, str(Path(__file__).resolve()), "--worker", str(in_path), str(out_path)],
                              cwd=tmp, env=env, capture_output=True, text=True)
        if proc.returncode != 0:
            raise RuntimeError(f"baseline worker failed ({proc.returncode}):\n{proc.stderr[-4000:]}")
        result = json.loads(out_path.read_text(encoding="utf-8"))
        if not Path(result["module"]).resolve().is_relative_to(src.resolve()):
            raise RuntimeError(f"baseline worker imported {result['module']}, not the archived commit")
    result["commit"] = sha[:7]
    return result


# ---------------------------------------------------------------- figures


def wilson(k: int, n: int, z: float = Z95) -> tuple[float, float]:
    if n == 0:
        return (0.0, 0.0)
    p = k / n
    centre = (p + z * z / (2 * n)) / (1 + z * z / n)
    half = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / (1 + z * z / n)
    return (max(0.0, centre - half), min(1.0, centre + half))


def figures(rows: list[dict[str, Any]], verdicts: list[dict[str, Any]]) -> dict[str, Any]:
    n = len(rows)
    right = sum(v["offline"] is r["label"] for r, v in zip(rows, verdicts, strict=True))
    fp = sum(v["offline"] is True and not r["label"] for r, v in zip(rows, verdicts, strict=True))
    fn = sum(v["offline"] is not True and r["label"] for r, v in zip(rows, verdicts, strict=True))
    decided = [(r, v) for r, v in zip(rows, verdicts, strict=True) if v["direct"] is not None]
    direct_right = sum(v["direct"] is r["label"] for r, v in decided)
    direct_fp = sum(v["direct"] is True and not r["label"] for r, v in decided)
    lo, hi = wilson(right, n)
    with_prefix = [(r, v) for r, v in zip(rows, verdicts, strict=True) if r.get("reason_prefix")]
    return {
        "n": n, "correct": right, "accuracy": right / n if n else 0.0, "ci95": [lo, hi],
        "false_positives": fp, "false_negatives": fn,
        "direct_decided": len(decided), "direct_coverage": len(decided) / n if n else 0.0,
        "direct_precision": direct_right / len(decided) if decided else None,
        "direct_false_positives": direct_fp,
        "reason_prefix_cases": len(with_prefix),
        "reason_prefix_matched": sum(r["reason_prefix"] in v["reason"] for r, v in with_prefix),
    }


def grouped(rows: list[dict[str, Any]], verdicts: list[dict[str, Any]], suite: str) -> dict[str, Any]:
    by_file: dict[str, list[int]] = defaultdict(list)
    for i, r in enumerate(rows):
        if r["suite"] == suite:
            by_file[r["file"]].append(i)
    out = {f: figures([rows[i] for i in idx], [verdicts[i] for i in idx]) for f, idx in by_file.items()}
    every = [i for idx in by_file.values() for i in idx]
    if every:
        out["__all__"] = figures([rows[i] for i in every], [verdicts[i] for i in every])
    return out


# ---------------------------------------------------------------- printing


def pct(x: float | None) -> str:
    return "   -  " if x is None else f"{100 * x:5.1f}%"


def print_golden(now: dict[str, Any], base: dict[str, Any] | None) -> None:
    print("\nGolden suite (tests/golden/judgment), offline verifier")
    head = f"  {'file':26s} {'cases':>5s} {'accuracy':>8s} {'FP':>4s} {'FN':>4s}"
    print(head + (f"   | baseline {'acc':>6s} {'FP':>4s} {'FN':>4s}" if base else ""))
    for f, s in now.items():
        name = "ALL FILES" if f == "__all__" else f
        line = f"  {name:26s} {s['n']:5d} {pct(s['accuracy']):>8s} {s['false_positives']:4d} {s['false_negatives']:4d}"
        if base and f in base:
            b = base[f]
            line += f"   |          {pct(b['accuracy'])} {b['false_positives']:4d} {b['false_negatives']:4d}"
        if f == "__all__":
            print("  " + "-" * (len(line) - 2))
        print(line)


def print_hedges(now: dict[str, Any], base: dict[str, Any] | None) -> None:
    print("\nHedge suite (tests/golden/hedges)")
    print(f"  {'run':10s} {'cases':>5s} {'accuracy':>8s} {'FP offline':>10s} {'FN offline':>10s} {'FP direct':>9s}")
    for name, s in (("now", now), ("baseline", base)):
        if s:
            print(f"  {name:10s} {s['n']:5d} {pct(s['accuracy']):>8s} {s['false_positives']:10d}"
                  f" {s['false_negatives']:10d} {s['direct_false_positives']:9d}")


def print_samples(now: dict[str, Any], base: dict[str, Any] | None) -> None:
    print("\nShared benchmark samples, offline verifier (accuracy with a 95% Wilson interval)")
    print(f"  {'sample':17s} {'run':8s} {'n':>4s} {'accuracy':>8s} {'95% CI':>15s} {'FP':>4s} {'FN':>4s}"
          f" {'direct cov':>10s} {'direct prec':>11s}")
    for f, s in now.items():
        if f == "__all__":
            continue
        for name, x in (("now", s), ("baseline", (base or {}).get(f))):
            if x:
                ci = f"[{100 * x['ci95'][0]:.1f}, {100 * x['ci95'][1]:.1f}]"
                print(f"  {f:17s} {name:8s} {x['n']:4d} {pct(x['accuracy']):>8s} {ci:>15s} {x['false_positives']:4d}"
                      f" {x['false_negatives']:4d} {pct(x['direct_coverage']):>10s} {pct(x['direct_precision']):>11s}")
        if f in R0003_QUOTED:
            print(f"  {f:17s} {'r0003':8s} {'':4s} {R0003_QUOTED[f]:7.1f}%  (accuracy as quoted when the targets were set)")


def target_lines(report: dict[str, Any]) -> list[tuple[bool, str]]:
    lines: list[tuple[bool, str]] = []
    g = report.get("golden", {}).get("now", {}).get("__all__")
    if g:
        lines.append((g["accuracy"] >= GOLDEN_TARGET, f"golden suite accuracy >= {100 * GOLDEN_TARGET:.0f}%:"
                      f" {pct(g['accuracy']).strip()} ({g['false_positives']} FP, {g['false_negatives']} FN)"))
    h = report.get("hedges", {}).get("now", {}).get("__all__")
    if h:
        ok = h["false_positives"] == 0 and h["direct_false_positives"] == 0
        lines.append((ok, f"hedge suite 0 false positives: offline {h['false_positives']}, direct path"
                      f" {h['direct_false_positives']}"))
    samples = report.get("samples", {})
    for f, s in samples.get("now", {}).items():
        if f == "__all__":
            continue
        b = (samples.get("baseline") or {}).get(f)
        if b:
            ok = s["accuracy"] >= b["accuracy"] and s["false_positives"] < b["false_positives"]
            lines.append((ok, f"{f}: accuracy {pct(s['accuracy']).strip()} >= baseline {pct(b['accuracy']).strip()}"
                          f" and FP {s['false_positives']} < baseline {b['false_positives']}"))
        else:
            quoted = R0003_QUOTED[f] / 100
            lines.append((s["accuracy"] >= quoted, f"{f}: accuracy {pct(s['accuracy']).strip()} >= quoted r0003"
                          f" {100 * quoted:.1f}% (no baseline run: false positives not compared)"))
    return lines


# ---------------------------------------------------------------- the doc table


def doc_table(report: dict[str, Any]) -> str:
    meta = report["meta"]
    base = meta.get("baseline")
    base_note = f"baseline: commit {base['commit']}, release {base['artifact_version']}" if base else "no baseline run"
    out = [f"Produced by `python benchmarks/judgment.py --write-doc` (offline verifier, release"
           f" {meta['artifact_version']}; {base_note}). FP: judged correct but labelled incorrect;"
           " FN: the reverse.", ""]
    g_now, g_base = report["golden"]["now"], report["golden"].get("baseline") or {}
    out += ["| golden file | cases | accuracy | FP | FN | baseline accuracy |", "|---|---:|---:|---:|---:|---:|"]
    for f, s in g_now.items():
        if f == "__all__":
            continue
        b = g_base.get(f)
        out.append(f"| {f} | {s['n']} | {pct(s['accuracy']).strip()} | {s['false_positives']} |"
                   f" {s['false_negatives']} | {pct(b['accuracy']).strip() if b else '-'} |")
    out += ["", "| summary | n | accuracy | FP | FN | baseline accuracy | baseline FP |",
            "|---|---:|---:|---:|---:|---:|---:|"]

    def row(label: str, s: dict[str, Any], b: dict[str, Any] | None, fp_key: str = "false_positives") -> str:
        return (f"| {label} | {s['n']} | {pct(s['accuracy']).strip()} | {s[fp_key]} | {s['false_negatives']} |"
                f" {pct(b['accuracy']).strip() if b else '-'} | {b[fp_key] if b else '-'} |")

    out.append(row("golden suite (target >= 98%)", g_now["__all__"], g_base.get("__all__")))
    h_now, h_base = report["hedges"]["now"]["__all__"], (report["hedges"].get("baseline") or {}).get("__all__")
    out.append(row("hedge suite, offline (target 0 FP)", h_now, h_base))
    out.append(f"| hedge suite, direct path (target 0 FP) | {h_now['n']} | - | {h_now['direct_false_positives']} | - | - |"
               f" {h_base['direct_false_positives'] if h_base else '-'} |")
    s_now, s_base = report["samples"]["now"], report["samples"].get("baseline") or {}
    for f, s in s_now.items():
        if f != "__all__":
            out.append(row(f"{f} sample (r0003 as quoted: {R0003_QUOTED[f]}%)", s, s_base.get(f)))
    return "\n".join(out)


def write_doc(report: dict[str, Any]) -> None:
    text = DOC.read_text(encoding="utf-8")
    start, end = text.find(DOC_START), text.find(DOC_END)
    if start < 0 or end < start:
        raise SystemExit(f"{DOC}: the {DOC_START} / {DOC_END} markers are missing")
    new = text[: start + len(DOC_START)] + "\n" + doc_table(report) + "\n" + text[end:]
    DOC.write_text(new, encoding="utf-8")
    print(f"\nwrote the judgment table to {DOC.relative_to(REPO)}")


# ---------------------------------------------------------------- main


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--suite", choices=("golden", "hedges", "samples", "all"), default="all")
    ap.add_argument("--baseline", default=DEFAULT_BASELINE, help="a git commit, or 'none' to skip the baseline run")
    ap.add_argument("--json", type=Path, help="write every figure to this JSON file")
    ap.add_argument("--write-doc", action="store_true", help="rewrite the table in docs/criterion.md (needs --suite all)")
    ap.add_argument("--worker", nargs=2, metavar=("IN", "OUT"), help=argparse.SUPPRESS)
    args = ap.parse_args(argv)
    if args.worker:
        worker_main(*args.worker)
        return 0
    if args.write_doc and args.suite != "all":
        ap.error("--write-doc rewrites the whole table: use it with --suite all")
    sys.path.insert(0, str(REPO))

    notes: list[str] = []
    rows: list[dict[str, Any]] = []
    if args.suite in ("golden", "all"):
        rows += golden_rows("judgment")
    if args.suite in ("hedges", "all"):
        rows += golden_rows("hedges")
    if args.suite in ("samples", "all"):
        rows += sample_rows(notes)

    t0 = time.perf_counter()
    now = judge_rows(rows)
    print(f"current code: release {now['artifact_version']}, {len(rows)} triples judged twice (offline and direct)"
          f" in {now['seconds']:.1f} s")
    base = None
    if args.baseline.lower() != "none":
        try:
            base = run_baseline(args.baseline, rows)
            print(f"baseline: commit {base['commit']}, release {base['artifact_version']}, judged in a subprocess"
                  f" in {base['seconds']:.1f} s")
        except (RuntimeError, subprocess.CalledProcessError) as e:
            notes.append(f"baseline {args.baseline} not run: {e}")

    report: dict[str, Any] = {"meta": {"artifact_version": now["artifact_version"], "triples": len(rows),
                                       "baseline": ({"commit": base["commit"], "artifact_version": base["artifact_version"]}
                                                    if base else None)}}
    for suite in ("golden", "hedges", "samples"):
        if any(r["suite"] == suite for r in rows):
            report[suite] = {"now": grouped(rows, now["verdicts"], suite),
                             "baseline": grouped(rows, base["verdicts"], suite) if base else None}

    if "golden" in report:
        print_golden(report["golden"]["now"], report["golden"]["baseline"])
    if "hedges" in report:
        print_hedges(report["hedges"]["now"]["__all__"], (report["hedges"]["baseline"] or {}).get("__all__"))
    if "samples" in report:
        print_samples(report["samples"]["now"], report["samples"]["baseline"])
    for suite in ("golden", "hedges"):
        s = report.get(suite, {}).get("now", {}).get("__all__")
        if s and s["reason_prefix_cases"]:
            print(f"\n{suite}: reason family named by the criterion found in the offline reason for"
                  f" {s['reason_prefix_matched']} of {s['reason_prefix_cases']} cases that name one")

    print("\nTargets")
    lines = target_lines(report)
    for ok, text in lines:
        print(f"  [{'MET' if ok else 'NOT MET'}] {text}")
    report["targets"] = [{"met": ok, "target": text} for ok, text in lines]
    for n in notes:
        print(f"note: {n}")
    report["notes"] = notes
    print(f"\ntotal {time.perf_counter() - t0:.1f} s")

    if args.json:
        args.json.write_text(json.dumps(report, indent=1), encoding="utf-8")
        print(f"wrote {args.json}")
    if args.write_doc:
        write_doc(report)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
