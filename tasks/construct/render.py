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
    """One self-contained module file for ``template`` with ``params``, composed exactly as a
    release composes a source module (:func:`tasks.rulebank.source.compose_module`), with
    ``SUPPORT`` / ``COUNTEREXAMPLES`` lists appended (cases the audit runs)."""
    from tasks.rulebank.source import SourceModule, compose_module

    t = load_template(template)
    unknown = set(params) - set(t.defaults)
    if unknown:
        raise ValueError(f"unknown parameters for {template}: {sorted(unknown)}")
    card = {"id": module_id, "status": "preview", "title": description, "template": template,
            "template_version": t.version, "group": t.group, "priority": int(priority), "revision": int(revision),
            "card_id": card_id, "why": why,
            "parameters": {k: {"value": v, "meaning": t.meaning.get(k, "")}
                           for k, v in sorted({**t.defaults, **params}.items())}}
    source = compose_module(SourceModule(module_id, card, module_code(template)))
    return source + f"\nSUPPORT = {_literal(support)}\n\nCOUNTEREXAMPLES = {_literal(counterexamples)}\n"


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
