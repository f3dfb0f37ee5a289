"""Loader for the judgment golden suites (``tests/golden/judgment/``, ``tests/golden/hedges/``).

Shared by ``tests/test_judgment_golden.py`` and ``benchmarks/judgment.py``. Every ``*.jsonl``
file in a suite folder is discovered; there is no hand-kept list. One JSON object per line:

>>> case = {"id": "fractions-001", "question": "...", "reference": "3/4", "response": "0.75",
...         "label": True, "rule": "R3.1", "why": "0.75 equals 3/4"}
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

GOLDEN_DIR = Path(__file__).resolve().parent / "golden"
SUITES = ("judgment", "hedges")

REQUIRED_FIELDS: dict[str, type] = {
    "id": str,
    "question": str,
    "reference": str,
    "response": str,
    "label": bool,
    "rule": str,
    "why": str,
}
# known_failure: the offline verdict is known to disagree (a strict xfail); known_failure_direct:
# the direct path is known to pass a case labelled incorrect (hedge suite only).
OPTIONAL_FIELDS: dict[str, type] = {"reason_prefix": str, "known_failure": str, "known_failure_direct": str}


class CaseFileError(ValueError):
    """A golden file line that is not valid JSON or not a JSON object."""


def suite_files(suite: str, root: Path = GOLDEN_DIR) -> list[Path]:
    """The suite's ``*.jsonl`` files, sorted by name."""
    return sorted((root / suite).glob("*.jsonl"))


def load_file(path: Path) -> list[dict[str, Any]]:
    """Cases of one file, each with ``file`` (the file's stem) and ``line`` added."""
    out = []
    for n, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
        if not line.strip():
            continue
        try:
            case = json.loads(line)
        except json.JSONDecodeError as e:
            raise CaseFileError(f"{path.name}:{n}: not valid JSON ({e.msg})") from e
        if not isinstance(case, dict):
            raise CaseFileError(f"{path.name}:{n}: a line must be a JSON object")
        case["file"] = path.stem
        case["line"] = n
        out.append(case)
    return out


def load_suite(suite: str, root: Path = GOLDEN_DIR) -> list[dict[str, Any]]:
    """Every case of ``suite`` ("judgment" or "hedges"), file by file."""
    if suite not in SUITES:
        raise ValueError(f"unknown suite {suite!r}; expected one of {SUITES}")
    return [case for path in suite_files(suite, root) for case in load_file(path)]


def schema_problems(case: dict[str, Any]) -> list[str]:
    """What is wrong with one case's fields (empty when it is well formed)."""
    problems = []
    for key, typ in REQUIRED_FIELDS.items():
        if key not in case:
            problems.append(f"missing {key!r}")
        elif type(case[key]) is not typ:
            problems.append(f"{key!r} must be {typ.__name__}")
    for key, typ in OPTIONAL_FIELDS.items():
        if key in case and (type(case[key]) is not typ or not case[key].strip()):
            problems.append(f"{key!r} must be a non-empty {typ.__name__}")
    unknown = set(case) - set(REQUIRED_FIELDS) - set(OPTIONAL_FIELDS) - {"file", "line"}
    if unknown:
        problems.append(f"unknown fields {sorted(unknown)}")
    for key in ("id", "rule", "why"):
        if isinstance(case.get(key), str) and not case[key].strip():
            problems.append(f"{key!r} is empty")
    return problems
