"""No module-level name of the runtime is bound twice: a second ``_NAME_RE = ...`` further down
a module silently replaces the first for every function that reads it (each function sees the
last binding when it runs), which changes a primitive far from the line that was edited."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent / "verifier_runtime"
MODULES = sorted(p for p in ROOT.rglob("*.py") if "__pycache__" not in p.parts)


def _rebound(path: Path) -> list[str]:
    tree = ast.parse(path.read_text(encoding="utf-8"))
    seen: dict[str, int] = {}
    out = []
    for node in tree.body:
        targets: list[ast.expr] = []
        if isinstance(node, ast.Assign):
            targets = node.targets
        elif isinstance(node, ast.AnnAssign) and node.value is not None:
            targets = [node.target]
        elif isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            targets = [ast.Name(id=node.name)]
        for t in targets:
            if isinstance(t, ast.Name):
                if t.id in seen and t.id != "__all__":
                    out.append(f"{t.id} (lines {seen[t.id]} and {node.lineno})")
                seen.setdefault(t.id, node.lineno)
    return out


@pytest.mark.parametrize("path", MODULES, ids=lambda p: str(p.relative_to(ROOT)))
def test_no_module_level_name_is_bound_twice(path):
    assert _rebound(path) == []


def test_the_check_finds_a_rebinding(tmp_path):
    f = tmp_path / "m.py"
    f.write_text("import re\n_A_RE = re.compile('a')\n\ndef f():\n    return _A_RE\n\n_A_RE = re.compile('b')\n")
    assert _rebound(f) == ["_A_RE (lines 2 and 7)"]
