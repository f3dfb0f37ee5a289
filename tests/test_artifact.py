"""Release discovery and manifest checks: exact names, no networked judge by default, and every
malformed manifest an ArtifactError (never RecursionError, TypeError or KeyError)."""

from __future__ import annotations

import json
import shutil
import warnings
from pathlib import Path

import pytest

from tests.helpers import build_release, module_source
from verifier_runtime import ArtifactError, load_artifact, load_verifier
from verifier_runtime.artifact import (
    MANIFEST,
    ModuleEntry,
    ReleaseSpec,
    newest_release,
    release_files,
    releases,
    sha256_text,
    shipped_release,
)


def _release(root: Path, version: str = "r0001") -> Path:
    return build_release(root / "releases" / version,
                         [("m1", "verdict_matching", module_source("m1", "return Decision.abstain('no')"), 1)],
                         version=version)


def _rewrite_manifest(release: Path, change) -> Path:
    """Apply ``change`` to the manifest dict (or replace the text when it returns a string)."""
    m = json.loads((release / MANIFEST).read_text())
    new = change(m)
    text = new if isinstance(new, str) else json.dumps(m if new is None else new)
    (release / MANIFEST).write_text(text)
    return release


def test_discovery_takes_exact_rnnnn_names_only(tmp_path: Path) -> None:
    _release(tmp_path, "r0001")
    _release(tmp_path, "r0002")
    # look-alikes that must never become the default
    for name in ("r9999-anything", "r99999.bak", "r12", "R9999", "r0003 ", "xr9999"):
        shutil.copytree(tmp_path / "releases" / "r0002", tmp_path / "releases" / name)
    (tmp_path / "releases" / "r9998").write_text("a file, not a release")
    (tmp_path / "releases" / "r9997").mkdir()  # no manifest
    assert [p.name for p in releases(tmp_path)] == ["r0001", "r0002"]
    assert newest_release(tmp_path).name == "r0002"


def test_artifact_version_must_be_exact(tmp_path: Path) -> None:
    rel = _release(tmp_path)
    _rewrite_manifest(rel, lambda m: m.__setitem__("artifact_version", "r0001-evil"))
    with pytest.raises(ArtifactError, match="artifact_version"):
        load_artifact(rel)
    with pytest.raises(ArtifactError, match="r0001"):
        release_files(ReleaseSpec(version="r0002x"))


def test_shipped_release_from_env_and_clear_error_when_missing(tmp_path: Path, monkeypatch) -> None:
    monkeypatch.setenv("AUTOVERIFIER_RULEBANK", str(tmp_path / "empty"))
    with pytest.raises(ArtifactError, match="no release"):
        shipped_release()
    with pytest.raises(ArtifactError, match="no release"):
        load_verifier()  # a missing release is an error, never a silent empty library
    _release(tmp_path / "empty", "r0004")
    assert shipped_release().name == "r0004"
    assert load_verifier(fallback="none").artifact_version == "r0004"


def test_manifest_cannot_switch_to_a_networked_judge(tmp_path: Path, monkeypatch) -> None:
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    rel = _rewrite_manifest(_release(tmp_path), lambda m: m.__setitem__("fallback_defaults", {"name": "openai"}))
    with pytest.warns(UserWarning, match="cannot choose a networked judge"):
        v = load_verifier(rel)
    assert v.fallback_name == "offline"
    assert v.verify("What is 2+2?", "4", "4").decided_by == "fallback:offline"
    # the caller may still ask for it explicitly (and then needs its key)
    with pytest.raises(Exception, match="OPENAI_API_KEY|api key|API key"):
        load_verifier(rel, fallback="openai")
    rel2 = _rewrite_manifest(_release(tmp_path / "b"), lambda m: m.__setitem__("fallback_defaults", {"name": "none"}))
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert load_verifier(rel2).fallback_name == "none"


def _deep(n: int) -> object:
    v: object = 0
    for _ in range(n):
        v = [v]
    return v


MALFORMED = {
    "not an object": lambda m: "[1, 2, 3]",
    "deep nesting in provenance": lambda m: m.__setitem__("provenance", {"x": _deep(200)}),
    "nesting beyond the JSON parser": lambda m: "{\"provenance\": " + "[" * 100_000 + "]" * 100_000 + "}",
    "schema as string": lambda m: m.__setitem__("schema_version", "1"),
    "schema as bool": lambda m: m.__setitem__("schema_version", True),
    "version as int": lambda m: m.__setitem__("artifact_version", 1),
    "files as list": lambda m: m.__setitem__("files", ["modules/m1.py"]),
    "file hash as int": lambda m: m["files"].__setitem__("modules/m1.py", 5),
    "file key unsafe": lambda m: m["files"].__setitem__("../../etc/passwd", "0" * 64),
    "order as string": lambda m: m.__setitem__("module_order", "m1"),
    "order with int": lambda m: m.__setitem__("module_order", [1]),
    "order duplicates": lambda m: m.__setitem__("module_order", ["m1", "m1"]),
    "module entry as list": lambda m: m["modules"].__setitem__("m1", ["modules/m1.py"]),
    "module unknown key": lambda m: m["modules"]["m1"].__setitem__("exec", "x"),
    "module priority string": lambda m: m["modules"]["m1"].__setitem__("priority", "1"),
    "module priority bool": lambda m: m["modules"]["m1"].__setitem__("priority", True),
    "module priority inf": lambda m: "x",  # replaced below with a non-finite literal
    "module file missing": lambda m: m["modules"]["m1"].__setitem__("file", "modules/other.py"),
    "module file not str": lambda m: m["modules"]["m1"].__setitem__("file", {"a": 1}),
    "prompt as list": lambda m: m.__setitem__("prompt", ["prompt/template.txt"]),
    "prompt unknown file": lambda m: m["prompt"].__setitem__("template", "prompt/none.txt"),
    "fallback defaults as string": lambda m: m.__setitem__("fallback_defaults", "openai"),
    "fallback defaults unknown judge": lambda m: m.__setitem__("fallback_defaults", {"name": "shell"}),
    "fallback defaults extra keys": lambda m: m.__setitem__("fallback_defaults",
                                                            {"name": "offline", "base_url": "http://evil"}),
    "provenance as list": lambda m: m.__setitem__("provenance", []),
    "dependencies with int": lambda m: m.__setitem__("dependencies", {"sympy": 1}),
    "unknown top-level key": lambda m: m.__setitem__("hooks", {"on_load": "x"}),
    "toolkit as string": lambda m: m.__setitem__("toolkit", "abc"),
    "toolkit probes missing": lambda m: m.__setitem__("toolkit", {"sha256": "0" * 64}),
    "created_at as int": lambda m: m.__setitem__("created_at", 0),
}


@pytest.mark.parametrize("name", sorted(MALFORMED))
def test_every_malformed_manifest_is_an_artifact_error(tmp_path: Path, name: str) -> None:
    rel = _release(tmp_path)
    if name == "module priority inf":
        text = (rel / MANIFEST).read_text().replace('"priority": 1', '"priority": Infinity')
        (rel / MANIFEST).write_text(text)
    else:
        _rewrite_manifest(rel, MALFORMED[name])
    with pytest.raises(ArtifactError):
        load_artifact(rel)
    with pytest.raises(ArtifactError):
        load_verifier(rel, fallback="none")


def test_a_well_formed_manifest_loads_and_lists_its_modules(tmp_path: Path) -> None:
    art = load_artifact(_release(tmp_path))
    assert [m.id for m in art.modules] == ["m1"] and art.fallback_defaults == {"name": "offline"}


def test_release_bytes_are_deterministic(tmp_path: Path) -> None:
    spec = ReleaseSpec(version="r0001", modules=[(ModuleEntry("m1", "g", 1, "c", "d"),
                                                  module_source("m1", "return Decision.abstain()"))],
                       cards={"c": {"b": 1, "a": [2, 1]}}, template="T {question}", guidance="G",
                       files={"CHANGELOG.md": "# r0001\n"})
    a, b = release_files(spec), release_files(spec)
    assert a == b and "created_at" not in json.loads(a[MANIFEST])
    manifest = json.loads(a[MANIFEST])
    assert manifest["files"]["CHANGELOG.md"] == sha256_text("# r0001\n")
    with pytest.raises(ArtifactError, match="written by the release"):
        release_files(ReleaseSpec(version="r0001", files={"manifest.json": "{}"}))
