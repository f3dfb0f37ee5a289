"""Frozen, versioned artifacts: write, pack, find and load them (no pickle anywhere).

Layout of a release (a directory, or the same packed as ``.tar.gz``)::

    manifest.json          schema version, artifact version, hashes of every other file, ...
    modules/<id>.py        one plain Python source file per code module
    cards/<id>.json        the rule card behind each module (evidence, for audit)
    cases/<id>.jsonl       the module's gold-labelled cases (releases built by ``rules build``)
    prompt/template.txt    the fallback judge's prompt template
    prompt/guidance.txt    learned guidance carried into the prompt
    CHANGELOG.md           modules added, changed, retired, and the figures (``rules build``)

Loading verifies the sha256 of every file, refuses files the manifest does not list, a
missing file, an unknown schema or any malformed manifest entry (wrong type, bad value, deep
nesting), always with a clear :class:`ArtifactError`. Writing is deterministic: the same
spec gives the same bytes (no timestamps; keys, files and modules in a fixed order).

Where the default release comes from (:func:`shipped_release`): ``$AUTOVERIFIER_RULEBANK``
when set, else the release packaged into an installed wheel (``verifier_runtime/_shipped``),
else the newest ``rulebank/releases/rNNNN`` of a source checkout. Only exact ``rNNNN``
names count as releases.
"""

from __future__ import annotations

import hashlib
import json
import math
import os
import platform
import re
import tarfile
import tempfile
from dataclasses import dataclass, field
from pathlib import Path, PurePosixPath
from typing import Any

from verifier_runtime.paths import SOURCE_ROOT

SCHEMA_VERSION = 1
MANIFEST = "manifest.json"
MAX_ARTIFACT_BYTES = 64 * 1024 * 1024
MAX_ARTIFACT_FILES = 10_000
MAX_MANIFEST_DEPTH = 32  # nesting of JSON containers in the manifest
_VERSION_RE = re.compile(r"^r(\d{4,})$")
_ID_RE = re.compile(r"^[A-Za-z0-9_][A-Za-z0-9_.-]{0,120}$")
_SHA256_RE = re.compile(r"^[0-9a-f]{64}$")
# Judges a manifest may name as its default; a networked one is used only when the caller asks for it.
FALLBACK_DEFAULT_NAMES = ("offline", "none", "openai", "anthropic")
LOCAL_FALLBACKS = ("offline", "none")
_MODULE_KEYS = {"file": str, "group": str, "priority": (int, float), "card_id": str, "description": str}
_MANIFEST_KEYS = {"schema_version", "artifact_version", "created_at", "module_order", "modules", "prompt",
                  "fallback_defaults", "provenance", "dependencies", "files", "toolkit"}
PACKAGED_RULEBANK = Path(__file__).resolve().parent / "_shipped"  # a wheel's copy of the shipped release
SOURCE_RULEBANK = SOURCE_ROOT / "rulebank"  # a source checkout's rule bank


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
    """Everything a release contains, before it is written.

    ``files``: further text files (``cases/<id>.jsonl``, ``CHANGELOG.md``) by relative path;
    ``toolkit``: the toolkit fingerprint (:mod:`verifier_runtime.fingerprint`) it was built with.
    """

    version: str
    modules: list[tuple[ModuleEntry, str]] = field(default_factory=list)  # (entry, source)
    cards: dict[str, dict[str, Any]] = field(default_factory=dict)
    template: str | None = None
    guidance: str = ""
    fallback_defaults: dict[str, Any] = field(default_factory=lambda: {"name": "offline"})
    provenance: dict[str, Any] = field(default_factory=dict)
    files: dict[str, str] = field(default_factory=dict)
    toolkit: dict[str, Any] | None = None


def release_files(spec: ReleaseSpec) -> dict[str, bytes]:
    """The bytes of every file of the release ``spec`` describes, the manifest included.

    Deterministic: the same spec gives the same bytes (sorted keys and files, no timestamps).
    """
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
    for rel, text in spec.files.items():
        rel = _safe_rel(rel)
        if rel in files or rel == MANIFEST:
            raise ArtifactError(f"file {rel!r} is written by the release itself")
        files[rel] = text
    manifest: dict[str, Any] = {
        "schema_version": SCHEMA_VERSION,
        "artifact_version": spec.version,
        "module_order": order,
        "modules": entries,
        "prompt": prompt,
        "fallback_defaults": spec.fallback_defaults,
        "provenance": spec.provenance,
        "dependencies": dependency_versions(),
        "files": {rel: sha256_text(text) for rel, text in sorted(files.items())},
    }
    if spec.toolkit is not None:
        manifest["toolkit"] = spec.toolkit
    text = json.dumps(manifest, indent=2, sort_keys=True) + "\n"
    check_manifest(json.loads(text), f"release {spec.version}")
    out = {rel: t.encode("utf-8") for rel, t in sorted(files.items())}
    out[MANIFEST] = text.encode("utf-8")
    return out


def write_release(spec: ReleaseSpec, dest: str | os.PathLike[str]) -> Path:
    """Write ``spec`` as a release directory at ``dest`` atomically (temp dir, then rename)."""
    dest = Path(dest)
    if dest.exists():
        raise ArtifactError(f"release directory already exists: {dest}")
    data = release_files(spec)
    dest.parent.mkdir(parents=True, exist_ok=True)
    tmp = Path(tempfile.mkdtemp(prefix=f".{dest.name}.", dir=dest.parent))
    try:
        for rel, blob in data.items():
            p = tmp / rel
            p.parent.mkdir(parents=True, exist_ok=True)
            p.write_bytes(blob)
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


def _safe_rel(name: Any) -> str:
    if not isinstance(name, str) or not name or len(name) > 500:
        raise ArtifactError(f"bad path in artifact: {name!r:.80}")
    pp = PurePosixPath(name)
    if pp.is_absolute() or ".." in pp.parts or name.startswith("\\") or not pp.parts or "\x00" in name:
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
                if len(out) > MAX_ARTIFACT_FILES:
                    raise ArtifactError("artifact has more files than the limit")
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
                    if len(out) > MAX_ARTIFACT_FILES:
                        raise ArtifactError("artifact has more files than the limit")
        except (tarfile.TarError, OSError, EOFError) as e:
            raise ArtifactError(f"cannot read artifact archive {path}: {e}") from e
        return out
    raise ArtifactError(f"artifact not found (expected a release directory or .tar.gz): {path}")


def _depth_ok(value: Any, limit: int) -> bool:
    """Whether JSON ``value`` nests containers at most ``limit`` deep (iterative: no recursion)."""
    stack = [(value, 1)]
    while stack:
        v, d = stack.pop()
        if isinstance(v, dict | list):
            if d > limit:
                return False
            stack.extend((c, d + 1) for c in (v.values() if isinstance(v, dict) else v))
    return True


def _is_str_map(value: Any) -> bool:
    return isinstance(value, dict) and all(isinstance(k, str) and isinstance(v, str) for k, v in value.items())


def check_manifest(manifest: Any, where: str) -> None:
    """Raise :class:`ArtifactError` unless ``manifest`` is a well-formed manifest of this schema.

    Every field is checked for its type and values, so nothing later trips over a wrong one.
    """
    def bad(msg: str) -> ArtifactError:
        return ArtifactError(f"{where}: {MANIFEST}: {msg}")

    if not isinstance(manifest, dict):
        raise bad("must be a JSON object")
    if not _depth_ok(manifest, MAX_MANIFEST_DEPTH):
        raise bad(f"nested deeper than {MAX_MANIFEST_DEPTH} levels")
    schema = manifest.get("schema_version")
    if type(schema) is not int or schema != SCHEMA_VERSION:
        raise bad(f"unknown artifact schema version {schema!r:.40} (this runtime reads {SCHEMA_VERSION})")
    unknown = sorted(set(manifest) - _MANIFEST_KEYS)
    if unknown:
        raise bad(f"unknown keys {', '.join(repr(k)[:40] for k in unknown[:5])}")
    version = manifest.get("artifact_version")
    if not isinstance(version, str) or not _VERSION_RE.match(version):
        raise bad(f"bad artifact_version {version!r:.40} (expected r followed by four or more digits)")
    files = manifest.get("files")
    if not isinstance(files, dict):
        raise bad("no 'files' table")
    for rel, digest in files.items():
        _safe_rel(rel)
        if not isinstance(digest, str) or not _SHA256_RE.match(digest):
            raise bad(f"bad sha256 for {rel!r:.80}")
    if "created_at" in manifest and not isinstance(manifest["created_at"], str):
        raise bad("created_at must be a string")
    order = manifest.get("module_order", [])
    entries = manifest.get("modules", {})
    if not isinstance(order, list) or not all(isinstance(m, str) for m in order) or not isinstance(entries, dict):
        raise bad("module_order must be a list of ids and modules a table")
    if len(set(order)) != len(order) or set(order) != set(entries):
        raise bad("module_order and modules disagree")
    for mid in order:
        e = entries[mid]
        if not _ID_RE.match(mid) or not isinstance(e, dict):
            raise bad(f"bad module entry {mid!r:.80}")
        for key, value in e.items():
            want = _MODULE_KEYS.get(key)
            if want is None:
                raise bad(f"module {mid}: unknown key {key!r:.40}")
            if not isinstance(value, want) or isinstance(value, bool):
                raise bad(f"module {mid}: {key} has the wrong type")
            if key == "priority" and not math.isfinite(value):
                raise bad(f"module {mid}: priority must be a finite number")
        if e.get("file") not in files:
            raise bad(f"module {mid!r} has no source file")
    prompt = manifest.get("prompt", {})
    if not _is_str_map(prompt) or set(prompt) - {"template", "guidance"}:
        raise bad("prompt must map 'template' and 'guidance' to file paths")
    for rel in prompt.values():
        if rel not in files:
            raise bad(f"prompt file {rel!r:.80} is not listed in files")
    defaults = manifest.get("fallback_defaults", {})
    if not isinstance(defaults, dict) or set(defaults) - {"name"}:
        raise bad("fallback_defaults may only hold 'name'")
    if "name" in defaults and defaults["name"] not in FALLBACK_DEFAULT_NAMES:
        raise bad(f"fallback_defaults.name must be one of {', '.join(FALLBACK_DEFAULT_NAMES)}")
    if not isinstance(manifest.get("provenance", {}), dict):
        raise bad("provenance must be an object")
    if not _is_str_map(manifest.get("dependencies", {})):
        raise bad("dependencies must map names to version strings")
    if "toolkit" in manifest:
        tk = manifest["toolkit"]
        probes = tk.get("probes") if isinstance(tk, dict) else None
        if (not isinstance(tk, dict) or not isinstance(tk.get("sha256"), str) or not isinstance(probes, dict)
                or not all(isinstance(probes.get(k), str) for k in ("set_sha256", "verdicts_sha256"))):
            raise bad("toolkit must hold sha256 and probes {set_sha256, verdicts_sha256}")


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
    except RecursionError as e:
        raise ArtifactError(f"{path}: {MANIFEST} is nested too deeply") from e
    check_manifest(manifest, str(path))
    hashes: dict[str, str] = manifest["files"]
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
    return Artifact(version=manifest["artifact_version"], manifest=manifest, files=files, source=str(path))


def empty_release_manifest() -> Artifact:
    """The in-memory empty library: where a construction run that asks for it
    (``start_from: empty``) begins. Never a silent default of the runtime."""
    manifest = {
        "schema_version": SCHEMA_VERSION,
        "artifact_version": "r0000",
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
    """The rule bank worked on: ``$AUTOVERIFIER_RULEBANK``, else the source checkout's ``rulebank/``."""
    env = os.environ.get("AUTOVERIFIER_RULEBANK")
    return Path(env) if env else SOURCE_RULEBANK


def release_version(name: str) -> int | None:
    """The number of an exact release name (``r0003`` -> 3); ``None`` for anything else."""
    m = _VERSION_RE.match(name)
    return int(m.group(1)) if m else None


def releases(root: str | os.PathLike[str]) -> list[Path]:
    """The release directories under ``<root>/releases``, oldest first: exact ``rNNNN`` names
    holding a manifest only (``r0009-test``, ``r12`` or a stray file never count)."""
    return releases_under(Path(root) / "releases")


def releases_under(folder: str | os.PathLike[str]) -> list[Path]:
    """The ``rNNNN`` directories holding a manifest directly under ``folder``, oldest first."""
    rel = Path(folder)
    if not rel.is_dir():
        return []
    found = []
    for p in rel.iterdir():
        n = release_version(p.name)
        if n is not None and p.is_dir() and not p.is_symlink() and (p / MANIFEST).is_file():
            found.append((n, p))
    return [p for _, p in sorted(found)]


def newest_release(root: str | os.PathLike[str] | None = None) -> Path | None:
    """The newest release (highest ``rNNNN``) under ``<root>/releases``; with no ``root``,
    the shipped default (see :func:`shipped_release`), or ``None`` when there is none."""
    if root is None:
        try:
            return shipped_release()
        except ArtifactError:
            return None
    found = releases(root)
    return found[-1] if found else None


def shipped_release() -> Path:
    """The release ``load_verifier()`` loads by default.

    ``$AUTOVERIFIER_RULEBANK`` (its newest release) when set; else the release packaged into
    an installed wheel; else the newest release of a source checkout's ``rulebank/``. Raises
    :class:`ArtifactError` when there is none: a missing release is never an empty library.
    """
    env = os.environ.get("AUTOVERIFIER_RULEBANK")
    if env:
        found = releases(env)
        if not found:
            raise ArtifactError(f"AUTOVERIFIER_RULEBANK={env}: no release (a directory rNNNN with a "
                                f"{MANIFEST}) under {Path(env) / 'releases'}")
        return found[-1]
    for root in (PACKAGED_RULEBANK, SOURCE_RULEBANK):
        found = releases(root)
        if found:
            return found[-1]
    raise ArtifactError(
        "no shipped release found: the installed package has no verifier_runtime/_shipped/releases and "
        f"there is no {SOURCE_RULEBANK / 'releases'}; pass a release path to load_verifier(artifact=...) "
        "or set AUTOVERIFIER_RULEBANK")
