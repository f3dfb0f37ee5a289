"""Load test of the reward servers on loopback: one-sample clients at rising concurrency.

OpenRLHF (>= 0.10) posts one sample per request right after each generation, each on a fresh
connection. For each server engine (``stdlib``, the first server and the baseline, and
``asgi``, uvicorn + starlette) this script starts ``autoverifier serve`` on a free 127.0.0.1
port in a subprocess, then at each concurrency level runs that many clients, each posting
one-sample requests back to back on fresh connections (closed loop, no think time), until
``--requests`` requests are done or ``--duration`` seconds pass. It prints errors (refused or
reset connections, non-200 answers, wrong bodies), latency percentiles and throughput per
engine and level, side by side, then stops each server with SIGTERM.

    python benchmarks/serve_load.py                       # 8, 32, 128, 256 clients, both engines
    python benchmarks/serve_load.py --levels 128 --engines asgi --requests 4000
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import random
import signal
import socket
import subprocess
import sys
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


def bodies(n: int, seed: int) -> list[bytes]:
    rng = random.Random(seed)
    out = []
    for _ in range(n):
        r = make_row(rng.randint(0, 10**6), rng)
        prompt = f"<|im_start|>user\n{r['question']}<|im_end|>\n<|im_start|>assistant\n"
        out.append(json.dumps({"query": [prompt + r["response"] + "<|im_end|>"], "prompts": [prompt],
                               "labels": [r["reference"]]}).encode())
    return out


def percentile(values: list[float], q: float) -> float:
    s = sorted(values)
    return s[min(len(s) - 1, max(0, round(q / 100 * (len(s) - 1))))]


async def one_request(port: int, body: bytes, timeout: float) -> tuple[bool, str]:
    head = (f"POST /get_reward HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\nContent-Type: application/json\r\n"
            f"Content-Length: {len(body)}\r\nConnection: close\r\n\r\n").encode()
    reader, writer = await asyncio.wait_for(asyncio.open_connection("127.0.0.1", port), timeout)
    try:
        writer.write(head + body)
        await writer.drain()
        data = await asyncio.wait_for(reader.read(), timeout)
    finally:
        writer.close()
    status_line, _, rest = data.partition(b"\r\n")
    if not status_line.startswith((b"HTTP/1.1 200", b"HTTP/1.0 200")):
        return False, f"status {status_line[:40].decode(errors='replace')!r}"
    payload = rest.partition(b"\r\n\r\n")[2]
    try:
        ok = len(json.loads(payload)["rewards"]) == 1
    except (ValueError, KeyError):
        ok = False
    return ok, "" if ok else "unreadable body"


async def run_level(port: int, clients: int, total: int, duration: float, work: list[bytes]) -> dict:
    latencies: list[float] = []
    errors: dict[str, int] = {}
    counter = iter(range(total))
    stop_at = time.perf_counter() + duration

    async def client() -> None:
        for i in counter:
            if time.perf_counter() > stop_at:
                return
            t = time.perf_counter()
            try:
                ok, why = await one_request(port, work[i % len(work)], 60.0)
            except (TimeoutError, OSError) as exc:
                ok, why = False, type(exc).__name__
            if ok:
                latencies.append(time.perf_counter() - t)
            else:
                errors[why] = errors.get(why, 0) + 1

    t0 = time.perf_counter()
    await asyncio.gather(*(client() for _ in range(clients)))
    wall = time.perf_counter() - t0
    ms = [x * 1000 for x in latencies]
    return {"clients": clients, "ok": len(ms), "errors": sum(errors.values()), "kinds": errors, "wall": wall,
            "rps": len(ms) / wall if wall else 0.0, "p50": percentile(ms, 50) if ms else float("nan"),
            "p99": percentile(ms, 99) if ms else float("nan"), "max": max(ms) if ms else float("nan")}


def start_server(engine: str, args: argparse.Namespace) -> tuple[subprocess.Popen, int]:
    port = free_port()
    cmd = [sys.executable, "-c", "from autoverifier.cli import main; main()", "serve", "--host", "127.0.0.1",
           "--port", str(port), "--engine", engine, "--fallback", args.fallback, "--threads", str(args.threads),
           "--workers", "1"]
    if args.artifact:
        cmd += ["--artifact", args.artifact]
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(REPO), os.environ.get("PYTHONPATH", "")])}
    proc = subprocess.Popen(cmd, env=env, cwd=REPO, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    deadline = time.time() + 90
    while True:
        try:
            with urllib.request.urlopen(f"http://127.0.0.1:{port}/health", timeout=2) as r:
                json.loads(r.read())
            return proc, port
        except (urllib.error.URLError, ConnectionError):
            if proc.poll() is not None or time.time() > deadline:
                proc.kill()
                raise SystemExit(f"{engine} server did not start: {proc.stderr.read()[-2000:]}") from None
            time.sleep(0.2)


def stop_server(proc: subprocess.Popen) -> int:
    proc.send_signal(signal.SIGTERM)
    try:
        return proc.wait(60)
    except subprocess.TimeoutExpired:
        proc.kill()
        return proc.wait()


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--levels", type=int, nargs="+", default=[8, 32, 128, 256], help="concurrent clients")
    ap.add_argument("--engines", nargs="+", default=["stdlib", "asgi"], choices=["stdlib", "asgi"])
    ap.add_argument("--requests", type=int, default=2000, help="requests per level (upper bound)")
    ap.add_argument("--duration", type=float, default=30.0, help="seconds per level (upper bound)")
    ap.add_argument("--threads", type=int, default=4, help="server verification threads (asgi)")
    ap.add_argument("--fallback", default="offline")
    ap.add_argument("--artifact", default=None)
    args = ap.parse_args()
    if not all(1 <= n <= 1024 for n in args.levels) or not 1 <= args.requests <= 100_000:
        ap.error("levels in 1..1024, requests in 1..100000")

    work = bodies(1000, seed=7)
    results: dict[str, list[dict]] = {}
    for engine in args.engines:
        proc, port = start_server(engine, args)
        try:
            asyncio.run(run_level(port, 8, 200, 10.0, work))  # warm-up: imports, caches, first connections
            results[engine] = [asyncio.run(run_level(port, n, args.requests, args.duration, work)) for n in args.levels]
        finally:
            code = stop_server(proc)
        print(f"{engine}: server exit code after SIGTERM: {code}")

    print(f"\none-sample requests on fresh connections, fallback {args.fallback}, "
          f"up to {args.requests} requests or {args.duration:g} s per level")
    head = f"{'clients':>7} | " + " | ".join(f"{e:^44}" for e in results)
    print(head)
    print(f"{'':>7} | " + " | ".join(f"{'errors':>6} {'req/s':>7} {'p50 ms':>7} {'p99 ms':>7} {'max ms':>7}   "
                                    for _ in results))
    for i, n in enumerate(args.levels):
        cells = []
        for e in results:
            r = results[e][i]
            cells.append(f"{r['errors']:>6} {r['rps']:>7.0f} {r['p50']:>7.1f} {r['p99']:>7.1f} {r['max']:>7.1f}   ")
        print(f"{n:>7} | " + " | ".join(cells))
    if "stdlib" in results and "asgi" in results:
        ratios = [results["asgi"][i]["rps"] / max(results["stdlib"][i]["rps"], 1e-9) for i in range(len(args.levels))]
        print("asgi / stdlib throughput: " + ", ".join(f"{n}: {r:.2f}x" for n, r in zip(args.levels, ratios, strict=True)))
    for e in results:
        for r in results[e]:
            if r["kinds"]:
                print(f"{e} at {r['clients']} clients: {r['kinds']}")


if __name__ == "__main__":
    main()
