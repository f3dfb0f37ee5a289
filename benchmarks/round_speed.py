"""Stage timings of offline construction rounds over the default pool, each round in a new process.

    .venv/bin/python benchmarks/round_speed.py [--config configs/construct.yaml] [--rounds 3]
                                               [--start-from empty|newest] [--warm] [--no-baseline]

The config's pool (``configs/pool.yaml``: the 10,000-example default pool; rounds run on its
construction split) and its round settings are used as they are; the rule bank and the store
are a fresh temporary folder, so nothing of the checkout changes. Each round runs in its own
Python process (as a scheduled deployment run or a new ``autoverifier construct`` does), with
the round's steps called as the Prefect tasks call them, and continues from the state the
previous round left.

* Round 1 starts with empty caches (a temporary project cache folder: numba's compiled UMAP
  and the embeddings, ``tasks/paths.py:cache_root``) unless ``--warm`` uses the checkout's
  ``data/cache``: it pays UMAP's numba compilation (20-40 s on this machine).
* Rounds 2.. reuse those caches: the steady state of "a round after the first".
* The baseline (unless ``--no-baseline``): one more round with the caches off
  (``AUTOVERIFIER_CACHE_DIR=off``), i.e. what every new process paid before; the ratio of the
  later rounds' mean to it is printed.

Prints each stage's seconds per round, the total, whether the target (a round after the first
<= 120 s) is met, and the machine's load (``os.getloadavg`` before and after each round: other
jobs on a 2-core machine stretch every figure, so compare stage times and ratios).
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))
os.environ.setdefault("PREFECT_LOGGING_LEVEL", "ERROR")

STAGES = ("prepare", "replay", "residuals", "cluster", "draft", "validation_replay", "validate", "freeze")
LABELS = {"validation_replay": "val.replay"}  # the base on the validation split, once per round
TARGET_S = 120.0


def run_one(cfg_path: str) -> dict:
    """One round in this process (the worker side); returns its timings and figures."""
    import warnings

    warnings.simplefilter("ignore")
    t0 = time.perf_counter()
    from tasks.construct import round as steps

    imported = time.perf_counter() - t0
    t0 = time.perf_counter()
    ctx = steps.prepare_round(cfg_path)
    try:
        chunks, rows = steps.chunk_rows(ctx)
        spec = steps.replay_spec(ctx)
        steps.collect_replay(ctx, chunks, [steps.replay_chunk(spec, r) for r in rows])
        steps.find_round_residuals(ctx)
        steps.cluster_round(ctx)
        steps.draft_round(ctx)
        steps.validate_round(ctx)
        steps.freeze_round(ctx)
        total = time.perf_counter() - t0
        from tasks.construct import jit_cache

        after = ctx.figures["after"]
        rep = ctx.pool_report
        # what the round found and decided, to compare a cached round with an uncached one on the same base
        # (card ids start with the round's number: compared without it)
        found = {"residuals": sorted(r["example_id"] for r in ctx.residuals),
                 "clusters": [sorted(ctx.state.examples[i].id for i in c["indices"]) for c in ctx.clusters],
                 "cards": sorted((c["card_id"].split("-", 1)[-1], c["status"], c["stage"])
                                 for c in ctx.accepted + ctx.rejected),
                 "figures": after}
        return {"round": ctx.round_no, "base": ctx.base.version, "pool": len(ctx.state), "timings": ctx.timings,
                "total": total, "import": imported, "accepted": len(ctx.accepted), "rejected": len(ctx.rejected),
                "residuals": len(ctx.residuals), "clusters": len(ctx.clusters), "coverage": after["coverage"],
                "accuracy": after["accuracy"], "direct_errors": after["direct_errors"],
                "data": rep.get("data"), "pool_total": (rep.get("pool") or {}).get("size"),
                "splits": (rep.get("pool") or {}).get("by_split"),
                "pool_cache": rep.get("from_cache"), "jit": jit_cache.status(),
                "outcome": {k: hashlib.sha256(json.dumps(v, sort_keys=True, default=str).encode()).hexdigest()[:16]
                            for k, v in found.items()}}
    finally:
        steps.close_round(ctx)


def spawn(cfg_path: str, env: dict[str, str]) -> dict:
    """A round in a new Python process; returns its record with the machine's load around it."""
    load0 = os.getloadavg()[0]
    t0 = time.perf_counter()
    out = subprocess.run([sys.executable, __file__, "--worker", cfg_path], env=env, capture_output=True, text=True)
    wall = time.perf_counter() - t0
    if out.returncode != 0:
        sys.stderr.write(out.stderr)
        raise SystemExit(f"the round process failed (exit {out.returncode})")
    rec = json.loads(out.stdout.strip().splitlines()[-1])
    rec.update(wall=wall, load=(load0, os.getloadavg()[0]))
    return rec


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--config", default=str(REPO / "configs" / "construct.yaml"))
    ap.add_argument("--rounds", type=int, default=3, help="rounds with the caches (the first one cold)")
    ap.add_argument("--start-from", default=None, help="override the config's start_from (empty | newest)")
    ap.add_argument("--warm", action="store_true", help="use the checkout's cache folder (data/cache) as it is")
    ap.add_argument("--no-baseline", action="store_true", help="skip the extra round with the caches off")
    ap.add_argument("--worker", help=argparse.SUPPRESS)
    args = ap.parse_args()
    if args.worker:
        print(json.dumps(run_one(args.worker), default=str))
        return

    import yaml

    tmp = Path(tempfile.mkdtemp(prefix="round-speed-"))
    data = yaml.safe_load(Path(args.config).read_text())
    data.update({"db": str(tmp / "bench.duckdb"), "rulebank": str(tmp / "rulebank")})
    if args.start_from:
        data["start_from"] = args.start_from
    pool = Path(data["pool"])
    data["pool"] = str(pool if pool.is_absolute() else REPO / pool)
    cfg_path = tmp / "config.yaml"
    cfg_path.write_text(yaml.safe_dump(data))
    env = {k: v for k, v in os.environ.items() if k != "NUMBA_CACHE_DIR"}
    env["AUTOVERIFIER_CACHE_DIR"] = str(REPO / "data" / "cache") if args.warm else str(tmp / "cache")

    pool_cfg = yaml.safe_load(Path(data["pool"]).read_text()).get("pool", {})
    print(f"config {args.config} (name {data.get('name')}, start_from {data.get('start_from')}, embedder "
          f"{(data.get('construction') or {}).get('embedder', 'tfidf')}); pool {data['pool']} "
          f"(name {pool_cfg.get('name')}, target_size {pool_cfg.get('target_size')}, seed {pool_cfg.get('seed')}); "
          f"caches {'data/cache (warm)' if args.warm else 'a fresh temporary folder (round 1 cold)'}; "
          f"{os.cpu_count()} cores")
    runs: list[tuple[str, dict]] = []
    for k in range(args.rounds):
        runs.append(("first" if k == 0 else "later", spawn(str(cfg_path), env)))
        _row(*runs[-1], header=k == 0)
    if not args.no_baseline:
        runs.append(("no cache", spawn(str(cfg_path), {**env, "AUTOVERIFIER_CACHE_DIR": "off"})))
        _row(*runs[-1])
    first = runs[0][1]
    print(f"\ndata: {first['data']}; pool {first['pool_total']} examples, splits {first['splits']}; rounds run on "
          f"the construction split ({first['pool']:,}); pool read from its cache: {bool(first['pool_cache'])}")
    later = [r for kind, r in runs if kind == "later"]
    if later:
        mean = sum(r["total"] for r in later) / len(later)
        worst = max(r["total"] for r in later)
        verdict = "met" if worst <= TARGET_S else "NOT met"
        print(f"a round after the first: mean {mean:.1f} s, worst {worst:.1f} s (process wall "
              f"{max(r['wall'] for r in later):.1f} s with imports) -> target <= {TARGET_S:.0f} s {verdict}")
        base = [r for kind, r in runs if kind == "no cache"]
        if base:
            b = base[0]
            print(f"baseline without caches: {b['total']:.1f} s (cluster {b['timings'].get('cluster', 0):.1f} s); "
                  f"later rounds take {mean / b['total']:.2f}x of it (cluster "
                  f"{_mean(later, 'cluster') / max(b['timings'].get('cluster', 0), 1e-9):.2f}x)")
            same = [r for r in later if r["base"] == b["base"]]
            if same:
                differ = sorted({k for r in same for k in b["outcome"] if r["outcome"][k] != b["outcome"][k]})
                print(f"same base {b['base']} with and without caches ({len(same)} cached round(s) compared): "
                      + (f"DIFFERENT {', '.join(differ)}" if differ else "identical residuals, clusters, cards, figures")
                      + (" (the residuals differ: the replay's per-call wall-clock budget, module_budget_s, moved a "
                         "decision under load; the clusters follow)" if "residuals" in differ else ""))
    print(f"first round (cold caches): {first['total']:.1f} s, cluster {first['timings'].get('cluster', 0):.1f} s")
    print("load average (1 min) around the rounds: "
          + ", ".join(f"{a:.2f}->{b:.2f}" for _, r in runs for a, b in [r["load"]]) + f"; uptime: {_uptime()}")


def _mean(rows: list[dict], stage: str) -> float:
    return sum(r["timings"].get(stage, 0.0) for r in rows) / max(len(rows), 1)


def _row(kind: str, r: dict, header: bool = False) -> None:
    if header:
        print(f"{'run':>8} {'round':>5} {'base':>6} " + " ".join(f"{LABELS.get(s, s):>10}" for s in STAGES)
              + f" {'total':>8} {'wall':>7} {'resid':>6} {'clust':>5} {'acc':>4} {'coverage':>8} {'accuracy':>8} "
              f"{'d.err':>5} {'load':>10}")
    t = r["timings"]
    print(f"{kind:>8} {r['round']:>5} {r['base']:>6} " + " ".join(f"{t.get(s, 0.0):>10.2f}" for s in STAGES)
          + f" {r['total']:>8.2f} {r['wall']:>7.1f} {r['residuals']:>6} {r['clusters']:>5} {r['accepted']:>4} "
          f"{r['coverage']:>8.2%} {r['accuracy']:>8.2%} {r['direct_errors']:>5} "
          f"{r['load'][0]:>4.2f}->{r['load'][1]:.2f}", flush=True)


def _uptime() -> str:
    try:
        return subprocess.run(["uptime"], capture_output=True, text=True).stdout.strip()
    except OSError:
        return "n/a"


if __name__ == "__main__":
    main()
