"""The toolkit fingerprint a release records, and the check made when a release is loaded.

A release's modules import the answer toolkit (``verifier_runtime/toolkit``) at load time, so
a module frozen into a release is only frozen together with the toolkit it was validated
with. ``rules build`` records, in the manifest's ``toolkit`` entry:

- ``sha256``: a content hash of every ``.py`` file of the toolkit package (relative path and
  bytes, in path order), and ``files``, their number;
- ``probes``: the release's own verdicts (modules only, no judge) on the fixed probe set
  shipped with the runtime (``verifier_runtime/probes.json``): the set's hash, its size and
  the hash of the verdicts.

At load, a different toolkit hash means the release runs with code it was not validated
with: the verifier re-runs the probes to say whether its decisions moved, warns
(:class:`ToolkitMismatchWarning`), and records the message on every ``Verdict``
(``artifact_warning``). ``strict=True`` refuses to load instead.
"""

from __future__ import annotations

import hashlib
import json
from functools import cache
from pathlib import Path
from typing import Any

TOOLKIT_DIR = Path(__file__).resolve().parent / "toolkit"
PROBES_FILE = Path(__file__).resolve().parent / "probes.json"


class ToolkitMismatchWarning(UserWarning):
    """A release is loaded under a toolkit other than the one it was validated with."""


def toolkit_hash(root: str | Path | None = None) -> tuple[str, int]:
    """``(sha256, number of files)`` over the toolkit package's ``.py`` files (content only)."""
    return _toolkit_hash(str(Path(root).resolve()) if root is not None else str(TOOLKIT_DIR))


@cache
def _toolkit_hash(root: str) -> tuple[str, int]:
    base = Path(root)
    h = hashlib.sha256()
    files = sorted(p for p in base.rglob("*.py") if "__pycache__" not in p.parts)
    for p in files:
        h.update(p.relative_to(base).as_posix().encode("utf-8") + b"\0")
        h.update(p.read_bytes() + b"\0")
    return h.hexdigest(), len(files)


@cache
def probe_set() -> tuple[tuple[str, str, str], ...]:
    """The fixed probe triples ``(question, reference, response)``."""
    rows = json.loads(PROBES_FILE.read_text(encoding="utf-8"))
    return tuple((str(r["question"]), str(r["reference"]), str(r["response"])) for r in rows)


def probe_set_hash() -> str:
    return hashlib.sha256(json.dumps(probe_set(), ensure_ascii=True).encode("ascii")).hexdigest()


def verdicts_hash(verdicts: list[tuple[str, str, str]]) -> str:
    """The hash of ``(decided_by, label, reason)`` per probe."""
    return hashlib.sha256(json.dumps(verdicts, ensure_ascii=True).encode("ascii")).hexdigest()


def fingerprint(verdicts: list[tuple[str, str, str]], root: str | Path | None = None) -> dict[str, Any]:
    """The manifest's ``toolkit`` entry for a release whose probe verdicts are ``verdicts``."""
    digest, n = toolkit_hash(root)
    return {"sha256": digest, "files": n,
            "probes": {"n": len(probe_set()), "set_sha256": probe_set_hash(), "verdicts_sha256": verdicts_hash(verdicts)}}


def mismatch(recorded: dict[str, Any] | None, version: str, verdicts: Any) -> str:
    """The warning for a release whose recorded fingerprint differs from this runtime's toolkit
    (``""`` when it matches). ``verdicts`` is called only on a mismatch: it returns the
    release's verdicts on the probe set under this toolkit."""
    if not recorded:
        return ""
    digest, _ = toolkit_hash()
    if recorded.get("sha256") == digest:
        return ""
    probes = recorded.get("probes") or {}
    if probes.get("set_sha256") != probe_set_hash():
        behaviour = "its probe set differs from this runtime's, so behaviour was not compared"
    else:
        now = verdicts()
        behaviour = ("probe verdicts unchanged" if verdicts_hash(now) == probes.get("verdicts_sha256")
                     else "probe verdicts CHANGED")
    return (f"release {version} was validated with toolkit {str(recorded.get('sha256'))[:12]}, this runtime has "
            f"{digest[:12]} ({behaviour}; rebuild the release with `autoverifier rules build`)")
