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


CACHE_OFF = {"", "0", "off", "none", "false", "no"}


def cache_root() -> Path | None:
    """The folder of the construction's derived-data caches (numba's compiled UMAP, embeddings):
    ``$AUTOVERIFIER_CACHE_DIR``, else ``data/cache`` in the checkout; None when that variable is
    ``off`` (or ``0``/``none``): nothing is cached, everything is computed afresh."""
    env = os.environ.get("AUTOVERIFIER_CACHE_DIR")
    if env is None:
        return REPO_ROOT / "data" / "cache"
    return None if env.strip().lower() in CACHE_OFF else repo_path(env)
