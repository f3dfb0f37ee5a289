"""Load test of the reward server on loopback: latency percentiles and throughput.

Starts ``autoverifier serve`` on a free 127.0.0.1 port in a subprocess, runs ``--clients``
concurrent clients that each post up to ``--requests`` OpenRLHF-style batches of
``--batch`` samples (bounded by ``--duration`` seconds overall), then stops the server with
SIGTERM. Traffic goes to the loopback address only.

    python benchmarks/serve_load.py --clients 8 --requests 25 --batch 16
"""

from __future__ import annotations

import argparse
import json
import os
import random
import signal
import socket
import statistics
import subprocess
import sys
import threading
import time
import urllib.error
import urllib.request
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO / "benchmarks"))
from batch_memory import make_row  # noqa: E402 - sibling benchmark's synthetic rows


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def payload(batch: int, rng: random.Random) -> bytes:
    rows = [make_row(rng.randint(0, 10**6), rng) for _ in range(batch)]
    prompts = [f"<|im_start|>user\n{r['question']}<|im_end|>\n<|im_start|>assistant\n" for r in rows]
    return json.dumps({"query": [p + r["response"] + "<|im_end|>" for p, r in zip(prompts, rows, strict=True)],
                       "prompts": prompts, "labels": [r["reference"] for r in rows]}).encode()


def percentile(values: list[float], q: float) -> float:
    s = sorted(values)
    k = min(len(s) - 1, max(0, round(q / 100 * (len(s) - 1))))
    return s[k]


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--clients", type=int, default=8)
    ap.add_argument("--requests", type=int, default=25, help="requests per client (upper bound)")
    ap.add_argument("--batch", type=int, default=16, help="samples per request")
    ap.add_argument("--duration", type=float, default=60.0, help="stop sending after this many seconds")
    ap.add_argument("--workers", type=int, default=2, help="server verification threads per request")
    ap.add_argument("--fallback", default="offline")
    ap.add_argument("--artifact", default=None)
    ap.add_argument("--factory", default=None, help="custom verifier factory module:function")
    args = ap.parse_args()
    if min(args.clients, args.requests, args.batch) < 1 or args.clients > 256 or args.requests > 10_000:
        ap.error("clients in 1..256, requests in 1..10000, batch >= 1")

    port = free_port()
    cmd = [sys.executable, "-c", "from autoverifier.cli import main; main()", "serve", "--host", "127.0.0.1",
           "--port", str(port), "--workers", str(args.workers), "--fallback", args.fallback]
    if args.artifact:
        cmd += ["--artifact", args.artifact]
    if args.factory:
        cmd += ["--factory", args.factory]
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(REPO), os.environ.get("PYTHONPATH", "")])}
    server = subprocess.Popen(cmd, env=env, cwd=REPO, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    base = f"http://127.0.0.1:{port}"
    try:
        deadline = time.time() + 60
        while True:
            try:
                with urllib.request.urlopen(base + "/health", timeout=2) as r:
                    health = json.loads(r.read())
                break
            except (urllib.error.URLError, ConnectionError):
                if server.poll() is not None or time.time() > deadline:
                    raise SystemExit(f"server did not start: {server.stderr.read()[-2000:]}") from None
                time.sleep(0.2)
        print(f"server up: artifact {health['artifact_version']}, {health['modules']} modules, "
              f"fallback {args.fallback}")

        latencies: list[float] = []
        errors: list[str] = []
        lock = threading.Lock()
        stop_at = time.perf_counter() + args.duration

        def client(seed: int) -> None:
            rng = random.Random(seed)
            for _ in range(args.requests):
                if time.perf_counter() > stop_at:
                    return
                body = payload(args.batch, rng)
                req = urllib.request.Request(base + "/get_reward", data=body, method="POST",
                                             headers={"Content-Type": "application/json"})
                t = time.perf_counter()
                try:
                    with urllib.request.urlopen(req, timeout=120) as r:
                        out = json.loads(r.read())
                    ok = len(out.get("rewards", [])) == args.batch
                except Exception as exc:  # counted, reported
                    with lock:
                        errors.append(f"{type(exc).__name__}: {exc}")
                    continue
                with lock:
                    if ok:
                        latencies.append(time.perf_counter() - t)
                    else:
                        errors.append("wrong number of rewards")

        t0 = time.perf_counter()
        threads = [threading.Thread(target=client, args=(i,)) for i in range(args.clients)]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
        wall = time.perf_counter() - t0
    finally:
        server.send_signal(signal.SIGTERM)
        try:
            server.wait(30)
        except subprocess.TimeoutExpired:
            server.kill()
            server.wait()

    n = len(latencies)
    print(f"{args.clients} clients, {n} requests x {args.batch} samples in {wall:.1f}s, {len(errors)} errors")
    if errors:
        print("first error:", errors[0])
    if n:
        ms = [x * 1000 for x in latencies]
        print(f"latency ms: p50 {percentile(ms, 50):.1f}  p90 {percentile(ms, 90):.1f}  p99 {percentile(ms, 99):.1f}  "
              f"max {max(ms):.1f}  mean {statistics.fmean(ms):.1f}")
        print(f"throughput: {n / wall:.1f} requests/s, {n * args.batch / wall:,.0f} samples/s")
    print(f"server exit code after SIGTERM: {server.returncode}")


if __name__ == "__main__":
    main()
