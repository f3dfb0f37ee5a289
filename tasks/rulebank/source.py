"""The rule bank as reviewed source: one folder per module, read, checked and written here.

::

    rulebank/
      modules/<module_id>/card.yaml     what the module is, its parameters, status, why, evidence
      modules/<module_id>/module.py     the decide function (the template's code and documentation)
      modules/<module_id>/cases.jsonl   gold-labelled PASS / FAIL / ABSTAIN cases with provenance
      rejected/<card_id>/...            rejected cards, same format (module.py when there was code)
      prompt/template.txt, guidance.txt the judge's prompt template and learned guidance
      releases/rNNNN/                   frozen releases built from the active modules
      CHANGELOG.md                      every release's changes and figures, newest first

``module.py`` holds code only; its parameters are the card's (``parameters.<name>.value``),
and :func:`compose_module` joins the two into the file a release ships (``PARAMS`` after the
imports, the ``MODULE`` metadata at the end).
"""

from __future__ import annotations

import ast
import json
import os
import pprint
import re
import tempfile
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

import yaml

STATUSES = ("preview", "active", "retired")
LABELS = ("PASS", "FAIL", "ABSTAIN")
CARD_FILE, CODE_FILE, CASES_FILE = "card.yaml", "module.py", "cases.jsonl"
_ID_RE = re.compile(r"^[a-z][a-z0-9_]{0,80}$")
_CARD_ID_RE = re.compile(r"^[A-Za-z0-9_][A-Za-z0-9_.-]{0,120}$")
REQUIRED = ("id", "status", "title", "group", "priority", "parameters", "why")
CASE_KEYS = ("expected", "question", "reference", "response")


class RuleBankError(ValueError):
    """The rule bank source is malformed, or a command cannot apply to it."""


@dataclass(frozen=True)
class SourceModule:
    """One module (or rejected card) as it sits in the source: card, code and cases."""

    id: str
    card: dict[str, Any]
    code: str | None
    cases: tuple[dict[str, Any], ...] = ()
    path: Path | None = field(default=None, compare=False)

    @property
    def status(self) -> str:
        return str(self.card.get("status"))

    @property
    def priority(self) -> int:
        return int(self.card.get("priority", 0))

    @property
    def group(self) -> str:
        return str(self.card.get("group", ""))

    @property
    def params(self) -> dict[str, Any]:
        """The parameter values (``parameters.<name>.value``)."""
        return parameter_values(self.card)

    def with_card(self, card: dict[str, Any]) -> SourceModule:
        return replace(self, card=card)


def parameter_values(card: dict[str, Any]) -> dict[str, Any]:
    params = card.get("parameters") or {}
    return {k: (v.get("value") if isinstance(v, dict) else v) for k, v in params.items()}


def card_problems(card: Any, *, rejected: bool = False) -> list[str]:
    """What is wrong with a card (empty when it is well formed)."""
    if not isinstance(card, dict):
        return ["card.yaml must be a mapping"]
    problems = []
    required = ("id", "status", "why") if rejected else REQUIRED
    problems += [f"missing '{k}'" for k in required if k not in card]
    mid = card.get("id")
    if not isinstance(mid, str) or not (_CARD_ID_RE if rejected else _ID_RE).match(mid):
        problems.append(f"bad id {mid!r:.60} (lower-case letters, digits and _)")
    status = card.get("status")
    if rejected:
        if status != "rejected":
            problems.append("a rejected card has status 'rejected'")
    elif status not in STATUSES:
        problems.append(f"status must be one of {', '.join(STATUSES)}, not {status!r:.40}")
    if not rejected:
        if not isinstance(card.get("priority"), int) or isinstance(card.get("priority"), bool):
            problems.append("priority must be an integer")
        if not isinstance(card.get("group"), str) or not card.get("group"):
            problems.append("group must be a non-empty string")
        params = card.get("parameters")
        if not isinstance(params, dict) or not all(isinstance(v, dict) and "value" in v for v in params.values()):
            problems.append("parameters must map each name to {value, meaning}")
    return problems


def case_problems(case: Any) -> str | None:
    if not isinstance(case, dict):
        return "a case must be a JSON object"
    missing = [k for k in CASE_KEYS if k not in case]
    if missing:
        return f"missing {', '.join(missing)}"
    if case["expected"] not in LABELS:
        return f"expected must be PASS, FAIL or ABSTAIN, not {case['expected']!r:.40}"
    if not all(isinstance(case[k], str) for k in ("question", "reference", "response")):
        return "question, reference and response must be strings"
    return None


def read_cases(path: Path) -> list[dict[str, Any]]:
    from tasks.data.loaders import LoadError, read_jsonl

    if not path.is_file():
        return []
    try:
        cases = read_jsonl(path)
    except LoadError as e:
        raise RuleBankError(str(e)) from e
    for i, c in enumerate(cases, start=1):
        problem = case_problems(c)
        if problem:
            raise RuleBankError(f"{path}: case {i}: {problem}")
    return cases


def read_module(folder: Path, *, rejected: bool = False) -> SourceModule:
    """One module folder; :class:`RuleBankError` when its card or cases are malformed."""
    card_path = folder / CARD_FILE
    try:
        card = yaml.safe_load(card_path.read_text(encoding="utf-8"))
    except FileNotFoundError as e:
        raise RuleBankError(f"{folder}: no {CARD_FILE}") from e
    except yaml.YAMLError as e:
        raise RuleBankError(f"{card_path}: not valid YAML: {e}") from e
    problems = card_problems(card, rejected=rejected)
    if problems:
        raise RuleBankError(f"{card_path}: {'; '.join(problems)}")
    if card["id"] != folder.name:
        raise RuleBankError(f"{card_path}: id {card['id']!r} does not match its folder {folder.name!r}")
    code_path = folder / CODE_FILE
    code = code_path.read_text(encoding="utf-8") if code_path.is_file() else None
    if code is None and not rejected:
        raise RuleBankError(f"{folder}: no {CODE_FILE}")
    return SourceModule(card["id"], card, code, tuple(read_cases(folder / CASES_FILE)), folder)


def _atomic_write(path: Path, text: str) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", dir=path.parent)
    try:
        with os.fdopen(fd, "w", encoding="utf-8", newline="\n") as fh:
            fh.write(text)
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise


def card_yaml(card: dict[str, Any]) -> str:
    """The card as YAML, in the key order it was built with (readable diffs)."""
    return yaml.safe_dump(card, sort_keys=False, allow_unicode=True, width=100, default_flow_style=False)


def cases_jsonl(cases: list[dict[str, Any]] | tuple[dict[str, Any], ...]) -> str:
    return "".join(json.dumps(c, ensure_ascii=False) + "\n" for c in cases)


def write_module(folder: Path, module: SourceModule) -> Path:
    """Write ``module`` into ``folder`` (card, code, cases; each file replaced atomically)."""
    _atomic_write(folder / CARD_FILE, card_yaml(module.card))
    if module.code is not None:
        _atomic_write(folder / CODE_FILE, module.code)
    _atomic_write(folder / CASES_FILE, cases_jsonl(module.cases))
    return folder


class RuleBank:
    """A rule bank directory (``rulebank/`` by default)."""

    def __init__(self, root: str | os.PathLike[str]) -> None:
        self.root = Path(root)

    @property
    def modules_dir(self) -> Path:
        return self.root / "modules"

    @property
    def rejected_dir(self) -> Path:
        return self.root / "rejected"

    @property
    def releases_dir(self) -> Path:
        return self.root / "releases"

    def module_ids(self) -> list[str]:
        if not self.modules_dir.is_dir():
            return []
        return sorted(p.name for p in self.modules_dir.iterdir() if p.is_dir() and not p.name.startswith("."))

    def modules(self, status: str | tuple[str, ...] | None = None) -> list[SourceModule]:
        """The modules in cascade order (priority, then id), optionally of some statuses only."""
        wanted = (status,) if isinstance(status, str) else status
        mods = [read_module(self.modules_dir / mid) for mid in self.module_ids()]
        if wanted is not None:
            mods = [m for m in mods if m.status in wanted]
        return sorted(mods, key=lambda m: (m.priority, m.id))

    def module(self, module_id: str) -> SourceModule:
        folder = self.modules_dir / module_id
        if not _ID_RE.match(module_id) or not folder.is_dir():
            known = ", ".join(self.module_ids()) or "none"
            raise RuleBankError(f"no module {module_id!r} in {self.modules_dir} (modules: {known})")
        return read_module(folder)

    def save(self, module: SourceModule) -> Path:
        return write_module(self.modules_dir / module.id, module)

    def rejected(self) -> list[SourceModule]:
        if not self.rejected_dir.is_dir():
            return []
        return [read_module(p, rejected=True) for p in sorted(self.rejected_dir.iterdir())
                if p.is_dir() and not p.name.startswith(".")]

    def save_rejected(self, module: SourceModule) -> Path:
        return write_module(self.rejected_dir / module.id, module)

    def prompt(self) -> tuple[str | None, str]:
        """The judge's prompt template (``None``: the runtime's default) and the learned guidance."""
        t, g = self.root / "prompt" / "template.txt", self.root / "prompt" / "guidance.txt"
        return (t.read_text(encoding="utf-8") if t.is_file() else None,
                g.read_text(encoding="utf-8") if g.is_file() else "")

    def save_prompt(self, template: str | None, guidance: str) -> None:
        if template is not None:
            _atomic_write(self.root / "prompt" / "template.txt", template)
        _atomic_write(self.root / "prompt" / "guidance.txt", guidance)


# --------------------------------------------------------------------------------------
# Composing the file a release ships
# --------------------------------------------------------------------------------------


def _literal(value: Any) -> str:
    return pprint.pformat(value, width=100, sort_dicts=True)


def module_metadata(module: SourceModule) -> dict[str, Any]:
    """The ``MODULE`` dict of the shipped file (the runtime's manifest entry comes from it)."""
    c = module.card
    learned = c.get("learned") or {}
    where = f" (learned in round {learned['round']}, cluster {learned.get('cluster', {}).get('id')})" \
        if learned.get("round") else ""
    meta = {"id": module.id, "group": module.group, "priority": module.priority,
            "card_id": str(c.get("card_id") or module.id), "description": f"{c['title']}{where}",
            "revision": int(c.get("revision", 1))}
    if c.get("template"):
        meta["template"] = c["template"]
    return meta


def compose_module(module: SourceModule) -> str:
    """The release's module file: a docstring naming the module and why it exists, the code of
    ``module.py`` with ``PARAMS`` (the card's values) after its imports, then ``MODULE``."""
    if module.code is None:
        raise RuleBankError(f"{module.id}: no code")
    code = module.code
    try:
        tree = ast.parse(code)
    except SyntaxError as e:
        raise RuleBankError(f"{module.id}/{CODE_FILE} does not compile: {e}") from e
    body = list(tree.body)
    doc = ""
    if body and isinstance(body[0], ast.Expr) and isinstance(body[0].value, ast.Constant) \
            and isinstance(body[0].value.value, str):
        doc = body[0].value.value.strip()
        body = body[1:]
    for node in body:
        if isinstance(node, ast.Assign | ast.AnnAssign):
            targets = node.targets if isinstance(node, ast.Assign) else [node.target]
            if any(isinstance(t, ast.Name) and t.id in ("PARAMS", "MODULE") for t in targets):
                raise RuleBankError(f"{module.id}/{CODE_FILE} must not set PARAMS or MODULE (they come from the card)")
    lines = code.splitlines()
    start = body[0].lineno - 1 if body else len(lines)
    end_imports = start
    for node in body:
        if isinstance(node, ast.Import | ast.ImportFrom):
            end_imports = node.end_lineno or node.lineno
        else:
            break
    meta = module_metadata(module)
    c = module.card
    head = [meta["description"], "",
            f"Module {module.id}, revision {meta['revision']}, card {meta['card_id']}"
            + (f"; template {c['template']} {c.get('template_version', '')}".rstrip() if c.get("template") else "")
            + ".", ""]
    if doc:
        head += [doc, ""]
    head += ["Why: " + " ".join(str(c.get("why", "")).split())]
    docstring = "\n".join(head).replace('"' * 3, "'" * 3).rstrip("\\")
    prefix = "r" if "\\" in docstring else ""  # a raw docstring keeps LaTeX backslashes as written
    out = [f'{prefix}"""{docstring}', '"""', ""]
    out += lines[start:end_imports] + ["", f"PARAMS = {_literal(module.params)}"] + lines[end_imports:]
    text = "\n".join(out).rstrip() + "\n\n\n" + f"MODULE = {_literal(meta)}\n"
    return re.sub(r"\n{4,}", "\n\n\n", text)
