"""Direct-path throughput of the runtime against Math-Verify on the same triples, in one run.

    .venv/bin/python benchmarks/runtime_speed.py [--artifact PATH] [--repeat 3]

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


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--artifact", default=None)
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--mv-repeat", type=int, default=1, help="Math-Verify passes (it is slow)")
    args = ap.parse_args()
    shared = shared_triples()
    triples = shared + OWN_CASES
    print(f"triples: {len(triples)} ({len(shared)} from the shared benchmark samples, {len(OWN_CASES)} own cases)")
    v, lat, total, direct_flags = run_ours(triples, args.artifact, args.repeat)
    direct = sum(direct_flags)
    ours_tp = len(lat) / total
    mv_lat, mv_total = run_math_verify(triples, args.mv_repeat)
    mv_tp = len(mv_lat) / mv_total
    print(f"artifact {v.artifact_version}: {len(v.modules)} modules, fallback offline")
    print(f"autoverifier : {ours_tp:10.1f} triples/s  (calls {len(lat)}, direct share {direct / len(lat):.1%})")
    print(f"math-verify  : {mv_tp:10.1f} triples/s  (calls {len(mv_lat)})")
    print(f"ratio        : {ours_tp / mv_tp:10.1f}x")
    ms = [x * 1000 for x in lat]
    print(f"autoverifier latency ms: p50 {pct(ms, 50):.3f}  p90 {pct(ms, 90):.3f}  p99 {pct(ms, 99):.3f}  max {max(ms):.3f}  mean {statistics.mean(ms):.3f}")
    mvms = [x * 1000 for x in mv_lat]
    print(f"math-verify  latency ms: p50 {pct(mvms, 50):.3f}  p90 {pct(mvms, 90):.3f}  p99 {pct(mvms, 99):.3f}  max {max(mvms):.3f}")
    # The direct path alone: the triples a module decided, timed for both verifiers (first pass).
    n = len(triples)
    idx = [i for i in range(n) if direct_flags[i]]
    if idx:
        ours_direct = sum(lat[i] for i in idx)
        mv_direct = sum(mv_lat[i] for i in idx)
        print(f"direct path  : {len(idx)} triples decided by modules; autoverifier {len(idx) / ours_direct:.1f}/s, "
              f"math-verify {len(idx) / mv_direct:.1f}/s on the same triples, ratio {mv_direct / ours_direct:.1f}x")
    print(f"calls over 2 s: {sum(1 for x in lat if x > 2.0)}")


if __name__ == "__main__":
    main()
