"""Metamorphic check of the runtime: a correct response made incorrect must stop passing.

    .venv/bin/python benchmarks/perturbation.py [--show 5] [--json out.json]

Takes every case of the golden and hedge suites labelled correct and appends, one at a time, a
text that turns its committed answer into something the criterion (``docs/criterion.md``)
calls incorrect: the answer asked back as a question, a second candidate offered after it, a
doubt resolved to another value, a second final-answer line with another value, a retraction
followed by a conceded alternative, and a note that the answer is wrong. The other value is
``987`` (``654`` where the reference holds 987). For each kind the script prints how many
perturbed responses the direct path (code modules alone, ``fallback="none"``) and the offline
verifier (modules, then the offline judge) still judge correct; each of those is a reward an RL
policy could collect by hedging. The figures are counts, not a pass/fail; the exit code is 0.
"""

from __future__ import annotations

import argparse
import json
import re
import sys
import time
from collections import Counter
from collections.abc import Callable
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))
sys.path.insert(0, str(REPO / "tests"))


def _asked(resp: str, other: str, ref: str) -> str:
    """The committed answer's sentence asked back: 'The answer is 14.' -> 'The answer is 14?'."""
    return re.sub(r"[.!\s]*$", "", resp) + "?"


PERTURBATIONS: dict[str, Callable[[str, str, str], str]] = {
    "asked": _asked,
    "alternative": lambda resp, other, ref: f"{resp} Or maybe it is {other}.",
    "doubt": lambda resp, other, ref: f"{resp} Hmm, or is it {other}? I'll go with {other}.",
    "second_answer": lambda resp, other, ref: f"{resp}\n\nAnswer: {other}",
    "retract_then_concede": lambda resp, other, ref: f"{resp} Actually no, it's {other}. But maybe the first one is also correct.",
    "marked_wrong": lambda resp, other, ref: f"{resp} (This is wrong; the answer is {other}.)",
}


def correct_cases() -> list[dict]:
    from golden_cases import load_suite

    return [c for suite in ("judgment", "hedges") for c in load_suite(suite) if c["label"] is True]


def run(show: int) -> dict:
    from verifier_runtime import load_verifier

    direct = load_verifier(fallback="none")
    offline = load_verifier(fallback="offline")
    cases = correct_cases()
    passed: dict[str, Counter] = {k: Counter() for k in PERTURBATIONS}
    examples: dict[str, list[str]] = {k: [] for k in PERTURBATIONS}
    t0 = time.perf_counter()
    for c in cases:
        other = "654" if "987" in c["reference"] else "987"
        for kind, fn in PERTURBATIONS.items():
            resp = fn(c["response"], other, c["reference"])
            d = direct.verify(c["question"], c["reference"], resp)
            o = offline.verify(c["question"], c["reference"], resp)
            passed[kind]["direct"] += d.correct is True
            passed[kind]["offline"] += o.correct is True
            if (d.correct is True or o.correct is True) and len(examples[kind]) < show:
                who = "direct " + d.decided_by if d.correct else "offline " + o.reason
                examples[kind].append(f"{c['id']} [{who}] REF {c['reference'][:40]!r} RESP {resp[-120:]!r}")
    return {"cases": len(cases), "seconds": round(time.perf_counter() - t0, 1),
            "passed": {k: dict(v) for k, v in passed.items()}, "examples": examples}


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--show", type=int, default=5, help="examples printed per kind")
    ap.add_argument("--json", type=Path, help="write the figures here")
    a = ap.parse_args()
    res = run(a.show)
    print(f"{res['cases']} correct cases, {len(PERTURBATIONS)} perturbations each ({res['seconds']} s)")
    print(f"  {'perturbation':22s} {'direct PASS':>11s} {'offline PASS':>12s}")
    for kind, c in res["passed"].items():
        print(f"  {kind:22s} {c.get('direct', 0):11d} {c.get('offline', 0):12d}")
    tot_d = sum(c.get("direct", 0) for c in res["passed"].values())
    tot_o = sum(c.get("offline", 0) for c in res["passed"].values())
    print(f"  {'total':22s} {tot_d:11d} {tot_o:12d}   (of {res['cases'] * len(PERTURBATIONS)})")
    for kind, ex in res["examples"].items():
        for line in ex:
            print(f"  {kind}: {line}")
    if a.json:
        a.json.write_text(json.dumps(res, indent=1), encoding="utf-8")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
