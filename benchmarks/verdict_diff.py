"""Every verdict of the runtime on a fixed set of triples, recorded and compared between two code states.

    .venv/bin/python benchmarks/verdict_diff.py record OUT.json [--no-pool] [--artifact PATH]
    .venv/bin/python benchmarks/verdict_diff.py compare A.json B.json [--show 40]

``record`` writes, for each triple, every module's decision (label and reason, no
short-circuit) and the offline judge's verdict. The triples: the shared benchmark samples
(when present), the golden and hedge suites, and the construction pool of
``configs/pool.yaml`` (unless ``--no-pool``). ``compare`` matches two records by triple text
and prints each triple whose decisions differ, then the count: a toolkit change meant to
leave verdicts alone shows 0, and one meant to fix a class shows exactly the triples it moves.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import time
from itertools import zip_longest
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))
sys.path.insert(0, str(REPO / "tests"))


def triples(with_pool: bool) -> list[tuple[str, str, str]]:
    out: list[tuple[str, str, str]] = []
    root = Path(os.environ.get("AUTOVERIFIER_SHARED", REPO.parent / "shared")) / "benchmarks"
    for name in ("verifybench", "verifybench_hard", "sci_verifybench"):
        f = root / name / "sample.jsonl"
        if f.is_file():
            for line in f.read_text(encoding="utf-8").splitlines():
                if line.strip():
                    d = json.loads(line)
                    out.append((d.get("question", ""), d.get("answer", ""), d.get("model_ans", "")))
    from golden_cases import load_suite

    for suite in ("judgment", "hedges"):
        out += [(c["question"], c["reference"], c["response"]) for c in load_suite(suite)]
    if with_pool:
        from tasks.data.pool import build_pool

        out += [(e.question, e.reference, e.response) for e in build_pool(REPO / "configs" / "pool.yaml").examples]
    return out


def record(path: Path, with_pool: bool, artifact: str | None) -> int:
    from verifier_runtime import load_verifier
    from verifier_runtime.toolkit.criterion import judge

    v = load_verifier(artifact, fallback="none")
    rows = []
    for q, r, s in triples(with_pool):
        row = [f"{mid} {d.label}|{d.reason}" for mid, d in v.decide_all(q, r, s)]
        j = judge(q, r, s)
        rows.append({"triple": [q, r, s], "decisions": row + [f"judge {j.correct}|{j.reason}"]})
    path.write_text(json.dumps({"artifact": v.artifact_version, "rows": rows}), encoding="utf-8")
    return len(rows)


def compare(a: Path, b: Path, show: int) -> int:
    ra = {tuple(r["triple"]): r["decisions"] for r in json.loads(a.read_text(encoding="utf-8"))["rows"]}
    rb = {tuple(r["triple"]): r["decisions"] for r in json.loads(b.read_text(encoding="utf-8"))["rows"]}
    common = [t for t in ra if t in rb]
    print(f"{len(ra) - len(common)} triples only in {a.name}; {len(rb) - len(common)} only in {b.name}")
    differ = 0
    for t in common:
        if ra[t] == rb[t]:
            continue
        differ += 1
        if differ <= show:
            q, r, s = (x.replace("\n", " ") for x in t)
            print(f"Q {q[-120:]} | REF {r[:80]} | RESP {s[-150:]}")
            for x, y in zip_longest(ra[t], rb[t], fillvalue="-"):  # releases may differ in modules
                if x != y:
                    print(f"    {x} -> {y}")
    print(f"{differ} triples differ of {len(common)}")
    return differ


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = ap.add_subparsers(dest="cmd", required=True)
    rec = sub.add_parser("record")
    rec.add_argument("out", type=Path)
    rec.add_argument("--no-pool", action="store_true", help="samples and golden suites only")
    rec.add_argument("--artifact", default=None)
    cmp_ = sub.add_parser("compare")
    cmp_.add_argument("a", type=Path)
    cmp_.add_argument("b", type=Path)
    cmp_.add_argument("--show", type=int, default=40)
    args = ap.parse_args()
    if args.cmd == "record":
        t0 = time.perf_counter()
        n = record(args.out, not args.no_pool, args.artifact)
        print(f"recorded {n} triples in {time.perf_counter() - t0:.1f} s -> {args.out}")
    else:
        compare(args.a, args.b, args.show)


if __name__ == "__main__":
    main()
