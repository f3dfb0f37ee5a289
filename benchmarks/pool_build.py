"""Construction pool build: stage timings, loader yields, decontamination drops, composition.

    .venv/bin/python benchmarks/pool_build.py [--config configs/pool.yaml]

Builds the pool twice in this process: from the sources (no cache) and then from a cache in
a temporary folder (the way construction rounds after the first read it), and prints the
seconds of each stage, the cached read against the full build, what each loader yielded,
what decontamination dropped and why, and the composition table.
"""

from __future__ import annotations

import argparse
import sys
import tempfile
import time
import warnings
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--config", default=str(REPO / "configs" / "pool.yaml"))
    args = ap.parse_args()

    from tasks.data.pool import PoolConfig, build_pool, composition_markdown

    cfg = PoolConfig.from_yaml(args.config)
    cfg.cache = tempfile.mkdtemp(prefix="pool-cache-")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        t0 = time.perf_counter()
        full = build_pool(cfg)
        t_full = time.perf_counter() - t0
        t0 = time.perf_counter()
        cached = build_pool(cfg)
        t_cached = time.perf_counter() - t0
    assert [e.id for e in cached] == [e.id for e in full]
    rep = full.report
    print(f"pool: {len(full)} examples ({rep['data']}), seed {rep['seed']}")
    print(f"build from the sources: {t_full:.1f} s  (stages: {rep['timings']})")
    print(f"read from the cache:    {t_cached:.2f} s  ({t_full / max(t_cached, 1e-9):.0f}x faster)")
    print("\nloader yields:")
    for ld in rep["loads"]:
        print(f"  {ld['name']:16s} records {ld['records']:6d}  labelled {ld['loaded']:6d}  questions "
              f"{ld['questions']:5d}  responses {ld['responses']:6d}  errors {ld['errors']}  {ld['seconds']} s"
              + (f"  first error: {ld['first_errors'][0]}" if ld["first_errors"] else ""))
    dec = rep.get("decontamination")
    if dec:
        print(f"\ndecontamination: {dec['audited_questions']} question texts audited, {dec['contaminated_questions']} "
              f"questions contaminated, matches by kind {dec['matches_by_kind']}")
        print(f"  dropped by source: {rep['decontamination_dropped']}")
        print(f"  constructed variants dropped after the second audit: {rep.get('constructed_decontamination_dropped', 0)}")
        for m in dec["matches"][:8]:
            print(f"  {m['eval_set']:16s} {m['kind']:16s} {m['score']:.3f} {m['pool_source']:14s} "
                  f"{len(m['eval_ids'])} eval item(s)  {m['question'][:60]!r}")
    print()
    print(composition_markdown(rep))


if __name__ == "__main__":
    main()
