"""Stage timings of construction rounds over the ~5,000-example demo pool, offline.

    .venv/bin/python benchmarks/round_speed.py [--config configs/demo.yaml] [--rounds 2]

Runs the round's steps (the same functions the Prefect tasks wrap) in this process, with a
fresh rule bank in a temporary folder, and prints each stage's seconds per round and the
total. The first round includes UMAP's one-off numba compilation (30-40 s per process);
later rounds show the steady state. Target: a round in <= 2 minutes on this machine.
"""

from __future__ import annotations

import argparse
import os
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))
os.environ.setdefault("PREFECT_LOGGING_LEVEL", "ERROR")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--config", default=str(REPO / "configs" / "demo.yaml"))
    ap.add_argument("--rounds", type=int, default=2)
    args = ap.parse_args()

    import yaml

    from tasks.construct import round as steps

    tmp = Path(tempfile.mkdtemp(prefix="round-speed-"))
    data = yaml.safe_load(Path(args.config).read_text())
    data.update({"db": str(tmp / "bench.duckdb"), "rulebank": str(tmp / "rulebank"), "start_from": "empty"})
    data["pool"] = str((REPO / data["pool"]) if not Path(data["pool"]).is_absolute() else data["pool"])
    cfg_path = tmp / "config.yaml"
    cfg_path.write_text(yaml.safe_dump(data))
    stages = ("prepare", "replay", "residuals", "cluster", "draft", "validate", "freeze")
    print(f"{'round':>5} {'pool':>6} " + " ".join(f"{s:>9}" for s in stages) + f" {'total':>8} {'accepted':>8} {'coverage':>8} {'accuracy':>8} {'d.err':>6}")
    for _ in range(args.rounds):
        t0 = time.perf_counter()
        ctx = steps.prepare_round(str(cfg_path))
        chunks, rows = steps.chunk_rows(ctx)
        spec = steps.replay_spec(ctx)
        steps.collect_replay(ctx, chunks, [steps.replay_chunk(spec, r) for r in rows])
        steps.find_round_residuals(ctx)
        steps.cluster_round(ctx)
        steps.draft_round(ctx)
        steps.validate_round(ctx)
        steps.freeze_round(ctx)
        total = time.perf_counter() - t0
        after = ctx.figures["after"]
        print(f"{ctx.round_no:>5} {len(ctx.state):>6} " + " ".join(f"{ctx.timings.get(s, 0.0):>9.2f}" for s in stages)
              + f" {total:>8.2f} {len(ctx.accepted):>8} {after['coverage']:>8.2%} {after['accuracy']:>8.2%} {after['direct_errors']:>6}")
        steps.close_round(ctx)  # the store and the rule bank's lock


if __name__ == "__main__":
    main()
