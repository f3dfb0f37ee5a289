"""Helpers shared by tests: small releases from module sources, a small construction pool."""

from __future__ import annotations

import json
from pathlib import Path

import yaml

from verifier_runtime.artifact import ModuleEntry, ReleaseSpec, write_release


def module_source(mid: str, body: str, *, group: str = "verdict_matching", priority: int = 10,
                  imports: str = "") -> str:
    """A policy-compliant module whose ``decide`` body is ``body`` (indented by 4 spaces)."""
    indented = "\n".join("    " + ln if ln.strip() else ln for ln in body.strip("\n").splitlines())
    return (
        f'"""Test module {mid}."""\n\n'
        f"{imports}\n"
        "from verifier_runtime.types import Decision\n\n"
        f"MODULE = {{'id': {mid!r}, 'group': {group!r}, 'priority': {priority}, 'card_id': 'card-{mid}', "
        f"'description': 'test module'}}\n\n\n"
        f"def decide(x):\n{indented}\n\n\n"
        "SUPPORT = []\n\nCOUNTEREXAMPLES = []\n"
    )


def build_release(dest: Path, modules: list[tuple[str, str, str, int]], version: str = "r0001",
                  guidance: str = "") -> Path:
    """``modules``: (id, group, source, priority)."""
    spec = ReleaseSpec(
        version=version,
        modules=[(ModuleEntry(mid, group, prio, f"card-{mid}", "test"), src) for mid, group, src, prio in modules],
        template="Q: {question}\nR: {reference}\nA: {response}\n{guidance}\nFinal Judgment: Yes or No",
        guidance=guidance,
    )
    return write_release(spec, dest)


PEOPLE = [
    ("Who wrote the novel Kestrel Bay?", "Mara Ellison/M. Ellison"),
    ("Who painted The Quiet Harbour?", "Tomas Vell/T. Vell"),
    ("Who founded the Arden Trust?", "Lucia Ferro/Lady Ferro"),
    ("Who composed the Lantern Suite?", "Oskar Brandt/O. Brandt"),
    ("Who discovered the Pell comet?", "Ines Pell/I. Pell"),
    ("Who designed the Corvid bridge?", "Henrik Sallo/H. Sallo"),
    ("Who directed the film Salt Road?", "Amara Quist/A. Quist"),
    ("Who coached the Harbor Lions in 1990?", "Dev Mallory/Coach Mallory"),
    ("Who invented the Tarn valve?", "Ruth Tarn/R. Tarn"),
    ("Who led the Ostrava expedition?", "Pavel Kros/P. Kros"),
    ("Who translated the Vesna poems?", "Clara Moen/C. Moen"),
    ("Who built the Ember observatory?", "Jonah Vale/J. Vale"),
]


def alias_pool() -> list[dict]:
    """Open-QA answers with alias references (the offline fallback misses them), two traps, ten sums."""
    rows = []
    for k, (q, ref) in enumerate(PEOPLE):
        alias = ref.split("/")[k % 2]
        rows.append({"id": f"pos{k}", "question": q, "reference": ref, "response": f"Records of that year are patchy. It was {alias}, by every account. "
                                 "The work took two years.",
                     "label": True, "source": "fixture", "domain": "open_qa"})
        rows.append({"id": f"neg{k}", "question": q, "reference": ref, "response": "It was Someone Else.",
                     "label": False, "source": "fixture", "domain": "open_qa"})
    for k in range(2):  # traps: an alias is mentioned, but the answer names someone else
        q, ref = PEOPLE[k]
        alias = ref.split("/")[0]
        rows.append({"id": f"trap{k}", "question": q, "reference": ref, "label": False, "source": "fixture",
                     "domain": "open_qa",
                     "response": "Records of that year are patchy and the archive was damaged twice. For a long "
                                 f"time people in the town thought it was {alias}, and the claim was repeated in "
                                 "several histories of the town and of its trade. The letters found later show "
                                 "that her younger cousin Petra did it, and the family kept it quiet for decades."})
    for k in range(10):  # plain numbers the fallback already gets right (a coverage group)
        rows.append({"id": f"num{k}", "question": f"What is {k} + {k}?", "reference": str(2 * k),
                     "response": f"The answer is {2 * k if k % 3 else 2 * k + 1}.", "label": bool(k % 3),
                     "source": "fixture", "domain": "math"})
    return rows


def small_construct_config(tmp_path: Path, **overrides) -> Path:
    """A construction config over :func:`alias_pool` writing everything under ``tmp_path``."""
    pool_file = tmp_path / "pool.jsonl"
    pool_file.write_text("".join(json.dumps(r) + "\n" for r in alias_pool()))
    pool_cfg = tmp_path / "pool.yaml"
    pool_cfg.write_text(yaml.safe_dump({"pool": {
        "target_size": 1000, "seed": 1, "split": {"construction": 1.0}, "diagnostics": 0,
        "sources": [{"name": "fixture", "path": str(pool_file), "format": "autoverifier"}],
        "eval_sets": [], "decontamination": {"policy": "report"}}}))
    cfg = tmp_path / "construct.yaml"
    cfg.write_text(yaml.safe_dump({
        "name": "e2e", "db": str(tmp_path / "e2e.duckdb"), "rulebank": str(tmp_path / "rulebank"),
        "start_from": "empty", "fallback": "offline", "rounds": 1, "pool": str(pool_cfg), "chunk_size": 10,
        "construction": {"max_clusters": 4, "coverage_groups": 2, "candidates_per_cluster": 3, "min_support": 3,
                         "max_counterexample_errors": 50, "max_new_direct_errors": 0, "min_cluster_size": 5,
                         "counterexamples_k": 10, "audit": True, "cases_per_module": 3,
                         "search_sentinels": 0},  # no pre-screening: the broad variant must reach full replay
        **overrides,
    }))
    return cfg
