"""Direct-path throughput of the runtime against Math-Verify on the same triples, in one run.

    .venv/bin/python benchmarks/runtime_speed.py [--artifact PATH] [--trials 5]

Triples: the real benchmark samples in the shared folder (when present) plus the project's
own cases. Two comparisons, each against Math-Verify (``verify(parse(reference),
parse(response))`` in the main thread, with its own timeouts) on the same triples:

* the direct path: our code modules alone (``fallback="none"``), what runs before any judge;
* the whole offline pipeline: modules, then the embedded offline judge for the rest.

Fairness: every trial is a fresh process; both verifiers get the same untimed warm-up; all
parse caches (ours, Math-Verify's, and sympy's, which both share) are cleared before each
run; the two are timed in alternating chunks so a slow spell of the machine hits both. Each
trial also times each verifier alone in a process of its own (the direct path), in alternating
order: there the garbage collector's full collections walk only that verifier's objects, where
in the shared process they walk both and land in whichever call is running.
Prints throughput, the ratio (median and per trial), latency percentiles and the worst call
(targets: >= 20x, p99 <= 20 ms, no call over 2 s).
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
CHUNK = 100  # triples per turn when the verifiers alternate


def pct(values: list[float], q: float) -> float:
    s = sorted(values)
    return s[min(len(s) - 1, int(round(q / 100 * (len(s) - 1))))]


def _cold() -> None:
    """Forget every parse cache, ours and Math-Verify's, and sympy's global cache, which both
    verifiers share: the next pass starts cold, with no verifier riding on the other's work."""
    from verifier_runtime.toolkit import clear_caches

    clear_caches()
    try:
        from math_verify import parser as mv_parser

        for name in ("parse_latex_cached", "parse_expr_cached", "extract_latex"):
            fn = getattr(mv_parser, name, None)
            if fn is not None and hasattr(fn, "cache_clear"):
                fn.cache_clear()
    except ImportError:
        pass
    try:
        from sympy.core.cache import clear_cache

        clear_cache()
    except ImportError:
        pass


def _math_verify_call():
    from math_verify import parse, verify

    def once(_q, r, s):
        try:
            return verify(parse(r), parse(s))
        except Exception:
            return None

    return once


def _interleaved(triples, ours) -> tuple[list[float], list[float], list[bool]]:
    """Per-call latencies of ours and of Math-Verify, timed chunk by chunk in alternation, so a
    slow spell of the machine hits both alike; then which of ours were decided directly."""
    mv = _math_verify_call()
    for q, r, s in triples[:WARMUP]:  # first-use set-up of both (imports, regexes, grammar), untimed
        ours(q, r, s)
        mv(q, r, s)
    _cold()
    lat: list[float] = []
    mv_lat: list[float] = []
    direct: list[bool] = []
    for start in range(0, len(triples), CHUNK):
        chunk = triples[start : start + CHUNK]
        for q, r, s in chunk:
            t = time.perf_counter()
            verdict = ours(q, r, s)
            lat.append(time.perf_counter() - t)
            direct.append(verdict.correct is not None and not verdict.fallback_called)
        for q, r, s in chunk:  # Math-Verify may find sympy objects ours built for the same text: in its favour
            t = time.perf_counter()
            mv(q, r, s)
            mv_lat.append(time.perf_counter() - t)
    return lat, mv_lat, direct


def _alone(triples, call) -> float:
    """Seconds for one cold pass of ``call`` over ``triples`` in a process that runs nothing else
    (after the same warm-up): the collector then walks only this verifier's own objects."""
    for q, r, s in triples[:WARMUP]:
        call(q, r, s)
    _cold()
    t = time.perf_counter()
    for q, r, s in triples:
        call(q, r, s)
    return time.perf_counter() - t


def alone_trial(artifact: str | None, who: str) -> dict:
    """One verifier alone in this (fresh) process: ``ours`` (the direct path) or ``math-verify``."""
    triples = shared_triples() + OWN_CASES
    if who == "ours":
        from verifier_runtime import load_verifier

        call = load_verifier(artifact, fallback="none").verify
    else:
        call = _math_verify_call()
    return {"seconds": _alone(triples, call), "n": len(triples)}


def one_trial(artifact: str | None, fallback: str) -> dict:
    """One interleaved run in this (fresh) process. A second run in the same process would not
    be fair: Math-Verify's parser keeps prediction caches no public call clears, and they would
    already have seen every triple."""
    from verifier_runtime import load_verifier

    triples = shared_triples() + OWN_CASES
    v = load_verifier(artifact, fallback=fallback)
    lat, mv_lat, direct = _interleaved(triples, v.verify)
    return {"n": len(triples), "lat": lat, "mv_lat": mv_lat, "direct": direct, "ratio": sum(mv_lat) / sum(lat),
            "tp": len(lat) / sum(lat), "mv_tp": len(mv_lat) / sum(mv_lat), "version": v.artifact_version,
            "modules": len(v.modules)}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--artifact", default=None)
    ap.add_argument("--trials", type=int, default=5, help="fresh processes, each timing both verifiers cold")
    ap.add_argument("--one-trial", choices=("none", "offline"), help=argparse.SUPPRESS)
    ap.add_argument("--alone", choices=("ours", "math-verify"), help=argparse.SUPPRESS)
    args = ap.parse_args()
    if args.one_trial:
        print(json.dumps(one_trial(args.artifact, args.one_trial)))
        return
    if args.alone:
        print(json.dumps(alone_trial(args.artifact, args.alone)))
        return
    import subprocess

    def run(flag: str, mode: str) -> dict:
        cmd = [sys.executable, __file__, flag, mode] + (["--artifact", args.artifact] if args.artifact else [])
        return json.loads(subprocess.run(cmd, capture_output=True, text=True, check=True).stdout.strip().splitlines()[-1])

    trials = []
    for k in range(max(1, args.trials)):
        trial = {mode: run("--one-trial", mode) for mode in ("none", "offline")}
        order = ("ours", "math-verify") if k % 2 == 0 else ("math-verify", "ours")  # a slow spell hits both alike
        trial["alone"] = {who: run("--alone", who)["seconds"] for who in order}
        trials.append(trial)
    t0 = trials[0]
    first = t0["none"]  # every run sees the same triples and artifact
    shared = len(shared_triples())
    print(f"triples: {first['n']} ({shared} from the shared benchmark samples, {first['n'] - shared} own cases)")
    print(f"artifact {first['version']}: {first['modules']} modules; {len(trials)} trials, each in a fresh process; "
          f"each run starts cold (all parse caches and sympy's cache cleared) after a {WARMUP}-triple warm-up, and "
          f"times the two verifiers in alternating chunks of {CHUNK}")
    for key, label, note in (("none", "direct path (modules, no fallback)", "decided directly"),
                             ("offline", "with the offline fallback", "decided by modules; the rest judged")):
        ratios = [t[key]["ratio"] for t in trials]
        tp = [t[key]["tp"] for t in trials]
        mv_tp = [t[key]["mv_tp"] for t in trials]
        share = sum(t0[key]["direct"]) / first["n"]
        print(f"{label}:")
        print(f"  autoverifier {statistics.median(tp):8.1f} triples/s median; math-verify {statistics.median(mv_tp):6.1f} "
              f"triples/s median; {share:.1%} {note}")
        print(f"  ratio {statistics.median(ratios):5.1f}x median (per trial: {', '.join(f'{x:.1f}' for x in ratios)}; "
              f"min {min(ratios):.1f}x)")
        for who, lk in (("autoverifier", "lat"), ("math-verify", "mv_lat")):
            ms = [x * 1000 for t in trials for x in t[key][lk]]
            print(f"  latency ms, {who:<12}: p50 {pct(ms, 50):.3f}  p90 {pct(ms, 90):.3f}  p99 {pct(ms, 99):.3f}  "
                  f"max {max(ms):.3f}  calls over 2 s: {sum(1 for x in ms if x > 2000.0)}")
    # Each verifier alone in its own process: in the interleaved run, a full collection walks both
    # verifiers' objects and lands in whichever call is running; alone, each pays for its own.
    alone = [t["alone"]["math-verify"] / t["alone"]["ours"] for t in trials]
    print(f"each alone in its own process (direct path; the collector walks only that verifier's objects): "
          f"ours {statistics.median(first['n'] / t['alone']['ours'] for t in trials):.1f} triples/s, math-verify "
          f"{statistics.median(first['n'] / t['alone']['math-verify'] for t in trials):.1f}; ratio "
          f"{statistics.median(alone):.1f}x median (per trial: {', '.join(f'{x:.1f}' for x in alone)})")
    # The triples a module decided, timed for both verifiers (these are easy for Math-Verify too).
    idx = [i for i in range(first["n"]) if first["direct"][i]]
    if idx:
        d = [sum(t["none"]["mv_lat"][i] for i in idx) / sum(t["none"]["lat"][i] for i in idx) for t in trials]
        print(f"module-decided triples only ({len(idx)}): Math-Verify time / ours on the same triples "
              f"{statistics.median(d):.1f}x median")


if __name__ == "__main__":
    main()
