"""numba's on-disk cache for UMAP, so its compilation is paid once per machine, not per process.

umap-learn (0.5.x) decorates its numba functions without ``cache=True``, so every new process
compiles them again on first use: 20-30 s on this project's machine, most of a construction
round's clustering step. pynndescent (which umap imports) already caches its own functions.
:func:`umap_with_cache` imports umap and turns numba's file cache on for every module-level
numba function of ``umap`` and ``pynndescent`` (``Dispatcher.enable_caching``, the method
``@jit(cache=True)`` calls), in one cache folder:

* ``$NUMBA_CACHE_DIR`` when it is set (numba's own setting), else
* ``numba/`` in the project's cache folder (:func:`tasks.paths.cache_root`: ``data/cache`` in
  the checkout, ignored by git, mounted by the worker image; ``$AUTOVERIFIER_CACHE_DIR``).

``AUTOVERIFIER_CACHE_DIR=off`` leaves umap as it is (no cache). The cache changes no result: a
cached function is the same machine code numba compiled for the same argument types, and numba
recompiles when the function's source file changes (its index records the file's time and
size), so an upgrade of umap-learn invalidates it. Writes are atomic (numba writes a temporary
file and renames it), so concurrent processes may share the folder.
"""

from __future__ import annotations

import os
import sys
from pathlib import Path
from types import ModuleType
from typing import Any

from tasks.paths import cache_root

PACKAGES = ("umap", "pynndescent")
_state: dict[str, Any] = {}


def cache_dir() -> Path | None:
    """The folder numba's cache is written to (``$NUMBA_CACHE_DIR``, else ``<cache root>/numba``);
    None when the project's caches are off."""
    root = cache_root()
    if root is None:
        return None
    env = os.environ.get("NUMBA_CACHE_DIR")
    return Path(env).expanduser() if env else root / "numba"


def _set_cache_dir(path: Path) -> Path | None:
    """Point numba's cache at ``path`` (created; None when it cannot be written)."""
    try:
        path.mkdir(parents=True, exist_ok=True)
        probe = path / f".probe-{os.getpid()}"
        probe.write_bytes(b"")
        probe.unlink()
    except OSError:
        return None
    # numba reads the variable at import and again before each compilation (reload_config)
    os.environ["NUMBA_CACHE_DIR"] = str(path)
    if "numba" in sys.modules:
        import numba

        numba.config.CACHE_DIR = str(path)
    return path


def enable_module_caching(modules: list[ModuleType]) -> int:
    """Turn the file cache on for the module-level numba functions of ``modules`` that do not
    cache yet; returns how many were turned on."""
    from numba.core.caching import FunctionCache
    from numba.core.dispatcher import Dispatcher

    n = 0
    for mod in modules:
        for value in list(vars(mod).values()):
            if isinstance(value, Dispatcher) and not isinstance(value._cache, FunctionCache):
                try:
                    value.enable_caching()
                except (RuntimeError, OSError, TypeError):  # no locator for its file: stays uncached
                    continue
                n += 1
    return n


def umap_with_cache() -> ModuleType:
    """``import umap``, with numba's file cache on for umap's (and pynndescent's) functions
    unless the project's caches are off. Idempotent; :func:`status` says what it did."""
    if _state.get("done"):
        import umap

        return umap
    wanted = cache_dir()
    folder = _set_cache_dir(wanted) if wanted is not None else None
    import umap
    import umap.umap_  # noqa: F401  (every numba module umap uses is imported by now)

    n = 0
    if folder is not None:
        mods = [m for name, m in sorted(sys.modules.items())
                if m is not None and name.split(".")[0] in PACKAGES]
        n = enable_module_caching(mods)
    _state.update(done=True, folder=str(folder) if folder else None, functions=n)
    return umap


def status() -> dict[str, Any]:
    """``{"folder": path or None, "functions": how many were given a cache}`` after :func:`umap_with_cache`."""
    return {"folder": _state.get("folder"), "functions": _state.get("functions", 0)}


__all__ = ["cache_dir", "enable_module_caching", "status", "umap_with_cache"]
