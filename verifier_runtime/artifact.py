"""Frozen, versioned artifacts: write, pack, find and load them (no pickle anywhere).

Layout of a release (a directory, or the same packed as ``.tar.gz``)::

    manifest.json          schema version, artifact version, hashes of every other file, ...
    modules/<id>.py        one plain Python source file per code module
    cards/<id>.json        the rule card behind each module (evidence, for audit)
    prompt/template.txt    the fallback judge's prompt template
    prompt/guidance.txt    learned guidance carried into the prompt

Loading verifies the sha256 of every file, refuses files the manifest does not list,
a missing file, or an unknown schema, with a clear :class:`ArtifactError`.
"""

from __future__ import annotations

import hashlib
import json
import os
import platform
import re
import tarfile
import tempfile
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path, PurePosixPath
from typing import Any

SCHEMA_VERSION = 1
MANIFEST = "manifest.json"
MAX_ARTIFACT_BYTES = 64 * 1024 * 1024
_VERSION_RE = re.compile(r"^r(\d{4,})")
_ID_RE = re.compile(r"^[A-Za-z0-9_][A-Za-z0-9_.-]{0,120}$")


class ArtifactError(Exception):
    """The artifact cannot be loaded: tampered, incomplete, or of an unknown schema."""


@dataclass(frozen=True)
class ModuleEntry:
    """A module's manifest entry. ``file`` is set by :func:`write_release` (``modules/<id>.py``)."""

    id: str
    group: str
    priority: int
    card_id: str = ""
    description: str = ""
    file: str = ""


@dataclass(frozen=True)
class Artifact:
    """A loaded, hash-verified release. ``files`` maps relative path to text."""

    version: str
    manifest: dict[str, Any]
    files: dict[str, str]
    source: str

    @property
    def modules(self) -> list[ModuleEntry]:
        entries = self.manifest.get("modules", {})
        return [ModuleEntry(id=mid, **entries[mid]) for mid in self.manifest.get("module_order", [])]

    @property
    def template(self) -> str | None:
        path = self.manifest.get("prompt", {}).get("template")
        return self.files.get(path) if path else None

    @property
    def guidance(self) -> str:
        path = self.manifest.get("prompt", {}).get("guidance")
        return (self.files.get(path) or "") if path else ""

    @property
    def fallback_defaults(self) -> dict[str, Any]:
        return dict(self.manifest.get("fallback_defaults", {}))


def sha256_text(data: bytes | str) -> str:
    if isinstance(data, str):
        data = data.encode("utf-8")
    return hashlib.sha256(data).hexdigest()


def dependency_versions() -> dict[str, str]:
    from importlib import metadata

    out = {"python": platform.python_version()}
    for dist in ("autoverifier", "sympy", "pint"):
        try:
            out[dist] = metadata.version(dist)
        except metadata.PackageNotFoundError:
            out[dist] = "not-installed"
    return out


@dataclass
class ReleaseSpec:
    """Everything a release contains, before it is written."""

    version: str
    modules: list[tuple[ModuleEntry, str]] = field(default_factory=list)  # (entry, source)
    cards: dict[str, dict[str, Any]] = field(default_factory=dict)
    template: str | None = None
    guidance: str = ""
    fallback_defaults: dict[str, Any] = field(default_factory=lambda: {"name": "offline"})
    provenance: dict[str, Any] = field(default_factory=dict)


def write_release(spec: ReleaseSpec, dest: str | os.PathLike[str]) -> Path:
    """Write ``spec`` as a release directory at ``dest`` atomically (temp dir, then rename)."""
    dest = Path(dest)
    if dest.exists():
        raise ArtifactError(f"release directory already exists: {dest}")
    if not _VERSION_RE.match(spec.version):
        raise ArtifactError(f"artifact version must look like r0001, got {spec.version!r}")
    files: dict[str, str] = {}
    order: list[str] = []
    entries: dict[str, dict[str, Any]] = {}
    for entry, source in sorted(spec.modules, key=lambda p: (p[0].priority, p[0].id)):
        if not _ID_RE.match(entry.id) or entry.id in entries:
            raise ArtifactError(f"bad or duplicate module id: {entry.id!r}")
        rel = f"modules/{entry.id}.py"
        files[rel] = source
        order.append(entry.id)
        entries[entry.id] = {
            "file": rel,
            "group": entry.group,
            "priority": int(entry.priority),
            "card_id": entry.card_id,
            "description": entry.description,
        }
    for card_id, card in sorted(spec.cards.items()):
        if not _ID_RE.match(card_id):
            raise ArtifactError(f"bad card id: {card_id!r}")
        files[f"cards/{card_id}.json"] = json.dumps(card, indent=2, sort_keys=True, default=str) + "\n"
    prompt: dict[str, str] = {}
    if spec.template is not None:
        files["prompt/template.txt"] = spec.template
        prompt["template"] = "prompt/template.txt"
    files["prompt/guidance.txt"] = spec.guidance
    prompt["guidance"] = "prompt/guidance.txt"
    manifest = {
        "schema_version": SCHEMA_VERSION,
        "artifact_version": spec.version,
        "created_at": datetime.now(UTC).isoformat(timespec="seconds"),
        "module_order": order,
        "modules": entries,
        "prompt": prompt,
        "fallback_defaults": spec.fallback_defaults,
        "provenance": spec.provenance,
        "dependencies": dependency_versions(),
        "files": {rel: sha256_text(text) for rel, text in sorted(files.items())},
    }
    dest.parent.mkdir(parents=True, exist_ok=True)
    tmp = Path(tempfile.mkdtemp(prefix=f".{dest.name}.", dir=dest.parent))
    try:
        for rel, text in files.items():
            p = tmp / rel
            p.parent.mkdir(parents=True, exist_ok=True)
            p.write_text(text, encoding="utf-8")
        (tmp / MANIFEST).write_text(json.dumps(manifest, indent=2, sort_keys=True) + "\n", encoding="utf-8")
        os.replace(tmp, dest)
    except BaseException:
        import shutil

        shutil.rmtree(tmp, ignore_errors=True)
        raise
    from verifier_runtime.signing import sign_if_configured

    sign_if_configured(dest)  # with $AUTOVERIFIER_SIGNING_KEY set, every release written is signed
    return dest


def pack_release(release_dir: str | os.PathLike[str], tar_path: str | os.PathLike[str]) -> Path:
    """Pack a release directory into a deterministic ``.tar.gz``."""
    release_dir, tar_path = Path(release_dir), Path(tar_path)
    load_artifact(release_dir)  # refuse to pack something that does not load
    with tarfile.open(tar_path, "w:gz") as tar:
        for p in sorted(release_dir.rglob("*")):
            if p.is_file():
                info = tar.gettarinfo(str(p), arcname=p.relative_to(release_dir).as_posix())
                info.uid = info.gid = 0
                info.uname = info.gname = ""
                info.mtime = 0
                with open(p, "rb") as fh:
                    tar.addfile(info, fh)
    return tar_path


def _safe_rel(name: str) -> str:
    pp = PurePosixPath(name)
    if pp.is_absolute() or ".." in pp.parts or name.startswith("\\") or not pp.parts:
        raise ArtifactError(f"unsafe path in artifact: {name!r}")
    return pp.as_posix().removeprefix("./")


def _read_tree(path: Path) -> dict[str, bytes]:
    out: dict[str, bytes] = {}
    total = 0
    if path.is_dir():
        for p in sorted(path.rglob("*")):
            if p.is_symlink():
                raise ArtifactError(f"symbolic link in artifact: {p}")
            if p.is_file():
                data = p.read_bytes()
                total += len(data)
                if total > MAX_ARTIFACT_BYTES:
                    raise ArtifactError("artifact is larger than the size limit")
                out[p.relative_to(path).as_posix()] = data
        return out
    if path.is_file() and (path.name.endswith(".tar.gz") or path.name.endswith(".tgz")):
        try:
            with tarfile.open(path, "r:gz") as tar:
                for member in tar.getmembers():
                    if member.isdir():
                        continue
                    if not member.isfile():
                        raise ArtifactError(f"non-regular file in artifact: {member.name!r}")
                    rel = _safe_rel(member.name)
                    total += member.size
                    if total > MAX_ARTIFACT_BYTES:
                        raise ArtifactError("artifact is larger than the size limit")
                    fh = tar.extractfile(member)
                    out[rel] = fh.read() if fh else b""
        except (tarfile.TarError, OSError, EOFError) as e:
            raise ArtifactError(f"cannot read artifact archive {path}: {e}") from e
        return out
    raise ArtifactError(f"artifact not found (expected a release directory or .tar.gz): {path}")


def load_artifact(path: str | os.PathLike[str], *, trusted_keys: Any = None) -> Artifact:
    """Load and verify a release. Raises :class:`ArtifactError` with a clear message.

    With trusted keys (``trusted_keys`` or ``$AUTOVERIFIER_TRUSTED_KEYS``) the release must carry
    a valid signature by one of them (see :mod:`verifier_runtime.signing`).
    """
    path = Path(path)
    raw = _read_tree(path)
    if MANIFEST not in raw:
        raise ArtifactError(f"{path}: missing {MANIFEST}")
    from verifier_runtime.signing import SIGNATURE_FILE, SigningError, check_signature, resolve_trusted_keys

    try:
        check_signature(raw[MANIFEST], raw.get(SIGNATURE_FILE), resolve_trusted_keys(trusted_keys), str(path))
    except SigningError as e:
        raise ArtifactError(str(e)) from e
    try:
        manifest = json.loads(raw[MANIFEST].decode("utf-8"))
    except (UnicodeDecodeError, json.JSONDecodeError) as e:
        raise ArtifactError(f"{path}: {MANIFEST} is not valid JSON: {e}") from e
    if not isinstance(manifest, dict):
        raise ArtifactError(f"{path}: {MANIFEST} must be a JSON object")
    schema = manifest.get("schema_version")
    if schema != SCHEMA_VERSION:
        raise ArtifactError(f"{path}: unknown artifact schema version {schema!r} (this runtime reads {SCHEMA_VERSION})")
    version = manifest.get("artifact_version")
    if not isinstance(version, str) or not _VERSION_RE.match(version):
        raise ArtifactError(f"{path}: bad artifact_version {version!r}")
    hashes = manifest.get("files")
    if not isinstance(hashes, dict):
        raise ArtifactError(f"{path}: manifest has no 'files' table")
    files: dict[str, str] = {}
    for rel, digest in hashes.items():
        rel = _safe_rel(rel)
        if rel not in raw:
            raise ArtifactError(f"{path}: file listed in the manifest is missing: {rel}")
        if sha256_text(raw[rel]) != digest:
            raise ArtifactError(f"{path}: hash mismatch for {rel} (the artifact was modified after it was frozen)")
        try:
            files[rel] = raw[rel].decode("utf-8")
        except UnicodeDecodeError as e:
            raise ArtifactError(f"{path}: {rel} is not UTF-8 text") from e
    extra = sorted(set(raw) - set(hashes) - {MANIFEST, SIGNATURE_FILE})
    if extra:
        raise ArtifactError(f"{path}: files not listed in the manifest: {', '.join(extra[:5])}")
    order = manifest.get("module_order", [])
    entries = manifest.get("modules", {})
    if not isinstance(order, list) or not isinstance(entries, dict) or set(order) != set(entries):
        raise ArtifactError(f"{path}: module_order and modules disagree")
    for mid in order:
        e = entries[mid]
        if not isinstance(e, dict) or e.get("file") not in files:
            raise ArtifactError(f"{path}: module {mid!r} has no source file")
    return Artifact(version=version, manifest=manifest, files=files, source=str(path))


def empty_release_manifest() -> Artifact:
    """The in-memory empty-library release used when no release is shipped alongside the code."""
    manifest = {
        "schema_version": SCHEMA_VERSION,
        "artifact_version": "r0000",
        "created_at": "1970-01-01T00:00:00+00:00",
        "module_order": [],
        "modules": {},
        "prompt": {},
        "fallback_defaults": {"name": "offline"},
        "provenance": {"round": 0, "note": "empty library (built in)"},
        "dependencies": {},
        "files": {},
    }
    return Artifact(version="r0000", manifest=manifest, files={}, source="<built-in empty release>")


def rulebank_dir() -> Path:
    """Where releases live: ``$AUTOVERIFIER_RULEBANK`` or the repository's ``rulebank/``."""
    env = os.environ.get("AUTOVERIFIER_RULEBANK")
    if env:
        return Path(env)
    return Path(__file__).resolve().parent.parent / "rulebank"


def newest_release(root: str | os.PathLike[str] | None = None) -> Path | None:
    """The newest release directory (highest ``rNNNN``) under ``<rulebank>/releases``."""
    base = Path(root) if root is not None else rulebank_dir()
    rel = base / "releases"
    if not rel.is_dir():
        return None
    found = []
    for p in rel.iterdir():
        m = _VERSION_RE.match(p.name)
        if m and p.is_dir() and (p / MANIFEST).is_file():
            found.append((int(m.group(1)), p))
    return max(found)[1] if found else None

