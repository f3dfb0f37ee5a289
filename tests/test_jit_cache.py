"""numba's file cache for UMAP (``tasks/construct/jit_cache.py``): a second process reuses what
the first compiled, and the results are the same."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap
from pathlib import Path

from tasks.construct import jit_cache

REPO = Path(__file__).resolve().parent.parent

_MODULE = textwrap.dedent('''
    import numba

    @numba.njit()
    def poly(x):
        return 3.0 * x * x + 2.0 * x + 1.0
''')

_SCRIPT = textwrap.dedent('''
    import json, sys
    sys.path[:0] = [sys.argv[1], sys.argv[2]]
    import nbmod
    from tasks.construct.jit_cache import enable_module_caching
    n = enable_module_caching([nbmod]) if sys.argv[3] == "on" else 0
    value = nbmod.poly(1.5)
    print(json.dumps({"enabled": n, "value": value, "hits": sum(nbmod.poly.stats.cache_hits.values()),
                      "misses": sum(nbmod.poly.stats.cache_misses.values())}))
''')


def _run(tmp_path: Path, cache: Path, mode: str) -> dict:
    env = {**os.environ, "NUMBA_CACHE_DIR": str(cache)}
    out = subprocess.run([sys.executable, "-c", _SCRIPT, str(tmp_path), str(REPO), mode], env=env,
                         capture_output=True, text=True, timeout=120, check=True)
    return json.loads(out.stdout.strip().splitlines()[-1])


def test_a_second_process_loads_what_the_first_compiled(tmp_path):
    (tmp_path / "nbmod.py").write_text(_MODULE)
    cache = tmp_path / "cache"
    first = _run(tmp_path, cache, "on")
    assert first["enabled"] == 1 and first["hits"] == 0 and first["misses"] == 1
    assert list(cache.rglob("*.nbi")) and list(cache.rglob("*.nbc"))  # index and compiled code written
    second = _run(tmp_path, cache, "on")
    assert second["hits"] == 1 and second["misses"] == 0  # loaded, not compiled
    assert second["value"] == first["value"] == 3.0 * 1.5 * 1.5 + 2.0 * 1.5 + 1.0


def test_without_enabling_nothing_is_cached(tmp_path):
    (tmp_path / "nbmod.py").write_text(_MODULE)
    cache = tmp_path / "cache"
    for _ in range(2):
        run = _run(tmp_path, cache, "off")
        assert run["enabled"] == 0 and run["hits"] == 0
    assert not list(cache.rglob("*.nbi"))


def test_cache_folder_follows_the_settings(monkeypatch, tmp_path):
    monkeypatch.delenv("NUMBA_CACHE_DIR", raising=False)
    monkeypatch.setenv("AUTOVERIFIER_CACHE_DIR", str(tmp_path / "c"))
    assert jit_cache.cache_dir() == tmp_path / "c" / "numba"
    monkeypatch.setenv("NUMBA_CACHE_DIR", str(tmp_path / "nb"))
    assert jit_cache.cache_dir() == tmp_path / "nb"
    monkeypatch.setenv("AUTOVERIFIER_CACHE_DIR", "off")
    assert jit_cache.cache_dir() is None
    monkeypatch.delenv("AUTOVERIFIER_CACHE_DIR")
    monkeypatch.delenv("NUMBA_CACHE_DIR")
    assert jit_cache.cache_dir() == REPO / "data" / "cache" / "numba"
