"""Fuzz the verifier with random and grammar-built hostile triples, from threads and processes.

Triples mix ordinary answers with: deep LaTeX nesting; big-integer expressions near and past
the limits (power towers, factorials with long decimal exponents, binomials, coefficient
powers, long digit strings); giant matrices and sets; unicode, NUL and lone surrogates; 1-5 MB
strings; and catastrophic-backtracking inputs built for every regular expression of the answer
toolkit (long runs of each pattern's own characters). Every call is timed.

Printed: exceptions escaping ``verify`` (must be 0), calls over ``--limit-s`` (2 s), max and
p99.9 latency, RSS growth of each process, and the worst latency of a benign probe triple
verified concurrently in the same process (one hostile triple must not hold the others up by
more than its own budget).

    python benchmarks/fuzz.py --count 100000 --threads 4 --processes 2     # the full run
    python benchmarks/fuzz.py --count 2000 --threads 2 --processes 0       # the CI slice
    python benchmarks/fuzz.py --count 5000 --isolation process             # with worker isolation
"""

from __future__ import annotations

import argparse
import json
import random
import re
import sys
import threading
import time
from concurrent.futures import ProcessPoolExecutor, ThreadPoolExecutor
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
if str(REPO) not in sys.path:
    sys.path.insert(0, str(REPO))

BENIGN = ("What is 2+2?", "4", "Adding the numbers gives 4, so the answer is $\\boxed{4}$.")


# --- the grammar of hostile answers -------------------------------------------------------------

def _near_limit(rng: random.Random) -> str:
    """Expressions just under and over the size estimates' limits."""
    n = rng.choice([9, 99, 170, 999, 1000, 1001, 3000])
    digits = "9" * rng.choice([3, 14, 60, 400])
    forms = [
        f"{{\\sqrt{{({n})!/10000}}}}^{{0.{digits}}}",
        f"{{{{\\frac{{x}}{{\\binom{{{n}}}{{3}}}}}}^{{{rng.choice([99, 9999])}}}}}^{{{rng.choice([7, 713])}}}",
        f"{rng.randint(2, 99)}^{{{rng.randint(2, 9)}^{{{rng.randint(2, 9)}^{{{rng.randint(2, 9)}}}}}}}",
        f"({rng.randint(2, 9)}x)^{{{rng.choice([10, 999, 9999])}}}",
        f"\\binom{{{n}}}{{{rng.randint(1, n)}}}",
        f"{n}!^{{0.{digits}}}",
        f"e^{{{'9' * rng.choice([2, 5, 14])}}}",
        f"\\sqrt[{rng.choice([3, 999, 9999])}]{{{n}!}}",
        f"10^{{{rng.choice([300, 3999, 4001, 10 ** 6])}}}",
        f"{'1' * rng.choice([399, 401, 4300, 4301, 5000])}",
        f"\\sin(10^{{{rng.choice([10, 60, 61, 400])}}})",
        f"{{(10^{{{rng.choice([40, 400])}}})}}^{{{rng.choice([10, 100])}}}",
    ]
    return rng.choice(forms)


def _nesting(rng: random.Random) -> str:
    depth = rng.choice([30, 41, 200, 5000])
    kind = rng.choice(["\\frac{", "\\sqrt{", "(", "{", "\\left(", "^{"])
    closer = {"\\frac{": "}{2}", "\\sqrt{": "}", "(": ")", "{": "}", "\\left(": "\\right)", "^{": "}"}[kind]
    return kind * depth + "1" + closer * depth


def _structures(rng: random.Random) -> str:
    n = rng.choice([10, 100, 2000])
    if rng.random() < 0.5:
        row = " & ".join(str(rng.randint(0, 99)) for _ in range(n // 10 + 1))
        return "\\begin{pmatrix}" + " \\\\ ".join([row] * (n // 10 + 1)) + "\\end{pmatrix}"
    return "\\{" + ", ".join(str(rng.randint(0, 10 ** 6)) for _ in range(n)) + "\\}"


def _strange_text(rng: random.Random) -> str:
    pieces = ["\x00", "\ud800", "\udfff", "\u202e", "\ufeff", "𝟜", "٤", "４", "\u0301", "\u200b", "∞", "√", "−", "×"]
    return "".join(rng.choice(pieces) + str(rng.randint(0, 9)) for _ in range(rng.randint(1, 400)))


def _huge(rng: random.Random) -> str:
    size = rng.randint(1, 5) * 1_000_000
    unit = rng.choice(["x", "9", "\\boxed{1}", "$", "answer is ", " ", "(", "{"])
    return (unit * (size // len(unit) + 1))[:size] + " so the answer is 4"


def regex_bombs(max_chars: int = 20_000) -> list[str]:
    """For every regular expression the toolkit compiles: long runs of its own characters."""
    import verifier_runtime.toolkit as tk

    names = ["verifier_runtime.toolkit." + m for m in ("extract", "numbers", "choices", "cues", "text", "units",
                                                          "structures", "compare")]
    names += ["verifier_runtime.toolkit.latex." + m for m in ("tokens", "parser", "convert")]
    bombs: list[str] = []
    for name in names:
        try:
            mod = __import__(name, fromlist=["_"])
        except ImportError:
            continue
        for value in vars(mod).values():
            if isinstance(value, re.Pattern) and isinstance(value.pattern, str):
                chars = sorted({c for c in value.pattern if c.isprintable() and c not in "\\()[]{}?*+|^$"})[:12]
                words = re.findall(r"[A-Za-z]{3,}", value.pattern)[:4]
                for unit in chars[:6] + words:
                    bombs.append((unit * (max_chars // max(1, len(unit))))[:max_chars] + "!")
                if len(chars) >= 2:
                    pair = chars[0] + chars[1]
                    bombs.append((pair * (max_chars // 2))[:max_chars] + "\x00")
    del tk
    return bombs


def make_triple(rng: random.Random, bombs: list[str]) -> tuple[str, str, str]:
    kind = rng.random()
    question = rng.choice(["What is the value?", "Simplify the expression.", "Compute it. Round to 2 decimal places.",
                           "Which option is correct? A) 1 B) 2 C) 3 D) 4", "Give the answer in km/h.", ""])
    if kind < 0.30:
        answer = _near_limit(rng)
    elif kind < 0.42:
        answer = _nesting(rng)
    elif kind < 0.52:
        answer = _structures(rng)
    elif kind < 0.64:
        answer = _strange_text(rng)
    elif kind < 0.6405:
        answer = _huge(rng)
    elif kind < 0.80:
        answer = rng.choice(bombs)
    else:  # ordinary answers keep the common paths exercised
        answer = rng.choice(["4", "\\frac{1}{2}", "0.5", "x^2+1", "Paris", "B", "12 km/h", "True", "(1, 2)"])
    wrap = rng.choice(["The answer is $\\boxed{%s}$.", "%s", "So, %s", "Final answer: %s", "\\[%s\\]"])
    response = wrap % answer if "%s" in wrap else answer
    reference = rng.choice([answer, _near_limit(rng), "4", "\\frac{1}{2}", _strange_text(rng)[:50],
                            rng.choice(bombs)[:2000]])
    if rng.random() < 0.05:
        question, reference, response = response, question, reference  # every field gets hostile input
    return question, reference, response


# --- running -----------------------------------------------------------------------------------

def _rss_mb() -> float:
    try:
        for line in Path("/proc/self/status").read_text().splitlines():
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) / 1024
    except OSError:
        pass
    import resource

    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


def run_chunk(seed: int, count: int, threads: int, duration: float, fallback: str, isolation: str,
              limit_s: float) -> dict:
    """Fuzz ``count`` triples in ``threads`` threads of this process, with a benign probe beside them."""
    from verifier_runtime import load_verifier

    options = {"isolation": "process", "processes": 2} if isolation == "process" else {}
    verifier = load_verifier(fallback=fallback, **options)
    bombs = regex_bombs()
    warm = random.Random(seed + 1)
    for _ in range(50):
        verifier.verify(*make_triple(warm, bombs))
    rss0 = _rss_mb()
    lock = threading.Lock()
    times: list[float] = []
    escaped: list[str] = []
    slow: list[tuple[float, str]] = []
    stop_at = time.monotonic() + duration
    done = threading.Event()
    probe: list[float] = []

    def probe_loop() -> None:
        while not done.is_set():
            t = time.perf_counter()
            verifier.verify(*BENIGN)
            probe.append(time.perf_counter() - t)
            time.sleep(0.01)

    def work(k: int) -> None:
        rng = random.Random(seed * 1000 + k)
        for _ in range(count // threads + (1 if k < count % threads else 0)):
            if time.monotonic() > stop_at:
                return
            q, r, s = make_triple(rng, bombs)
            t = time.perf_counter()
            try:
                verifier.verify(q, r, s)
            except BaseException as exc:  # noqa: BLE001 - the failure this harness looks for
                with lock:
                    escaped.append(f"{type(exc).__name__}: {str(exc)[:100]}")
            took = time.perf_counter() - t
            with lock:
                times.append(took)
                if took > limit_s:
                    slow.append((took, (s[:80] + "...") if len(s) > 80 else s))

    prober = threading.Thread(target=probe_loop, daemon=True)
    prober.start()
    t0 = time.perf_counter()
    with ThreadPoolExecutor(max_workers=threads) as pool:
        list(pool.map(work, range(threads)))
    wall = time.perf_counter() - t0
    done.set()
    prober.join(5)
    if hasattr(verifier, "close"):
        verifier.close()
    return {"n": len(times), "times": times, "escaped": escaped, "slow": slow[:10], "wall": wall,
            "rss_growth_mb": _rss_mb() - rss0, "probe_max": max(probe) if probe else 0.0,
            "budget_s": float(getattr(verifier, "budget_s", 1.5))}


def summarize(label: str, results: list[dict], limit_s: float) -> dict:
    times = sorted(t for r in results for t in r["times"])
    n = len(times)
    escaped = [e for r in results for e in r["escaped"]]
    slow = sorted((s for r in results for s in r["slow"]), reverse=True)
    p999 = times[min(n - 1, int(n * 0.999))] if n else 0.0
    growth = max(r["rss_growth_mb"] for r in results)
    probe = max(r["probe_max"] for r in results)
    budget = results[0]["budget_s"]
    wall = max(r["wall"] for r in results)
    print(f"{label}: {n:,} triples in {wall:.1f} s ({n / wall if wall else 0:,.0f}/s)")
    print(f"  exceptions escaping verify: {len(escaped)}" + (f"  e.g. {escaped[0]}" if escaped else ""))
    print(f"  calls over {limit_s:g} s: {sum(t > limit_s for t in times)}" +
          (f"  worst {slow[0][0]:.2f} s on {slow[0][1]!r}" if slow else ""))
    print(f"  latency: max {times[-1] * 1000 if n else 0:.1f} ms, p99.9 {p999 * 1000:.1f} ms, "
          f"p50 {times[n // 2] * 1000 if n else 0:.2f} ms")
    print(f"  RSS growth (worst process): {growth:.1f} MB")
    print(f"  benign probe beside the fuzz: worst {probe * 1000:.1f} ms (its budget {budget:g} s)")
    return {"label": label, "n": n, "escaped": len(escaped), "over_limit": sum(t > limit_s for t in times),
            "max_ms": times[-1] * 1000 if n else 0.0, "p999_ms": p999 * 1000, "rss_growth_mb": growth,
            "probe_max_ms": probe * 1000, "budget_s": budget}


def main(argv: list[str] | None = None) -> list[dict]:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--count", type=int, default=20_000, help="triples in each mode (threads; processes)")
    ap.add_argument("--threads", type=int, default=4)
    ap.add_argument("--processes", type=int, default=2, help="process-pool workers (0: skip that mode)")
    ap.add_argument("--duration", type=float, default=1800.0, help="seconds per mode (upper bound)")
    ap.add_argument("--fallback", default="offline", choices=["none", "offline"])
    ap.add_argument("--isolation", default="inprocess", choices=["inprocess", "process"])
    ap.add_argument("--limit-s", type=float, default=2.0)
    ap.add_argument("--seed", type=int, default=12)
    ap.add_argument("--json", type=Path, default=None, help="also write the summaries here")
    args = ap.parse_args(argv)
    if not 1 <= args.count <= 1_000_000 or not 1 <= args.threads <= 64 or not 0 <= args.processes <= 32:
        ap.error("count in 1..1000000, threads in 1..64, processes in 0..32")
    print(f"fuzz: {args.count:,} triples per mode, fallback {args.fallback}, isolation {args.isolation}, "
          f"seed {args.seed}")
    out = [summarize(f"threads ({args.threads} in one process)",
                     [run_chunk(args.seed, args.count, args.threads, args.duration, args.fallback, args.isolation,
                                args.limit_s)], args.limit_s)]
    if args.processes:
        per = args.count // args.processes
        with ProcessPoolExecutor(max_workers=args.processes) as pool:
            futs = [pool.submit(run_chunk, args.seed + 100 + i, per + (1 if i < args.count % args.processes else 0),
                                1, args.duration, args.fallback, args.isolation, args.limit_s)
                    for i in range(args.processes)]
            results = [f.result() for f in futs]
        out.append(summarize(f"processes ({args.processes} workers)", results, args.limit_s))
    if args.json:
        args.json.write_text(json.dumps(out, indent=2) + "\n", encoding="utf-8")
    return out


if __name__ == "__main__":
    main()
