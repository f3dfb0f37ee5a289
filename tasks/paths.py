"""Where things are: the repository root and the shared data folder (one definition each)."""

from __future__ import annotations

import os
from pathlib import Path

from verifier_runtime.paths import SOURCE_ROOT

REPO_ROOT = SOURCE_ROOT  # the checkout's root: configs/, rulebank/ and data/ sit here


def repo_path(path: str | os.PathLike[str]) -> Path:
    """``path`` made absolute against the repository root (``~`` expanded; absolute paths unchanged)."""
    p = Path(path).expanduser()
    return p if p.is_absolute() else REPO_ROOT / p


def shared_root(configured: str | os.PathLike[str] | None = None) -> Path:
    """The shared data folder: ``configured`` (relative to the repository), else
    ``$AUTOVERIFIER_SHARED``, else ``../shared`` next to the repository."""
    if configured:
        return repo_path(configured)
    env = os.environ.get("AUTOVERIFIER_SHARED")
    return Path(env) if env else REPO_ROOT.parent / "shared"
