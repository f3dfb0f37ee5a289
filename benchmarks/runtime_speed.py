"""Direct-path throughput of the runtime against Math-Verify on the same triples, in one run.

    .venv/bin/python benchmarks/runtime_speed.py [--artifact PATH] [--trials 3]

Triples: the real benchmark samples in the shared folder (when present) plus the project's
own cases. Our verifier runs with the offline fallback (no network; the whole decision is
local); Math-Verify parses the reference's and the response's answers and compares them,
in the main thread, with its own timeouts. Prints throughput of each, the ratio, and our
latency percentiles and worst call (targets: >= 20x, p99 <= 20 ms, no call over 2 s).
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import sys
import time
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))

OWN_CASES = [
    ("What is 1/2 + 1/4?", "\\frac{3}{4}", "Adding gives $\\boxed{0.75}$."),
    ("Compute 12 * 12.", "144", "12 * 12 = 144. The answer is 144."),
    ("Find x if 2x = 10.", "5", "x = 5"),
    ("Simplify sqrt(8).", "2\\sqrt{2}", "$\\boxed{\\sqrt{8}}$"),
    ("What is the interval where x^2 < 1?", "(-1, 1)", "The solution set is $(-1,1)$."),
    ("How far is it, in km?", "1.5 km", "The distance is 1500 m."),
    ("Which is largest? (A) 1 (B) 5 (C) 3", "B", "The answer is (B)."),
    ("Is 7 prime?", "Yes", "Yes, 7 is prime."),
    ("Who painted the Mona Lisa?", "Leonardo da Vinci", "It was painted by Leonardo da Vinci."),
    ("What is 10% of 50?", "5", "<think>10% is 0.1 so 5</think> **5**"),
]


def shared_triples() -> list[tuple[str, str, str]]:
    root = Path(os.environ.get("AUTOVERIFIER_SHARED", REPO.parent / "shared")) / "benchmarks"
    out = []
    for name in ("verifybench", "verifybench_hard", "sci_verifybench"):
        f = root / name / "sample.jsonl"
        if not f.is_file():
            continue
        for line in f.read_text(encoding="utf-8").splitlines():
            if line.strip():
                d = json.loads(line)
                out.append((d.get("question", ""), d.get("answer", ""), d.get("model_ans", "")))
    return out


WARMUP = 50


def pct(values: list[float], q: float) -> float:
    s = sorted(values)
    return s[min(len(s) - 1, int(round(q / 100 * (len(s) - 1))))]


def _cold() -> None:
    """Forget memoised parses and sympy's global cache, so the next pass starts cold (the two
    verifiers share sympy: neither may ride on the other's or the warm-up's expressions)."""
    from verifier_runtime.toolkit import clear_caches

    clear_caches()
    try:
        from sympy.core.cache import clear_cache

        clear_cache()
    except ImportError:
        pass


def run_ours(triples, artifact, fallback):
    from verifier_runtime import load_verifier

    v = load_verifier(artifact, fallback=fallback)
    for q, r, s in triples[:WARMUP]:  # lazy imports and first-use set-up, outside the timing
        v.verify(q, r, s)
    _cold()
    lat: list[float] = []
    direct_flags: list[bool] = []
    t0 = time.perf_counter()
    for q, r, s in triples:
        t = time.perf_counter()
        verdict = v.verify(q, r, s)
        lat.append(time.perf_counter() - t)
        direct_flags.append(verdict.correct is not None and not verdict.fallback_called)
    return v, lat, time.perf_counter() - t0, direct_flags


def run_math_verify(triples):
    from math_verify import parse, verify
    from math_verify import parser as mv_parser

    def once(r, s):
        try:
            verify(parse(r), parse(s))
        except Exception:
            pass

    for _q, r, s in triples[:WARMUP]:  # the same warm-up as ours: its regexes and grammar load once
        once(r, s)
    for name in ("parse_latex_cached", "parse_expr_cached", "extract_latex"):  # its parse caches, like ours
        fn = getattr(mv_parser, name, None)
        if fn is not None and hasattr(fn, "cache_clear"):
            fn.cache_clear()
    _cold()
    lat: list[float] = []
    t0 = time.perf_counter()
    for _q, r, s in triples:
        t = time.perf_counter()
        once(r, s)
        lat.append(time.perf_counter() - t)
    return lat, time.perf_counter() - t0


def one_trial(artifact: str | None) -> dict:
    """All three passes, each cold, in this (fresh) process."""
    triples = shared_triples() + OWN_CASES
    v, lat_none, total_none, direct = run_ours(triples, artifact, "none")
    _, lat, total, _ = run_ours(triples, artifact, "offline")
    mv_lat, mv_total = run_math_verify(triples)
    return {"n": len(triples), "direct_tp": len(lat_none) / total_none, "ours_tp": len(lat) / total,
            "mv_tp": len(mv_lat) / mv_total, "lat_none": lat_none, "lat": lat, "mv_lat": mv_lat, "direct": direct,
            "version": v.artifact_version, "modules": len(v.modules)}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--artifact", default=None)
    ap.add_argument("--trials", type=int, default=3, help="fresh processes, each timing both verifiers cold")
    ap.add_argument("--one-trial", action="store_true", help=argparse.SUPPRESS)
    args = ap.parse_args()
    if args.one_trial:
        print(json.dumps(one_trial(args.artifact)))
        return
    import subprocess

    cmd = [sys.executable, __file__, "--one-trial"] + (["--artifact", args.artifact] if args.artifact else [])
    trials = [json.loads(subprocess.run(cmd, capture_output=True, text=True, check=True).stdout.strip().splitlines()[-1])
              for _ in range(max(1, args.trials))]
    t0 = trials[0]
    shared = len(shared_triples())
    print(f"triples: {t0['n']} ({shared} from the shared benchmark samples, {t0['n'] - shared} own cases)")
    print(f"artifact {t0['version']}: {t0['modules']} modules; {len(trials)} trials, each in a fresh process; "
          f"every pass starts cold (parse caches and sympy's cache cleared) after a {WARMUP}-triple warm-up")
    mv_tp = [t["mv_tp"] for t in trials]

    def row(label: str, key: str, note: str) -> None:
        tp = [t[key] for t in trials]
        ratios = [a / b for a, b in zip(tp, mv_tp, strict=True)]
        print(f"{label:<34}: {statistics.median(tp):8.1f} triples/s  ratio {statistics.median(ratios):5.1f}x median "
              f"(per trial: {', '.join(f'{x:.1f}' for x in ratios)}){note}")

    direct = sum(t0["direct"])
    row("direct path (modules, no fallback)", "direct_tp", f"; {direct / t0['n']:.1%} decided directly")
    row("with the offline fallback", "ours_tp", "; every triple judged")
    print(f"{'math-verify':<34}: {statistics.median(mv_tp):8.1f} triples/s  (per trial: {', '.join(f'{x:.0f}' for x in mv_tp)})")
    for label, key in (("direct path", "lat_none"), ("with offline fallback", "lat"), ("math-verify", "mv_lat")):
        ms = [x * 1000 for t in trials for x in t[key]]
        print(f"latency ms, {label:<22}: p50 {pct(ms, 50):.3f}  p90 {pct(ms, 90):.3f}  p99 {pct(ms, 99):.3f}  "
              f"max {max(ms):.3f}  calls over 2 s: {sum(1 for x in ms if x > 2000.0)}")
    # The triples a module decided, timed for both verifiers (these are easy for Math-Verify too).
    idx = [i for i in range(t0["n"]) if t0["direct"][i]]
    if idx:
        d = [sum(t["mv_lat"][i] for i in idx) / sum(t["lat_none"][i] for i in idx) for t in trials]
        print(f"module-decided triples only ({len(idx)}): Math-Verify time / ours on the same triples "
              f"{statistics.median(d):.1f}x median")


if __name__ == "__main__":
    main()
