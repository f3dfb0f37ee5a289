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


def pct(values: list[float], q: float) -> float:
    s = sorted(values)
    return s[min(len(s) - 1, int(round(q / 100 * (len(s) - 1))))]


def run_ours(triples, artifact, repeat):
    from verifier_runtime import load_verifier
    from verifier_runtime.toolkit import clear_caches

    v = load_verifier(artifact, fallback="offline")
    for q, r, s in triples[:50]:  # warm lazy imports (sympy, pint) outside the timing
        v.verify(q, r, s)
    lat: list[float] = []
    direct_flags: list[bool] = []
    total = 0.0
    for _ in range(repeat):
        clear_caches()  # every pass starts cold: repeated passes must not ride on memoised parses
        t0 = time.perf_counter()
        for q, r, s in triples:
            t = time.perf_counter()
            verdict = v.verify(q, r, s)
            lat.append(time.perf_counter() - t)
            direct_flags.append(not verdict.fallback_called)
        total += time.perf_counter() - t0
    return v, lat, total, direct_flags


def run_math_verify(triples, repeat):
    from math_verify import parse, verify

    lat: list[float] = []
    t0 = time.perf_counter()
    for _ in range(repeat):
        for _q, r, s in triples:
            t = time.perf_counter()
            try:
                verify(parse(r), parse(s))
            except Exception:
                pass
            lat.append(time.perf_counter() - t)
    return lat, time.perf_counter() - t0


def one_trial(artifact: str | None) -> dict:
    """Both verifiers, each cold, in this (fresh) process: Math-Verify caches its parses too."""
    triples = shared_triples() + OWN_CASES
    v, lat, total, direct_flags = run_ours(triples, artifact, 1)
    mv_lat, mv_total = run_math_verify(triples, 1)
    return {"n": len(triples), "ours_tp": len(lat) / total, "mv_tp": len(mv_lat) / mv_total, "lat": lat,
            "mv_lat": mv_lat, "direct": direct_flags, "version": v.artifact_version, "modules": len(v.modules)}


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
    print(f"artifact {t0['version']}: {t0['modules']} modules, fallback offline; {len(trials)} trials, "
          "each in a fresh process with both verifiers cold")
    ours_tp = [t["ours_tp"] for t in trials]
    mv_tp = [t["mv_tp"] for t in trials]
    ratios = [a / b for a, b in zip(ours_tp, mv_tp, strict=True)]
    direct = sum(t0["direct"])
    print(f"autoverifier : {statistics.median(ours_tp):10.1f} triples/s median  (per trial: "
          f"{', '.join(f'{x:.0f}' for x in ours_tp)}; direct share {direct / t0['n']:.1%})")
    print(f"math-verify  : {statistics.median(mv_tp):10.1f} triples/s median  (per trial: {', '.join(f'{x:.0f}' for x in mv_tp)})")
    print(f"ratio        : {statistics.median(ratios):10.1f}x median  (per trial: {', '.join(f'{x:.1f}' for x in ratios)})")
    ms = [x * 1000 for t in trials for x in t["lat"]]
    print(f"autoverifier latency ms: p50 {pct(ms, 50):.3f}  p90 {pct(ms, 90):.3f}  p99 {pct(ms, 99):.3f}  max {max(ms):.3f}  mean {statistics.mean(ms):.3f}")
    mvms = [x * 1000 for t in trials for x in t["mv_lat"]]
    print(f"math-verify  latency ms: p50 {pct(mvms, 50):.3f}  p90 {pct(mvms, 90):.3f}  p99 {pct(mvms, 99):.3f}  max {max(mvms):.3f}")
    # The direct path alone: the triples a module decided, timed for both verifiers.
    idx = [i for i in range(t0["n"]) if t0["direct"][i]]
    if idx:
        d = [sum(t["mv_lat"][i] for i in idx) / sum(t["lat"][i] for i in idx) for t in trials]
        print(f"direct path  : {len(idx)} triples decided by modules; Math-Verify time / ours on the same triples: "
              f"{statistics.median(d):.1f}x median")
    print(f"calls over 2 s: {sum(1 for x in ms if x > 2000.0)}")


if __name__ == "__main__":
    main()
