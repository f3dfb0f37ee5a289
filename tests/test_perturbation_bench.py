"""benchmarks/perturbation.py: correct golden answers made incorrect stop passing."""

from __future__ import annotations

import importlib.util
from pathlib import Path

SCRIPT = Path(__file__).resolve().parent.parent / "benchmarks" / "perturbation.py"


def test_perturbed_correct_answers_do_not_pass() -> None:
    spec = importlib.util.spec_from_file_location("perturbation_bench", SCRIPT)
    mod = importlib.util.module_from_spec(spec)
    assert spec.loader is not None
    spec.loader.exec_module(mod)
    res = mod.run(show=3)
    assert res["cases"] > 800
    passed = res["passed"]
    # a second candidate, a doubt resolved to another value, a second final answer, a retraction then a
    # concession, an answer declared wrong: none may pass, on the direct path or offline
    for kind in ("doubt", "second_answer", "retract_then_concede", "marked_wrong"):
        assert passed[kind].get("direct", 0) == 0, (kind, res["examples"][kind])
        assert passed[kind].get("offline", 0) == 0, (kind, res["examples"][kind])
    assert passed["alternative"].get("direct", 0) == 0, res["examples"]["alternative"]
    assert passed["alternative"].get("offline", 0) <= 1, res["examples"]["alternative"]
    # "asked" also turns closing remarks into questions ("Let me know if you have questions?"), which
    # leave the answer standing: bounded, not zero
    assert passed["asked"].get("direct", 0) <= 60, res["examples"]["asked"]
