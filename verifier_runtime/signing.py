"""Signed releases: an Ed25519 signature over a release's manifest, checked against trusted keys.

A release's ``manifest.json`` lists the sha256 of every other file, so a signature over the
manifest's exact bytes covers the whole release. The signature lives beside it in
``manifest.sig``::

    {"algorithm": "ed25519", "key_id": "<16 hex digits>", "signature": "<base64>"}

``key_id`` is the start of the sha256 of the raw 32-byte public key. Keys are files: a private
key in PKCS#8 PEM (written with mode 0600), a public key as one line ``ed25519:<base64 of the
raw 32 bytes>`` (or a PEM public key).

Trust: with no trusted keys configured, a release is trusted because its hashes match its
manifest, which proves it was not damaged, not who made it (anyone who edits a module can
recompute the hashes). With trusted keys (``load_verifier(trusted_keys=[...])`` or
``AUTOVERIFIER_TRUSTED_KEYS``, a list of key files or ``ed25519:`` strings separated by the
path separator), loading refuses a release that is unsigned, signed by another key, or whose
manifest changed after signing.

The cryptography comes from the ``cryptography`` package (the ``signing`` extra), imported only
when a key is used.
"""

from __future__ import annotations

import base64
import hashlib
import json
import os
from collections.abc import Iterable
from pathlib import Path
from typing import Any

__all__ = ["SIGNATURE_FILE", "SigningError", "check_signature", "generate_key", "key_id", "load_public_key",
           "resolve_trusted_keys", "sign_manifest", "sign_release"]

SIGNATURE_FILE = "manifest.sig"
MANIFEST_FILE = "manifest.json"
TRUSTED_KEYS_ENV = "AUTOVERIFIER_TRUSTED_KEYS"
SIGNING_KEY_ENV = "AUTOVERIFIER_SIGNING_KEY"
_PREFIX = "ed25519:"


class SigningError(ValueError):
    """A key or signature that cannot be used, or a release that fails the signature check."""


def _crypto() -> Any:
    try:
        from cryptography.hazmat.primitives.asymmetric import ed25519
    except ImportError as exc:  # pragma: no cover - the signing extra is missing
        raise SigningError("signed releases need the 'cryptography' package "
                           "(pip install 'autoverifier[signing]')") from exc
    return ed25519


def _raw_public(public_key: Any) -> bytes:
    from cryptography.hazmat.primitives import serialization

    return public_key.public_bytes(serialization.Encoding.Raw, serialization.PublicFormat.Raw)


def key_id(public_key: Any) -> str:
    """The short id of a public key: 16 hex digits of the sha256 of its raw bytes."""
    return hashlib.sha256(_raw_public(public_key)).hexdigest()[:16]


def generate_key(path: str | os.PathLike[str]) -> tuple[Path, Path]:
    """Write a new private key to ``path`` (mode 0600) and its public key to ``path + '.pub'``."""
    from cryptography.hazmat.primitives import serialization

    ed25519 = _crypto()
    private = ed25519.Ed25519PrivateKey.generate()
    path = Path(path)
    if path.exists():
        raise SigningError(f"{path} exists: refusing to overwrite a key")
    pem = private.private_bytes(serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8,
                                serialization.NoEncryption())
    path.parent.mkdir(parents=True, exist_ok=True)
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
    with os.fdopen(fd, "wb") as fh:
        fh.write(pem)
    pub = path.with_name(path.name + ".pub")
    pub.write_text(_PREFIX + base64.b64encode(_raw_public(private.public_key())).decode() + "\n", encoding="utf-8")
    return path, pub


def _load_private(path: str | os.PathLike[str]) -> Any:
    from cryptography.hazmat.primitives import serialization

    ed25519 = _crypto()
    try:
        key = serialization.load_pem_private_key(Path(path).read_bytes(), password=None)
    except (OSError, ValueError, TypeError) as exc:
        raise SigningError(f"cannot read the private key {path}: {exc}") from None
    if not isinstance(key, ed25519.Ed25519PrivateKey):
        raise SigningError(f"{path} is not an Ed25519 private key")
    return key


def load_public_key(spec: str | os.PathLike[str] | bytes) -> Any:
    """A public key from ``ed25519:<base64>``, 32 raw bytes, or a file holding either (or a PEM key)."""
    ed25519 = _crypto()
    if isinstance(spec, bytes) and len(spec) == 32:
        return ed25519.Ed25519PublicKey.from_public_bytes(spec)
    text = os.fspath(spec) if not isinstance(spec, bytes) else spec.decode("ascii", "replace")
    if not text.startswith(_PREFIX) and Path(text).is_file():
        text = Path(text).read_text(encoding="utf-8").strip()
    if text.startswith(_PREFIX):
        try:
            raw = base64.b64decode(text[len(_PREFIX):].strip(), validate=True)
            return ed25519.Ed25519PublicKey.from_public_bytes(raw)
        except ValueError as exc:
            raise SigningError(f"bad Ed25519 public key {text[:30]!r}...: {exc}") from None
    if "BEGIN PUBLIC KEY" in text:
        from cryptography.hazmat.primitives import serialization

        key = serialization.load_pem_public_key(text.encode())
        if isinstance(key, ed25519.Ed25519PublicKey):
            return key
    raise SigningError(f"not an Ed25519 public key (expected 'ed25519:<base64>' or a key file): {text[:40]!r}")


def resolve_trusted_keys(keys: Iterable[Any] | str | None = None) -> list[Any]:
    """Trusted keys from the argument, else from ``AUTOVERIFIER_TRUSTED_KEYS``; ``[]`` when none."""
    if keys is None:
        env = os.environ.get(TRUSTED_KEYS_ENV, "").strip()
        keys = [k for k in env.split(os.pathsep) if k.strip()] if env else []
    elif isinstance(keys, str | os.PathLike | bytes):
        keys = [keys]
    return [k if hasattr(k, "verify") else load_public_key(k) for k in keys]


def sign_manifest(manifest: bytes, private_key_path: str | os.PathLike[str]) -> bytes:
    """The ``manifest.sig`` content for ``manifest`` (its exact bytes) signed with the key."""
    key = _load_private(private_key_path)
    sig = {"algorithm": "ed25519", "key_id": key_id(key.public_key()),
           "signature": base64.b64encode(key.sign(manifest)).decode()}
    return (json.dumps(sig, indent=2, sort_keys=True) + "\n").encode()


def sign_release(release_dir: str | os.PathLike[str], private_key_path: str | os.PathLike[str]) -> Path:
    """Write ``manifest.sig`` into a release directory (replacing an older signature)."""
    release_dir = Path(release_dir)
    manifest = (release_dir / MANIFEST_FILE).read_bytes()
    out = release_dir / SIGNATURE_FILE
    tmp = out.with_name(out.name + ".tmp")
    tmp.write_bytes(sign_manifest(manifest, private_key_path))
    os.replace(tmp, out)
    return out


def sign_if_configured(release_dir: str | os.PathLike[str]) -> Path | None:
    """Sign a just-written release with ``$AUTOVERIFIER_SIGNING_KEY`` when that is set (freeze, build)."""
    key = os.environ.get(SIGNING_KEY_ENV, "").strip()
    return sign_release(release_dir, key) if key else None


def check_signature(manifest: bytes, signature: bytes | None, trusted_keys: list[Any], where: str = "") -> str | None:
    """Verify a release's signature against ``trusted_keys``; returns the signing key's id.

    With no trusted keys nothing is checked (``None``). Otherwise raises :class:`SigningError`
    for a missing, malformed, unknown-key or wrong signature.
    """
    if not trusted_keys:
        return None
    label = f"{where}: " if where else ""
    if signature is None:
        raise SigningError(f"{label}the release is not signed ({SIGNATURE_FILE} missing) and trusted keys are "
                           "configured")
    try:
        sig = json.loads(signature.decode("utf-8"))
        if not isinstance(sig, dict) or sig.get("algorithm") != "ed25519":
            raise ValueError("not an ed25519 signature record")
        raw = base64.b64decode(str(sig.get("signature", "")), validate=True)
        wanted = str(sig.get("key_id", ""))
    except (UnicodeDecodeError, ValueError, RecursionError) as exc:
        raise SigningError(f"{label}{SIGNATURE_FILE} is malformed: {exc}") from None
    from cryptography.exceptions import InvalidSignature

    for key in trusted_keys:
        if key_id(key) != wanted:
            continue
        try:
            key.verify(raw, manifest)
        except InvalidSignature:
            raise SigningError(f"{label}the signature does not match the manifest (changed after signing, or "
                               "forged)") from None
        return wanted
    raise SigningError(f"{label}signed by key {wanted[:16]!r}, which is not among the trusted keys")
