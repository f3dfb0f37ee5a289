"""Signed releases: Ed25519 over the manifest; trusted keys refuse unsigned or wrongly signed releases."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from tests.helpers import build_release, module_source
from verifier_runtime import ArtifactError, load_artifact, load_verifier
from verifier_runtime.artifact import pack_release
from verifier_runtime.signing import SIGNATURE_FILE, generate_key, sign_release

pytest.importorskip("cryptography")


def _release(tmp_path: Path, name: str = "r0001") -> Path:
    src = module_source("m1", "return Decision.abstain('no')")
    return build_release(tmp_path / "rel" / name, [("m1", "verdict_matching", src, 10)], version=name)


@pytest.fixture()
def keys(tmp_path: Path):
    team = generate_key(tmp_path / "keys" / "team.key")
    other = generate_key(tmp_path / "keys" / "other.key")
    return team, other


def test_signed_release_loads_with_the_team_key(tmp_path, keys):
    (team_priv, team_pub), _ = keys
    rel = _release(tmp_path)
    sign_release(rel, team_priv)
    sig = json.loads((rel / SIGNATURE_FILE).read_text())
    assert sig["algorithm"] == "ed25519" and len(sig["key_id"]) == 16
    assert load_artifact(rel, trusted_keys=[team_pub]).version == "r0001"
    assert load_verifier(rel, fallback="none", trusted_keys=[team_pub]).artifact_version == "r0001"
    tar = pack_release(rel, tmp_path / "r0001.tar.gz")  # the signature travels in the archive
    assert load_artifact(tar, trusted_keys=[team_pub]).version == "r0001"
    assert oct((team_priv).stat().st_mode & 0o777) == "0o600"


def test_unsigned_wrong_key_and_tampered_releases_are_refused(tmp_path, keys):
    (team_priv, team_pub), (other_priv, other_pub) = keys
    rel = _release(tmp_path)
    assert load_artifact(rel).version == "r0001"  # no keys configured: hashes only
    with pytest.raises(ArtifactError, match="not signed"):
        load_artifact(rel, trusted_keys=[team_pub])
    sign_release(rel, other_priv)
    with pytest.raises(ArtifactError, match="not among the trusted keys"):
        load_verifier(rel, fallback="none", trusted_keys=[team_pub])
    sign_release(rel, team_priv)
    # edit a module and recompute its hash: the manifest changes, the signature no longer matches
    from verifier_runtime.artifact import sha256_text

    mod = rel / "modules" / "m1.py"
    mod.write_text(mod.read_text().replace("'no'", "'edited'"))
    manifest = json.loads((rel / "manifest.json").read_text())
    manifest["files"]["modules/m1.py"] = sha256_text(mod.read_bytes())
    (rel / "manifest.json").write_text(json.dumps(manifest, indent=2, sort_keys=True) + "\n")
    assert load_artifact(rel).version == "r0001"  # hashes alone are satisfied by the edit
    with pytest.raises(ArtifactError, match="does not match the manifest"):
        load_artifact(rel, trusted_keys=[team_pub])
    (rel / SIGNATURE_FILE).write_text("{not json")
    with pytest.raises(ArtifactError, match="malformed"):
        load_artifact(rel, trusted_keys=[team_pub])


def test_keys_from_the_environment_and_signing_at_freeze(tmp_path, keys, monkeypatch):
    (team_priv, team_pub), (_, other_pub) = keys
    monkeypatch.setenv("AUTOVERIFIER_SIGNING_KEY", str(team_priv))
    rel = _release(tmp_path, "r0002")  # write_release (freeze, build) signs when the key is set
    assert (rel / SIGNATURE_FILE).exists()
    monkeypatch.setenv("AUTOVERIFIER_TRUSTED_KEYS", f"{other_pub}:{team_pub}")
    assert load_verifier(rel, fallback="none").artifact_version == "r0002"
    monkeypatch.setenv("AUTOVERIFIER_TRUSTED_KEYS", str(other_pub))
    with pytest.raises(ArtifactError):
        load_verifier(rel, fallback="none")
    copy = tmp_path / "copy" / "r0002"
    shutil.copytree(rel, copy)
    (copy / SIGNATURE_FILE).unlink()
    with pytest.raises(ArtifactError, match="not signed"):
        load_verifier(copy, fallback="none", trusted_keys=[team_pub])


def test_cli_signs_and_verifies(tmp_path):
    from typer.testing import CliRunner

    from autoverifier.cli import app

    runner = CliRunner()
    key = tmp_path / "k" / "team.key"
    res = runner.invoke(app, ["release-key", str(key)])
    assert res.exit_code == 0, res.output
    rel = _release(tmp_path)
    assert runner.invoke(app, ["release-sign", str(rel), "--key", str(key)]).exit_code == 0
    ok = runner.invoke(app, ["release-verify", str(rel), "--trusted-key", str(key) + ".pub"])
    assert ok.exit_code == 0 and "signed by" in ok.output
    (rel / SIGNATURE_FILE).unlink()
    bad = runner.invoke(app, ["release-verify", str(rel), "--trusted-key", str(key) + ".pub"])
    assert bad.exit_code == 1 and "not signed" in bad.output
