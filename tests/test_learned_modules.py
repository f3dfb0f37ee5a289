"""Every module in every shipped release decides its own support and counterexample cases.

Discovered from the rule bank (no hand-kept list): each module file carries ``SUPPORT`` and
``COUNTEREXAMPLES`` with the expected label; the loaded module must reproduce them.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from verifier_runtime.artifact import load_artifact
from verifier_runtime.sandbox import check_module_source, load_module_source
from verifier_runtime.triple import Triple

REPO = Path(__file__).resolve().parent.parent
RELEASES = sorted((REPO / "rulebank" / "releases").glob("r[0-9][0-9][0-9][0-9]"))


def _cases():
    for rel in RELEASES:
        art = load_artifact(rel)
        for entry in art.modules:
            ns = load_module_source(art.files[entry.file], filename=entry.file)
            for kind in ("SUPPORT", "COUNTEREXAMPLES"):
                for k, case in enumerate(getattr(ns, kind)):
                    yield pytest.param(art, entry.id, case, id=f"{rel.name}-{entry.id}-{kind.lower()}-{k}")


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


def test_every_module_has_support_cases() -> None:
    for rel in RELEASES:
        art = load_artifact(rel)
        for entry in art.modules:
            ns = load_module_source(art.files[entry.file], filename=entry.file)
            assert ns.SUPPORT, f"{rel.name}/{entry.id} has no support cases"
            assert all(c["expected"] in ("PASS", "FAIL") for c in ns.SUPPORT)
