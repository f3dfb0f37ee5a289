"""Peak memory and throughput of streaming batch verification on a large JSONL file.

Generates ``--rows`` synthetic rows (default one million) in a temporary folder, runs
``autoverifier verify`` on them in a subprocess, and reports the subprocess's peak resident
memory (``getrusage(RUSAGE_CHILDREN).ru_maxrss``) against the 2 GB target, plus rows/s.

    python benchmarks/batch_memory.py                 # 1M rows
    python benchmarks/batch_memory.py --rows 100000   # quicker
"""

from __future__ import annotations

import argparse
import json
import os
import random
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
TARGET_MB = 2048


def make_row(i: int, rng: random.Random) -> dict:
    a, b = rng.randint(2, 999), rng.randint(2, 999)
    kind = i % 4
    if kind == 0:
        q, ref = f"What is {a} + {b}?", str(a + b)
        ans = ref if rng.random() < 0.7 else str(a + b + 1)
        resp = f"We add the numbers: {a} + {b} = {ans}. The answer is $\\boxed{{{ans}}}$."
    elif kind == 1:
        q, ref = f"Simplify {a}/{a * b}.", f"\\frac{{1}}{{{b}}}"
        resp = f"Dividing numerator and denominator by {a} gives \\boxed{{\\frac{{1}}{{{b}}}}}."
    elif kind == 2:
        q, ref = f"A car travels {a} km in {b} hours. Speed in km/h?", f"{a / b:.2f} km/h"
        resp = f"Speed = distance / time = {a}/{b} = {a / b:.2f} km/h. Final answer: {a / b:.2f} km/h"
    else:
        q, ref = "Which option is correct? (A) red (B) blue (C) green (D) white", rng.choice("ABCD")
        resp = f"Considering each option in turn, the best choice is ({rng.choice('ABCD')})."
    return {"id": i, "question": q, "reference": ref, "response": resp, "source": "synthetic"}


def generate(path: Path, rows: int, seed: int = 0) -> int:
    rng = random.Random(seed)
    with open(path, "w", encoding="utf-8") as fh:
        for i in range(rows):
            fh.write(json.dumps(make_row(i, rng)))
            fh.write("\n")
    return path.stat().st_size


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--rows", type=int, default=1_000_000)
    ap.add_argument("--chunk-size", type=int, default=1000)
    ap.add_argument("--workers", type=int, default=2)
    ap.add_argument("--fallback", default="offline")
    ap.add_argument("--artifact", default=None)
    ap.add_argument("--backend", default="local", choices=("local", "dask"))
    ap.add_argument("--output-format", default="jsonl", choices=("jsonl", "parquet"))
    ap.add_argument("--factory", default=None, help="custom verifier factory module:function")
    ap.add_argument("--timeout", type=float, default=3600.0, help="give up after this many seconds")
    args = ap.parse_args()
    if args.rows < 1:
        ap.error("--rows must be positive")

    with tempfile.TemporaryDirectory(prefix="autoverifier-batchmem-") as tmp:
        src = Path(tmp) / "rows.jsonl"
        dst = Path(tmp) / f"verified.{args.output_format}"
        t = time.perf_counter()
        size = generate(src, args.rows)
        print(f"generated {args.rows:,} rows ({size / 1e6:,.0f} MB) in {time.perf_counter() - t:.1f}s")
        cmd = [sys.executable, "-c", "from autoverifier.cli import main; main()", "verify", "--input", str(src),
               "--output", str(dst), "--chunk-size", str(args.chunk_size), "--workers", str(args.workers),
               "--fallback", args.fallback, "--backend", args.backend]
        if args.artifact:
            cmd += ["--artifact", args.artifact]
        if args.factory:
            cmd += ["--factory", args.factory]
        env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(REPO), os.environ.get("PYTHONPATH", "")])}
        t = time.perf_counter()
        proc = subprocess.run(cmd, env=env, cwd=REPO, capture_output=True, text=True,
                              timeout=args.timeout)
        wall = time.perf_counter() - t
        peak_mb = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss / 1024  # KiB on Linux
        if proc.returncode != 0:
            print(proc.stderr[-3000:], file=sys.stderr)
            raise SystemExit(f"verify failed with exit code {proc.returncode}")
        tail = [ln for ln in proc.stderr.splitlines() if ln.startswith("rows ")]
        out_rows = sum(1 for _ in open(dst, encoding="utf-8")) if args.output_format == "jsonl" else None
    print(f"verify subprocess: {wall:.1f}s wall, {args.rows / wall:,.0f} rows/s end to end")
    if tail:
        print("summary:", tail[-1])
    if out_rows is not None:
        print(f"output rows: {out_rows:,}")
    verdict = "OK" if peak_mb <= TARGET_MB else "OVER TARGET"
    print(f"peak RSS of the verify process: {peak_mb:,.0f} MB (target <= {TARGET_MB} MB): {verdict}")


if __name__ == "__main__":
    main()
