"""Render a parametric template into a module file, and instantiate candidates fast.

A rendered module is one self-contained Python file: a docstring (what, why, evidence),
the template's imports, ``MODULE`` metadata, the tuned ``PARAMS``, the ``decide`` function,
and ``SUPPORT`` / ``COUNTEREXAMPLES`` cases that the test suite replays for every module.
"""

from __future__ import annotations

import ast
import hashlib
import pprint
from dataclasses import dataclass
from functools import cache
from pathlib import Path
from typing import Any

from tasks.construct.templates import TEMPLATE_NAMES

TEMPLATE_DIR = Path(__file__).resolve().parent / "templates"
TEMPLATE_ONLY = {"PARAMS", "GRID", "GROUP", "MEANING"}  # template metadata, not part of a module's code


@dataclass(frozen=True)
class Template:
    name: str
    group: str
    defaults: dict[str, Any]
    grid: dict[str, list[Any]]
    source: str
    doc: str
    meaning: dict[str, str]

    @property
    def version(self) -> str:
        """The template's version: the first 12 hex digits of its source's sha256."""
        return hashlib.sha256(self.source.encode("utf-8")).hexdigest()[:12]


@cache
def load_template(name: str) -> Template:
    if name not in TEMPLATE_NAMES:
        raise KeyError(f"unknown template {name!r}")
    source = (TEMPLATE_DIR / f"{name}.py").read_text(encoding="utf-8")
    tree = ast.parse(source)
    consts: dict[str, Any] = {}
    for node in tree.body:
        if isinstance(node, ast.Assign) and len(node.targets) == 1 and isinstance(node.targets[0], ast.Name):
            if node.targets[0].id in ("GROUP", "PARAMS", "GRID", "MEANING"):
                consts[node.targets[0].id] = ast.literal_eval(node.value)
    return Template(name, consts["GROUP"], consts["PARAMS"], consts["GRID"], source, ast.get_docstring(tree) or "",
                    consts.get("MEANING", {}))


def template_names() -> tuple[str, ...]:
    return TEMPLATE_NAMES


def _strip_assignments(source: str, names: set[str]) -> tuple[list[str], int, int]:
    """Remove top-level assignments to ``names`` and the docstring; return lines and where PARAMS was."""
    tree = ast.parse(source)
    lines = source.splitlines()
    drop: set[int] = set()
    params_at = -1
    doc_end = 0
    if tree.body and isinstance(tree.body[0], ast.Expr) and isinstance(getattr(tree.body[0], "value", None), ast.Constant):
        doc_end = tree.body[0].end_lineno or 0
        drop.update(range(tree.body[0].lineno - 1, doc_end))
    for node in tree.body:
        if isinstance(node, ast.Assign) and len(node.targets) == 1 and isinstance(node.targets[0], ast.Name):
            if node.targets[0].id in names:
                if node.targets[0].id == "PARAMS":
                    params_at = node.lineno - 1
                drop.update(range(node.lineno - 1, node.end_lineno or node.lineno))
    kept = [ln if i not in drop else None for i, ln in enumerate(lines)]
    return kept, params_at, doc_end


def _literal(value: Any) -> str:
    return pprint.pformat(value, width=100, sort_dicts=True)


def render_module(
    template: str,
    params: dict[str, Any],
    *,
    module_id: str,
    priority: int,
    card_id: str,
    description: str,
    why: str,
    support: list[dict[str, str]],
    counterexamples: list[dict[str, str]],
    revision: int = 1,
) -> str:
    """The full source of a module file for ``template`` with tuned ``params``."""
    t = load_template(template)
    unknown = set(params) - set(t.defaults)
    if unknown:
        raise ValueError(f"unknown parameters for {template}: {sorted(unknown)}")
    full = {**t.defaults, **params}
    kept, params_at, _ = _strip_assignments(t.source, TEMPLATE_ONLY)
    body: list[str] = []
    for i, ln in enumerate(kept):
        if i == params_at:
            body.append(f"PARAMS = {_literal(full)}")
        elif ln is not None:
            body.append(ln)
    while body and not body[0].strip():
        body.pop(0)
    meta = {
        "id": module_id,
        "group": t.group,
        "priority": int(priority),
        "card_id": card_id,
        "template": template,
        "revision": int(revision),
        "description": description,
    }
    doc = (
        f'"""{description}\n\n'
        f"Template: {template} (group {t.group}). {t.doc.splitlines()[0] if t.doc else ''}\n\n"
        f"Why: {why}\n"
        f'Card: {card_id}; revision {revision}.\n"""'
    )
    parts = [
        doc,
        "",
        *body,
        "",
        "",
        f"MODULE = {_literal(meta)}",
        "",
        f"SUPPORT = {_literal(support)}",
        "",
        f"COUNTEREXAMPLES = {_literal(counterexamples)}",
        "",
    ]
    return "\n".join(parts)


def module_code(template: str) -> str:
    """A template as a module's ``module.py``: its documentation and code, without the template's
    metadata (``PARAMS``, ``GRID``, ``GROUP``, ``MEANING``); the parameters live on the card."""
    t = load_template(template)
    kept, _, doc_end = _strip_assignments(t.source, TEMPLATE_ONLY)
    body = [ln for ln in kept[doc_end:] if ln is not None]
    while body and not body[0].strip():
        body.pop(0)
    return f'"""{t.doc}\n"""\n\n' + "\n".join(body).rstrip() + "\n"


@dataclass(frozen=True)
class Candidate:
    """One (template, parameters) pair, instantiated into a callable ``decide``."""

    template: str
    params: dict[str, Any]
    decide: Any


@cache
def _compiled(name: str):
    t = load_template(name)
    return compile(t.source, f"<template {name}>", "exec")


def instantiate(template: str, params: dict[str, Any]) -> Candidate:
    """A candidate's ``decide`` without writing a file: the template's code with ``params``."""
    t = load_template(template)
    ns: dict[str, Any] = {"__name__": f"candidate_{template}"}
    exec(_compiled(template), ns)  # our own template source (rendered modules go through the audit)
    ns["PARAMS"] = {**t.defaults, **params}
    return Candidate(template, dict(params), ns["decide"])
