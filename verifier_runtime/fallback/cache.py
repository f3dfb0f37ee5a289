"""An on-disk cache of judge replies, so a replay never pays for the same prompt twice.

One JSON file per entry under ``<dir>/<first two hex digits>/<key>.json``. Writes go to a
temporary file in the same folder and are moved into place with ``os.replace``, which is
atomic, so threads and processes sharing a folder never see half an entry. An entry that
cannot be read or does not have the expected shape is treated as missing (the prompt is
asked again and the entry rewritten).

The key is the SHA-256 of (schema version, provider, model, temperature, max_tokens, the
rendered prompt). The endpoint's ``base_url`` is deliberately *not* part of it: the same
model behind a proxy or a second deployment answers the same prompt, and a cache stays
valid when an endpoint moves. Point two different servers that reuse one model name at
two different cache folders (or give the models distinct names).
"""

from __future__ import annotations

import hashlib
import json
import os
import tempfile
from pathlib import Path
from typing import Any

__all__ = ["CACHE_SCHEMA", "JudgeCache", "cache_key"]

CACHE_SCHEMA = 1


def cache_key(provider: str, model: str, temperature: float | None, max_tokens: int, prompt: str) -> str:
    """The hex SHA-256 naming one cached reply."""
    payload = json.dumps(
        [CACHE_SCHEMA, provider, model, temperature, int(max_tokens), prompt],
        ensure_ascii=True,
        separators=(",", ":"),
    )
    return hashlib.sha256(payload.encode("ascii")).hexdigest()


def _valid(entry: Any) -> bool:
    if not isinstance(entry, dict):
        return False
    if not isinstance(entry.get("raw"), str):
        return False
    if entry.get("correct") not in (True, False, None):
        return False
    return all(
        isinstance(entry.get(k), int) and not isinstance(entry.get(k), bool) and entry[k] >= 0
        for k in ("input_tokens", "output_tokens")
    )


class JudgeCache:
    """A folder of cached judge replies: ``get(key)`` and ``put(key, entry)``.

    An entry is ``{"raw": str, "correct": bool | None, "input_tokens": int, "output_tokens": int}``.
    """

    def __init__(self, directory: str | os.PathLike[str]) -> None:
        self.dir = Path(directory)

    def path(self, key: str) -> Path:
        """Where the entry for ``key`` lives."""
        if len(key) < 3 or not all(c in "0123456789abcdef" for c in key):
            raise ValueError(f"not a cache key: {key!r}")
        return self.dir / key[:2] / f"{key}.json"

    def get(self, key: str) -> dict[str, Any] | None:
        """The entry for ``key``, or ``None`` when absent or unreadable."""
        try:
            with open(self.path(key), encoding="utf-8") as fh:
                entry = json.load(fh)
        except (OSError, ValueError):
            return None
        return entry if _valid(entry) else None

    def put(self, key: str, entry: dict[str, Any]) -> bool:
        """Store ``entry`` atomically; ``False`` (no error) when the folder cannot be written."""
        if not _valid(entry):
            raise ValueError("cache entry needs raw (str), correct (bool|None) and token counts (int)")
        target = self.path(key)
        data = {k: entry[k] for k in ("raw", "correct", "input_tokens", "output_tokens")}
        tmp = None
        try:
            target.parent.mkdir(parents=True, exist_ok=True)
            fd, tmp = tempfile.mkstemp(prefix=".tmp-", suffix=".json", dir=target.parent)
            with os.fdopen(fd, "w", encoding="utf-8") as fh:
                json.dump(data, fh, ensure_ascii=True)
            os.replace(tmp, target)
            return True
        except OSError:
            if tmp is not None:
                try:
                    os.unlink(tmp)
                except OSError:
                    pass
            return False

    def __len__(self) -> int:
        if not self.dir.is_dir():
            return 0
        return sum(1 for _ in self.dir.glob("??/*.json"))
