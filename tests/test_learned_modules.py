"""Every module in every shipped release decides its own cases.

Discovered from the rule bank (no hand-kept list). Releases built from the source carry each
module's gold-labelled cases as ``cases/<id>.jsonl``; older releases carry ``SUPPORT`` and
``COUNTEREXAMPLES`` inside the module file. The loaded module must reproduce them. (The
source's own cases, ``rulebank/modules/<id>/cases.jsonl``, run in ``test_rulebank.py``.)
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from verifier_runtime.artifact import load_artifact, releases
from verifier_runtime.sandbox import check_module_source, load_module_source
from verifier_runtime.triple import Triple

REPO = Path(__file__).resolve().parent.parent
RELEASES = releases(REPO / "rulebank")


def _module_cases(art, entry) -> list[dict]:
    shipped = art.files.get(f"cases/{entry.id}.jsonl")
    if shipped is not None:
        return [json.loads(line) for line in shipped.splitlines() if line.strip()]
    ns = load_module_source(art.files[entry.file], filename=entry.file)
    return list(ns.SUPPORT) + list(ns.COUNTEREXAMPLES)


def _cases():
    for rel in RELEASES:
        art = load_artifact(rel)
        for entry in art.modules:
            for k, case in enumerate(_module_cases(art, entry)):
                yield pytest.param(art, entry.id, case, id=f"{rel.name}-{entry.id}-{k}")


CASES = list(_cases())


def test_releases_exist_and_load() -> None:
    assert RELEASES, "no shipped release under rulebank/releases"
    for rel in RELEASES:
        art = load_artifact(rel)
        for entry in art.modules:
            assert check_module_source(art.files[entry.file]) == []


@pytest.mark.skipif(not CASES, reason="the shipped releases have no modules yet")
@pytest.mark.parametrize("artifact,module_id,case", CASES)
def test_module_reproduces_its_case(artifact, module_id: str, case: dict) -> None:
    entry = next(e for e in artifact.modules if e.id == module_id)
    ns = load_module_source(artifact.files[entry.file], filename=entry.file)
    d = ns.decide(Triple(case["question"], case["reference"], case["response"]))
    assert d.label == case["expected"], (module_id, d)


def test_every_module_has_decided_cases() -> None:
    for rel in RELEASES:
        art = load_artifact(rel)
        for entry in art.modules:
            labels = {c["expected"] for c in _module_cases(art, entry)}
            assert labels & {"PASS", "FAIL"}, f"{rel.name}/{entry.id} has no PASS or FAIL case"
