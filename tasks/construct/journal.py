"""What makes construction rounds resumable: the round ledger, the in-progress journal, the lock.

A round writes to three places that cannot share one transaction: the store (DuckDB), the
rule bank's source (``modules/``, ``rejected/``) and a round build (``rounds/rNNNN``). The
freeze step orders its writes so that a round stopped at any point (even by SIGKILL) is either
rolled back or rolled forward when the next round of the same rule bank prepares:

1. the store: every row of the round in one transaction, the round marked ``freezing``;
2. the source: each folder is named in the journal (and copied aside when it exists) before
   it is written, then the journal records ``sources_done``;
3. the round build, written to a temporary directory and renamed into place;
4. the ledger: one line for the round (the commit point);
5. the store: the round marked ``complete``; the journal removed.

On recovery, a journal whose round reached the ledger, or whose sources and build are in place,
is rolled forward (4 and 5 again); any other is rolled back (written folders removed, the
copies put back, the round's store rows deleted), and the round runs again under its number.

    ledger = RoundLedger(bank_root)
    ledger.last()            # {"round": 4, "config": "demo", "base": "r0002", "build": "r0003", ...}
"""

from __future__ import annotations

import json
import os
import re
import shutil
import tempfile
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

ROUNDS_DIR = "rounds"
LEDGER_FILE = "ledger.jsonl"
JOURNAL_DIR = ".in-progress"
LOCK_FILE = ".lock"
# Temporary names left by an interrupted atomic write: ``.rNNNN.<random>`` (a round build) and
# ``.<file>.<random>`` (a source file).
_TEMP_BUILD_RE = re.compile(r"^\.r\d{4,}\.[A-Za-z0-9_]+$")
_TEMP_FILE_RE = re.compile(r"^\.(card\.yaml|module\.py|cases\.jsonl)\.[A-Za-z0-9_]+$")


class RoundBusyError(RuntimeError):
    """Another construction round of the same rule bank is running."""


def _now() -> str:
    return datetime.now(UTC).isoformat(timespec="seconds")


def _atomic_write(path: Path, text: str) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", dir=path.parent)
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as fh:
            fh.write(text)
            fh.flush()
            os.fsync(fh.fileno())
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise


class RoundLedger:
    """``<rulebank>/rounds/ledger.jsonl``: one line per finished round of this rule bank, in order.

    Each line: ``round``, ``config``, ``base`` (the version the round started from), ``build``
    (the round build it froze, or ``null`` when it accepted nothing), ``state`` (where the next
    round starts: ``empty``, or a path relative to the rule bank, or an absolute path),
    ``accepted``, ``rejected``, ``fresh``, ``finished_at``.
    """

    def __init__(self, bank_root: str | os.PathLike[str]) -> None:
        self.path = Path(bank_root) / ROUNDS_DIR / LEDGER_FILE

    def entries(self) -> list[dict[str, Any]]:
        if not self.path.is_file():
            return []
        out = []
        for n, line in enumerate(self.path.read_text(encoding="utf-8").splitlines(), 1):
            if not line.strip():
                continue
            try:
                out.append(json.loads(line))
            except json.JSONDecodeError as exc:
                raise ValueError(f"{self.path}:{n}: not a JSON line ({exc.msg})") from exc
        return out

    def last(self) -> dict[str, Any] | None:
        entries = self.entries()
        return entries[-1] if entries else None

    def has(self, round_no: int) -> bool:
        return any(int(e["round"]) == round_no for e in self.entries())

    def append(self, entry: dict[str, Any]) -> None:
        """Add one round (rewritten atomically: a reader never sees half a line)."""
        if self.has(int(entry["round"])):
            raise ValueError(f"round {entry['round']} is already in {self.path}")
        lines = [json.dumps(e, sort_keys=True) for e in self.entries()]
        lines.append(json.dumps({**entry, "finished_at": entry.get("finished_at") or _now()}, sort_keys=True))
        _atomic_write(self.path, "\n".join(lines) + "\n")


class RoundJournal:
    """``<rulebank>/rounds/.in-progress/``: the round being frozen, and how to undo its writes."""

    def __init__(self, bank_root: str | os.PathLike[str]) -> None:
        self.bank_root = Path(bank_root)
        self.dir = self.bank_root / ROUNDS_DIR / JOURNAL_DIR

    @property
    def info_path(self) -> Path:
        return self.dir / "round.json"

    def exists(self) -> bool:
        return self.info_path.is_file()

    def info(self) -> dict[str, Any]:
        return json.loads(self.info_path.read_text(encoding="utf-8")) if self.exists() else {}

    def start(self, **info: Any) -> None:
        """Open the journal for a round (``round``, ``config``, ``base``, ``build``: the planned name or None)."""
        if self.dir.exists():
            shutil.rmtree(self.dir)
        (self.dir / "undo").mkdir(parents=True)
        _atomic_write(self.info_path, json.dumps({**info, "started_at": _now(), "sources_done": False}))

    def update(self, **info: Any) -> None:
        _atomic_write(self.info_path, json.dumps({**self.info(), **info}))

    def written(self) -> list[Path]:
        p = self.dir / "written.txt"
        if not p.is_file():
            return []
        return [self.bank_root / line for line in dict.fromkeys(p.read_text(encoding="utf-8").splitlines()) if line]

    def before_write(self, folder: Path) -> None:
        """Record that ``folder`` (under the rule bank) is about to be written; keep a copy of it."""
        rel = folder.resolve().relative_to(self.bank_root.resolve()).as_posix()
        undo = self.dir / "undo" / rel
        if folder.exists() and not undo.exists():
            shutil.copytree(folder, undo)
        with open(self.dir / "written.txt", "a", encoding="utf-8") as fh:
            fh.write(rel + "\n")
            fh.flush()
            os.fsync(fh.fileno())

    def rollback(self) -> list[str]:
        """Undo the journal's source writes; returns the folders restored or removed."""
        touched = []
        for folder in self.written():
            if folder.exists():
                shutil.rmtree(folder)
            undo = self.dir / "undo" / folder.relative_to(self.bank_root)
            if undo.exists():
                shutil.copytree(undo, folder)
            touched.append(folder.relative_to(self.bank_root).as_posix())
        return touched

    def finish(self) -> None:
        if self.dir.exists():
            shutil.rmtree(self.dir)


class RoundLock:
    """An exclusive lock on a rule bank's rounds (``<rulebank>/rounds/.lock``): one round at a
    time per rule bank, on this machine or on a shared filesystem that supports ``flock``.
    Released when the holder closes it or its process ends (even when killed)."""

    def __init__(self, bank_root: str | os.PathLike[str]) -> None:
        self.path = Path(bank_root) / ROUNDS_DIR / LOCK_FILE
        self._fh: Any = None

    def acquire(self) -> RoundLock:
        import fcntl

        self.path.parent.mkdir(parents=True, exist_ok=True)
        fh = open(self.path, "a+", encoding="utf-8")  # noqa: SIM115 - held open for the round's life
        try:
            fcntl.flock(fh.fileno(), fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            fh.seek(0)
            holder = fh.read().strip() or "another process"
            fh.close()
            raise RoundBusyError(f"another construction round of {self.path.parent.parent} is running "
                                 f"({holder}); one round at a time per rule bank") from None
        fh.seek(0)
        fh.truncate()
        fh.write(f"pid {os.getpid()} since {_now()}\n")
        fh.flush()
        self._fh = fh
        return self

    def release(self) -> None:
        if self._fh is not None:
            self._fh.close()
            self._fh = None

    @property
    def held(self) -> bool:
        return self._fh is not None


def clean_temporaries(bank_root: str | os.PathLike[str]) -> list[str]:
    """Remove what interrupted atomic writes left: ``.rNNNN.*`` build directories under
    ``rounds/`` and ``.<file>.*`` files in the source folders. Call it holding the lock."""
    root = Path(bank_root)
    removed = []
    rounds = root / ROUNDS_DIR
    if rounds.is_dir():
        for p in rounds.iterdir():
            if _TEMP_BUILD_RE.match(p.name) and p.is_dir():
                shutil.rmtree(p)
                removed.append(p.relative_to(root).as_posix())
    for sub in ("modules", "rejected"):
        base = root / sub
        if not base.is_dir():
            continue
        for folder in base.iterdir():
            if not folder.is_dir():
                continue
            for p in folder.iterdir():
                if _TEMP_FILE_RE.match(p.name):
                    p.unlink()
                    removed.append(p.relative_to(root).as_posix())
    return removed
