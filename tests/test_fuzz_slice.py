"""The CI slice of the fuzz harness: 2,000 hostile triples, none escapes, none runs over 2 s."""

from __future__ import annotations

import sys
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent


def test_fuzz_slice_2000_triples():
    sys.path.insert(0, str(REPO / "benchmarks"))
    try:
        import fuzz
    finally:
        sys.path.remove(str(REPO / "benchmarks"))
    (summary,) = fuzz.main(["--count", "2000", "--threads", "2", "--processes", "0", "--duration", "240"])
    assert summary["n"] == 2000
    assert summary["escaped"] == 0
    assert summary["over_limit"] == 0
    assert summary["rss_growth_mb"] < 200
    assert summary["probe_max_ms"] < summary["budget_s"] * 1000 + 500
