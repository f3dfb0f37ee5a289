"""The code-module sandbox: what a learned module may contain (checked before it is ever run), and
the restricted namespace it runs in.

Every module in an artifact is one Python file, and the runtime re-checks its source with
:func:`check_module_source` each time an artifact is loaded (the construction pipeline's audit
checks it first, then runs it in a sandbox). The check is an allow-list over the syntax tree:

* imports only from ``verifier_runtime.types``, ``verifier_runtime.toolkit`` (and its
  submodules, as ``from ... import name``) and the stdlib modules in :data:`ALLOWED_STDLIB`;
* free names only from :data:`SAFE_BUILTINS` (no ``open``, ``eval``, ``getattr``, ``hash``, ...);
* no dunder names, no private (``_x``) or introspection attributes, no attribute assignment;
* no ``global``/``nonlocal``, classes, decorators, async code, bare ``except`` or
  ``return``/``break``/``continue`` inside ``finally`` (both could swallow the runtime's
  time-budget interrupt);
* at module level only a docstring, imports, constant assignments (``MODULE``, ``SUPPORT``,
  ``COUNTEREXAMPLES``, UPPER_CASE names: literals, ``re.compile(...)`` and calls of imported
  names on constants) and function definitions;
* a ``MODULE`` metadata dict literal and a one-parameter ``decide`` function.

:func:`load_module_source` re-checks, then executes the source in a fresh namespace whose
builtins are :data:`SAFE_BUILTINS` and whose ``__import__`` hands out read-only views of the
allowed modules (public, non-module attributes only), so a toolkit module that happens to
import ``os`` cannot leak it. Termination cannot be proved statically: bounded work is enforced
by the sandbox during the audit and by the runtime's time budget afterwards.

Only the standard library is used here; this file is part of the light runtime.
"""

from __future__ import annotations

import ast
import builtins
import contextvars
import fractions
import hashlib
import importlib
import re
import threading
import types
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any

from verifier_runtime.limits import BudgetExceeded

ALLOWED_STDLIB: frozenset[str] = frozenset(
    {
        "math",
        "re",
        "fractions",
        "decimal",
        "dataclasses",
        "typing",
        "functools",
        "itertools",
        "collections",
        "unicodedata",
        "string",
    }
)
"""Standard-library modules (and their submodules) a module may import."""

RUNTIME_TYPES_MODULE = "verifier_runtime.types"
TOOLKIT_PACKAGE = "verifier_runtime.toolkit"

FORBIDDEN_MODULES: frozenset[str] = frozenset(
    {
        "os",
        "sys",
        "subprocess",
        "socket",
        "importlib",
        "ctypes",
        "pickle",
        "marshal",
        "builtins",
        "shutil",
        "pathlib",
        "io",
        "threading",
        "multiprocessing",
        "concurrent",
        "asyncio",
        "signal",
        "random",
        "secrets",
        "time",
        "urllib",
        "http",
        "inspect",
        "gc",
        "code",
        "codeop",
        "tempfile",
    }
)
"""Named explicitly only to give a clearer message; anything outside the allow-list is refused."""

SAFE_BUILTINS: tuple[str, ...] = (
    # values and containers
    "bool",
    "int",
    "float",
    "complex",
    "str",
    "tuple",
    "list",
    "dict",
    "set",
    "frozenset",
    "slice",
    # pure functions
    "abs",
    "all",
    "any",
    "bin",
    "callable",
    "chr",
    "divmod",
    "enumerate",
    "filter",
    "hex",
    "isinstance",
    "iter",
    "len",
    "map",
    "max",
    "min",
    "next",
    "oct",
    "ord",
    "pow",
    "range",
    "repr",
    "reversed",
    "round",
    "sorted",
    "sum",
    "zip",
    # exceptions a module may raise or catch
    "Exception",
    "ArithmeticError",
    "AttributeError",
    "IndexError",
    "KeyError",
    "LookupError",
    "NotImplementedError",
    "OverflowError",
    "RecursionError",
    "StopIteration",
    "TypeError",
    "UnicodeError",
    "ValueError",
    "ZeroDivisionError",
)
"""The builtins visible to a module: pure values, functions and exception types."""

FORBIDDEN_BUILTINS: frozenset[str] = frozenset(
    {
        "open",
        "exec",
        "eval",
        "compile",
        "getattr",
        "setattr",
        "delattr",
        "hasattr",
        "globals",
        "locals",
        "vars",
        "dir",
        "input",
        "print",
        "breakpoint",
        "memoryview",
        "hash",
        "id",
        "type",
        "object",
        "super",
        "format",
        "help",
        "exit",
        "quit",
        "classmethod",
        "staticmethod",
        "property",
        "BaseException",
    }
)
"""Builtins refused with a specific message (every name outside :data:`SAFE_BUILTINS` is refused)."""

FORBIDDEN_ATTRIBUTES: frozenset[str] = frozenset(
    {
        # frame, code, generator and traceback introspection
        "f_globals",
        "f_locals",
        "f_builtins",
        "f_back",
        "f_code",
        "gi_frame",
        "gi_code",
        "gi_yieldfrom",
        "cr_frame",
        "cr_code",
        "ag_frame",
        "ag_code",
        "tb_frame",
        "tb_next",
        "co_code",
        "co_consts",
        "co_names",
        "func_globals",
        "mro",
        # format strings can reach attributes (``"{0.__class__}".format(x)``)
        "format",
        "format_map",
        "vformat",
        "get_field",
        "Formatter",
        # string evaluation hidden in stdlib helpers
        "get_type_hints",
        "ForwardRef",
        "evaluate_forward_ref",
    }
)
"""Attribute names refused everywhere (in addition to any name starting with ``_``)."""

FORBIDDEN_METHODS: frozenset[str] = frozenset(
    {
        # sympy entry points that evaluate strings as Python (``expr.subs("y", "<code>")``)
        "subs",
        "xreplace",
        "rewrite",
        "sympify",
        "evalf",
        "lambdify",
        "parse_expr",
        # process-wide state: ABC registration, decimal contexts, dispatch tables, caches
        "register",
        "setcontext",
        "getcontext",
        "localcontext",
        "cache_clear",
        # allocations sized by an argument, in one C call
        "center",
        "ljust",
        "rjust",
        "zfill",
        "expandtabs",
    }
)
"""Method names refused on any object (string evaluation, process-wide state, unbounded C calls)."""

FORBIDDEN_MODULE_NAMES: dict[str, frozenset[str]] = {
    # long or endless C loops (``deque(count(), maxlen=0)``), huge integers in one call
    "itertools": frozenset({"count", "cycle", "repeat", "product", "permutations", "combinations",
                            "combinations_with_replacement", "accumulate"}),
    "math": frozenset({"factorial", "comb", "perm", "prod", "lcm"}),
    "collections": frozenset({"deque", "abc", "ChainMap", "UserDict", "UserList", "UserString"}),
    # process-wide decimal state
    "decimal": frozenset({"setcontext", "getcontext", "localcontext", "DefaultContext", "BasicContext",
                          "ExtendedContext", "Context"}),
    # string annotations evaluated, dispatch registries, generated code
    "functools": frozenset({"singledispatch", "singledispatchmethod", "lru_cache", "cache", "wraps",
                            "update_wrapper", "total_ordering", "cached_property"}),
    "typing": frozenset({"get_type_hints", "ForwardRef", "NamedTuple", "TypedDict", "get_overloads",
                         "overload", "runtime_checkable", "Protocol"}),
    "dataclasses": frozenset({"make_dataclass", "dataclass", "replace", "field"}),
    "re": frozenset({"purge", "template"}),
    "string": frozenset({"Formatter", "Template"}),
}
"""Names of allowed modules a module may not import or use (``from m import name`` or ``m.name``)."""

REQUIRED_MODULE_KEYS: tuple[str, ...] = ("id", "group", "priority", "card_id", "description")
CASE_KEYS: tuple[str, ...] = ("question", "reference", "response", "expected")
CASE_LABELS: frozenset[str] = frozenset({"PASS", "FAIL", "ABSTAIN"})
MAX_MODULE_SOURCE_CHARS = 1_000_000
MAX_MODULE_AST_NODES = 200_000

_CONSTANT_NAME = re.compile(r"^_?[A-Z][A-Z0-9_]*$")
_CASE_LISTS = ("SUPPORT", "COUNTEREXAMPLES")
_CONST_BINOPS = (ast.Add, ast.Sub, ast.Div, ast.BitOr)  # no * or **: no module-level size bombs
_CONST_CALL_BUILTINS = frozenset({"frozenset", "tuple"})


class ModulePolicyError(ValueError):
    """A module's source violates the policy; ``violations`` lists every finding."""

    def __init__(self, violations: list[str], filename: str = "<module>") -> None:
        self.violations = list(violations)
        self.filename = filename
        shown = "; ".join(self.violations[:10])
        more = f" (+{len(self.violations) - 10} more)" if len(self.violations) > 10 else ""
        super().__init__(f"{filename}: {shown}{more}")


# --- import rules ------------------------------------------------------------------------


def _is_runtime_module(name: str) -> bool:
    return name == RUNTIME_TYPES_MODULE or name == TOOLKIT_PACKAGE or name.startswith(TOOLKIT_PACKAGE + ".")


def _is_stdlib_allowed(name: str) -> bool:
    return name.split(".")[0] in ALLOWED_STDLIB


def is_allowed_import(name: str) -> bool:
    """True when ``name`` (a dotted module name) may be imported by a module."""
    return _is_runtime_module(name) or _is_stdlib_allowed(name)


def _import_refusal(name: str) -> str:
    root = name.split(".")[0]
    if root in FORBIDDEN_MODULES:
        return f"import of forbidden module {name!r}"
    if root == "verifier_runtime":
        return f"import of {name!r}: only verifier_runtime.types and verifier_runtime.toolkit are allowed"
    return f"import of {name!r} is not on the allow-list"


# --- the checker ---------------------------------------------------------------------------


def _bound_names(tree: ast.AST) -> set[str]:
    """Every name the module binds anywhere (a flat, scope-insensitive approximation)."""
    names: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Name) and isinstance(node.ctx, ast.Store | ast.Del):
            names.add(node.id)
        elif isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef):
            names.add(node.name)
        elif isinstance(node, ast.arg):
            names.add(node.arg)
        elif isinstance(node, ast.ExceptHandler) and node.name:
            names.add(node.name)
        elif isinstance(node, ast.alias):
            names.add((node.asname or node.name).split(".")[0])
        elif isinstance(node, ast.MatchAs | ast.MatchStar) and node.name:
            names.add(node.name)
        elif isinstance(node, ast.MatchMapping) and node.rest:
            names.add(node.rest)
    return names


class _Checker:
    def __init__(self, tree: ast.Module) -> None:
        self.tree = tree
        self.violations: list[str] = []
        self.bound = _bound_names(tree)
        self.safe_builtins = frozenset(SAFE_BUILTINS)
        self.imported: set[str] = set()  # names bound by imports (usable in module-level constants)
        self.constants: set[str] = set()  # module-level constant names defined so far
        self.module_aliases: dict[str, str] = {}  # names bound by 'import m' -> the module

    def add(self, node: ast.AST | None, message: str) -> None:
        line = getattr(node, "lineno", None)
        self.violations.append(f"line {line}: {message}" if line else message)

    # module level ------------------------------------------------------------------------
    def run(self) -> list[str]:
        body = self.tree.body
        has_doc = bool(body) and isinstance(body[0], ast.Expr) and isinstance(body[0].value, ast.Constant)
        has_doc = has_doc and isinstance(body[0].value.value, str)  # type: ignore[union-attr]
        if not has_doc:
            self.add(body[0] if body else None, "the module must start with a docstring")
        for i, stmt in enumerate(body):
            if i == 0 and has_doc:
                continue
            self.check_top_statement(stmt)
        for node in ast.walk(self.tree):
            self.check_node(node)
        self.check_required(body)
        return self.violations

    def check_top_statement(self, stmt: ast.stmt) -> None:
        if isinstance(stmt, ast.Import | ast.ImportFrom):
            self.check_import(stmt)
        elif isinstance(stmt, ast.FunctionDef):
            if stmt.decorator_list:
                self.add(stmt, f"function {stmt.name!r} has decorators (not allowed)")
            for inner in ast.walk(stmt):
                if isinstance(inner, ast.Import | ast.ImportFrom):
                    self.add(inner, "imports are only allowed at module level")
        elif isinstance(stmt, ast.Assign | ast.AnnAssign):
            targets = stmt.targets if isinstance(stmt, ast.Assign) else [stmt.target]
            if stmt.value is None:
                self.add(stmt, "module-level annotation without a value")
                return
            for t in targets:
                if not isinstance(t, ast.Name):
                    self.add(t, "module-level assignments must bind a single UPPER_CASE name")
                elif not _CONSTANT_NAME.match(t.id):
                    self.add(t, f"module-level name {t.id!r} must be an UPPER_CASE constant")
            bad = self.constant_expr_problem(stmt.value)
            if bad:
                self.add(stmt, f"module-level value is not a constant expression: {bad}")
            for t in targets:
                if isinstance(t, ast.Name):
                    self.constants.add(t.id)
        elif isinstance(stmt, ast.Expr) and isinstance(stmt.value, ast.Constant) and isinstance(stmt.value.value, str):
            pass  # a stray string (e.g. a section comment) is harmless
        else:
            self.add(stmt, f"statement {type(stmt).__name__} is not allowed at module level")

    def check_import(self, stmt: ast.Import | ast.ImportFrom) -> None:
        if isinstance(stmt, ast.Import):
            for alias in stmt.names:
                if _is_runtime_module(alias.name):
                    self.add(stmt, f"'import {alias.name}' binds a module object: use 'from {alias.name} import name'")
                elif not _is_stdlib_allowed(alias.name):
                    self.add(stmt, _import_refusal(alias.name))
                elif "." in alias.name:
                    self.add(stmt, f"dotted import {alias.name!r}: use 'from {alias.name} import name'")
                else:
                    self.imported.add(alias.asname or alias.name)
                    self.module_aliases[alias.asname or alias.name] = alias.name
            return
        mod = stmt.module or ""
        if stmt.level:
            self.add(stmt, "relative imports are not allowed")
            return
        if mod == "__future__":
            for alias in stmt.names:
                if alias.name != "annotations":
                    self.add(stmt, f"'from __future__ import {alias.name}' is not allowed")
            return
        if not is_allowed_import(mod):
            self.add(stmt, _import_refusal(mod))
            return
        for alias in stmt.names:
            if alias.name == "*":
                self.add(stmt, f"'from {mod} import *' is not allowed")
            elif alias.name.startswith("_"):
                self.add(stmt, f"import of private name {alias.name!r} from {mod!r}")
            elif alias.name in FORBIDDEN_ATTRIBUTES or alias.name in FORBIDDEN_BUILTINS:
                self.add(stmt, f"import of forbidden name {alias.name!r} from {mod!r}")
            elif alias.name in FORBIDDEN_MODULES:
                self.add(stmt, f"import of forbidden module {alias.name!r} via {mod!r}")
            elif alias.name in FORBIDDEN_MODULE_NAMES.get(mod.split(".")[0], ()) or mod == "collections.abc":
                self.add(stmt, f"import of {mod}.{alias.name} is not allowed (process-wide state or unbounded work)")
            else:
                self.imported.add(alias.asname or alias.name)

    def constant_expr_problem(self, node: ast.expr) -> str | None:
        """Why ``node`` is not an allowed module-level constant expression (None when it is)."""
        if isinstance(node, ast.Constant):
            return None
        if isinstance(node, ast.List | ast.Tuple | ast.Set):
            return next((p for e in node.elts if (p := self.constant_expr_problem(e))), None)
        if isinstance(node, ast.Dict):
            for k, v in zip(node.keys, node.values, strict=True):
                if k is None:
                    return "dict unpacking"
                p = self.constant_expr_problem(k) or self.constant_expr_problem(v)
                if p:
                    return p
            return None
        if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.USub | ast.UAdd | ast.Invert):
            return self.constant_expr_problem(node.operand)
        if isinstance(node, ast.BinOp):
            if not isinstance(node.op, _CONST_BINOPS):
                return f"operator {type(node.op).__name__}"
            return self.constant_expr_problem(node.left) or self.constant_expr_problem(node.right)
        if isinstance(node, ast.Name):
            if node.id in self.constants or node.id in self.imported:
                return None
            return f"name {node.id!r} is not an earlier constant or import"
        if isinstance(node, ast.Attribute):
            if isinstance(node.value, ast.Name) and node.value.id in self.imported:
                return None
            return "attribute of something other than an imported module"
        if isinstance(node, ast.Call):
            f = node.func
            ok = (isinstance(f, ast.Name) and (f.id in self.imported or f.id in _CONST_CALL_BUILTINS)) or (
                isinstance(f, ast.Attribute) and isinstance(f.value, ast.Name) and f.value.id in self.imported
            )
            if not ok:
                return "call of something other than an imported name, frozenset or tuple"
            for a in [*node.args, *(k.value for k in node.keywords)]:
                p = self.constant_expr_problem(a)
                if p:
                    return p
            return None
        return f"{type(node).__name__} expression"

    # every node ----------------------------------------------------------------------------
    def check_node(self, node: ast.AST) -> None:
        if isinstance(node, ast.Name):
            self.check_name(node)
        elif isinstance(node, ast.Attribute):
            if node.attr.startswith("_"):
                kind = "dunder" if node.attr.startswith("__") else "private"
                self.add(node, f"{kind} attribute access '.{node.attr}'")
            elif node.attr in FORBIDDEN_ATTRIBUTES:
                self.add(node, f"forbidden attribute '.{node.attr}'")
            elif node.attr in FORBIDDEN_METHODS:
                self.add(node, f"forbidden method '.{node.attr}' (string evaluation, process-wide state or "
                               "unbounded work)")
            elif isinstance(node.value, ast.Name) and node.attr in FORBIDDEN_MODULE_NAMES.get(
                    self.module_aliases.get(node.value.id, ""), ()):
                self.add(node, f"'{node.value.id}.{node.attr}' is not allowed (process-wide state or unbounded work)")
            if isinstance(node.ctx, ast.Store | ast.Del):
                self.add(node, f"attribute assignment or deletion '.{node.attr}'")
        elif isinstance(node, ast.MatchClass | ast.MatchMapping):
            # class patterns read attributes (``case str(format=f)``) and mapping patterns call
            # lookups, neither through an ast.Attribute node: refused outright
            self.add(node, f"'match' {'class' if isinstance(node, ast.MatchClass) else 'mapping'} patterns "
                           "are not allowed")
        elif isinstance(node, ast.FormattedValue) and node.format_spec is not None:
            self.add(node, "format specifications in f-strings are not allowed (a width allocates unbounded memory)")
        elif isinstance(node, ast.Call) and self.is_regex_call(node):
            self.check_regex_call(node)
        elif isinstance(node, ast.Global | ast.Nonlocal):
            self.add(node, f"'{type(node).__name__.lower()}' statements are not allowed")
        elif isinstance(node, ast.ClassDef):
            self.add(node, f"class definitions are not allowed ({node.name!r})")
        elif isinstance(node, ast.AsyncFunctionDef | ast.AsyncFor | ast.AsyncWith | ast.Await):
            self.add(node, "async code is not allowed")
        elif isinstance(node, ast.FunctionDef):
            if node.name.startswith("__"):
                self.add(node, f"dunder function name {node.name!r}")
            if node.decorator_list and node not in self.tree.body:
                self.add(node, f"function {node.name!r} has decorators (not allowed)")
        elif isinstance(node, ast.ExceptHandler) and node.type is None:
            self.add(node, "bare 'except:' is not allowed (it would swallow the time-budget interrupt)")
        elif isinstance(node, ast.Try | ast.TryStar):
            for stmt in node.finalbody:
                for inner in ast.walk(stmt):
                    if isinstance(inner, ast.Return | ast.Break | ast.Continue):
                        self.add(inner, f"'{type(inner).__name__.lower()}' inside 'finally' is not allowed")
        elif isinstance(node, ast.arg) and node.arg.startswith("__"):
            self.add(node, f"dunder parameter name {node.arg!r}")
        elif isinstance(node, ast.Constant) and isinstance(node.value, bytes):
            self.add(node, "bytes literals are not allowed")

    def is_regex_call(self, node: ast.Call) -> bool:
        f = node.func
        return (isinstance(f, ast.Attribute) and isinstance(f.value, ast.Name)
                and self.module_aliases.get(f.value.id) == "re" and f.attr in _REGEX_FUNCS)

    def check_regex_call(self, node: ast.Call) -> None:
        """A regex is compiled from a string literal (checked for catastrophic backtracking) or
        from ``re.escape(...)`` text; a pattern computed at run time could be anything."""
        if not node.args:
            return
        pat = node.args[0]
        if isinstance(pat, ast.Constant) and isinstance(pat.value, str):
            problem = regex_problem(pat.value)
            if problem:
                self.add(node, f"regular expression {pat.value[:40]!r}: {problem}")
        elif not (isinstance(pat, ast.Call) and isinstance(pat.func, ast.Attribute) and pat.func.attr == "escape"
                  and isinstance(pat.func.value, ast.Name) and self.module_aliases.get(pat.func.value.id) == "re"):
            self.add(node, "a regular expression must be a string literal or re.escape(...) of text")

    def check_name(self, node: ast.Name) -> None:
        name = node.id
        if name.startswith("__"):
            self.add(node, f"dunder name {name!r}")
        elif name in FORBIDDEN_BUILTINS:
            self.add(node, f"forbidden name {name!r}")
        elif name in FORBIDDEN_MODULES and isinstance(node.ctx, ast.Load) and name not in self.bound:
            self.add(node, f"use of module {name!r} (not imported and not allowed)")
        elif isinstance(node.ctx, ast.Load) and name not in self.bound and name not in self.safe_builtins:
            self.add(node, f"unknown name {name!r} (not defined in the module and not an allowed builtin)")

    # required parts --------------------------------------------------------------------------
    def check_required(self, body: list[ast.stmt]) -> None:
        assigned: dict[str, list[ast.stmt]] = {}
        functions: dict[str, list[ast.FunctionDef]] = {}
        for stmt in body:
            if isinstance(stmt, ast.Assign):
                for t in stmt.targets:
                    if isinstance(t, ast.Name):
                        assigned.setdefault(t.id, []).append(stmt)
            elif isinstance(stmt, ast.AnnAssign) and isinstance(stmt.target, ast.Name):
                assigned.setdefault(stmt.target.id, []).append(stmt)
            elif isinstance(stmt, ast.FunctionDef):
                functions.setdefault(stmt.name, []).append(stmt)
        for name, stmts in assigned.items():
            if len(stmts) > 1:
                self.add(stmts[1], f"{name!r} is assigned more than once at module level")
        for name, defs in functions.items():
            if len(defs) > 1:
                self.add(defs[1], f"function {name!r} is defined more than once")
            if name in assigned:
                self.add(defs[0], f"{name!r} is both a function and a constant")
        self.check_metadata(assigned.get("MODULE"))
        decide = functions.get("decide")
        if not decide:
            self.add(None, "missing top-level function 'decide(x)'")
        else:
            a = decide[0].args
            n_pos = len(a.posonlyargs) + len(a.args)
            if n_pos != 1 or a.vararg or a.kwarg or a.kwonlyargs or a.defaults:
                self.add(decide[0], "'decide' must take exactly one positional parameter and nothing else")
        for name in _CASE_LISTS:
            if name in assigned:
                self.check_cases(name, assigned[name][0])

    def check_metadata(self, stmts: list[ast.stmt] | None) -> None:
        if not stmts:
            self.add(None, "missing 'MODULE = {...}' metadata dict")
            return
        stmt = stmts[0]
        value = stmt.value  # type: ignore[attr-defined]
        if not isinstance(value, ast.Dict):
            self.add(stmt, "'MODULE' must be a dict literal")
            return
        try:
            meta = ast.literal_eval(value)
        except (ValueError, TypeError, SyntaxError, MemoryError, RecursionError):
            self.add(stmt, "'MODULE' must contain literal values only")
            return
        missing = [k for k in REQUIRED_MODULE_KEYS if k not in meta]
        if missing:
            self.add(stmt, f"'MODULE' is missing keys: {', '.join(missing)}")
        if "id" in meta and (not isinstance(meta["id"], str) or not meta["id"].strip()):
            self.add(stmt, "'MODULE[\"id\"]' must be a non-empty string")
        if "priority" in meta and (not isinstance(meta["priority"], int | float) or isinstance(meta["priority"], bool)):
            self.add(stmt, "'MODULE[\"priority\"]' must be a number")
        for key in ("group", "card_id", "description"):
            if key in meta and not isinstance(meta[key], str):
                self.add(stmt, f"'MODULE[{key!r}]' must be a string")

    def check_cases(self, name: str, stmt: ast.stmt) -> None:
        value = stmt.value  # type: ignore[attr-defined]
        if not isinstance(value, ast.List):
            self.add(stmt, f"{name!r} must be a list literal")
            return
        try:
            cases = ast.literal_eval(value)
        except (ValueError, TypeError, SyntaxError, MemoryError, RecursionError):
            self.add(stmt, f"{name!r} must contain literal values only")
            return
        for i, case in enumerate(cases):
            problem = case_problem(case)
            if problem:
                self.add(stmt, f"{name}[{i}]: {problem}")


_REGEX_FUNCS = frozenset({"compile", "search", "match", "fullmatch", "findall", "finditer", "sub", "subn", "split"})


def regex_problem(pattern: str) -> str | None:
    """Why ``pattern`` could backtrack catastrophically (None when it cannot, as far as told).

    Refused: an unbounded repeat (``*``, ``+``, ``{n,}``) whose body holds another unbounded
    repeat or an alternation (``(a+)+``, ``(a|ab)*``), the shapes of exponential backtracking
    in a backtracking engine; and patterns that do not compile.
    """
    try:
        import re._parser as sre_parse  # the stdlib's own parser of patterns
    except ImportError:  # pragma: no cover - Python < 3.11
        import sre_parse  # type: ignore[no-redef]
    try:
        tree = sre_parse.parse(pattern)
    except (re.error, RecursionError, OverflowError) as e:
        return f"does not compile ({e})"
    from re._constants import BRANCH, MAX_REPEAT, MAXREPEAT, MIN_REPEAT, SUBPATTERN

    def risky(items: Any, under_repeat: bool) -> str | None:
        for op, av in items:
            if op in (MAX_REPEAT, MIN_REPEAT):
                lo, hi, sub = av
                unbounded = hi == MAXREPEAT or hi > 1000
                if unbounded and under_repeat:
                    return "nested unbounded repeats (catastrophic backtracking)"
                p = risky(sub, under_repeat or unbounded)
                if p:
                    return p
            elif op == BRANCH:
                if under_repeat:
                    return "an alternation under an unbounded repeat (catastrophic backtracking)"
                for branch in av[1]:
                    p = risky(branch, under_repeat)
                    if p:
                        return p
            elif op == SUBPATTERN:
                p = risky(av[-1], under_repeat)
                if p:
                    return p
        return None

    return risky(tree, False)


def case_problem(case: Any) -> str | None:
    """Why ``case`` is not a valid support/counterexample dict (None when it is)."""
    if not isinstance(case, dict):
        return "a case must be a dict"
    missing = [k for k in CASE_KEYS if k not in case]
    if missing:
        return f"missing keys: {', '.join(missing)}"
    for k in ("question", "reference", "response"):
        if not isinstance(case[k], str):
            return f"{k!r} must be a string"
    if case["expected"] not in CASE_LABELS:
        return f"'expected' must be one of PASS, FAIL, ABSTAIN (got {case['expected']!r})"
    return None


def check_module_source(source: str) -> list[str]:
    """Check one module's source against the policy; returns the violations (empty = allowed).

    >>> check_module_source("import os")[:1]
    ['line 1: the module must start with a docstring']
    """
    if not isinstance(source, str):
        return [f"module source must be a str, not {type(source).__name__}"]
    if len(source) > MAX_MODULE_SOURCE_CHARS:
        return [f"module source is too long ({len(source)} > {MAX_MODULE_SOURCE_CHARS} characters)"]
    if "\x00" in source:
        return ["module source contains NUL bytes"]
    try:
        tree = ast.parse(source, mode="exec")
    except SyntaxError as e:
        return [f"line {e.lineno}: syntax error: {e.msg}"]
    except (ValueError, MemoryError, RecursionError) as e:
        return [f"source cannot be parsed: {type(e).__name__}"]
    n_nodes = sum(1 for _ in ast.walk(tree))
    if n_nodes > MAX_MODULE_AST_NODES:
        return [f"module is too large ({n_nodes} syntax nodes > {MAX_MODULE_AST_NODES})"]
    return _Checker(tree).run()


# --- the loader ----------------------------------------------------------------------------


_DANGEROUS_OBJECTS: tuple[Any, ...] = tuple(getattr(builtins, n) for n in FORBIDDEN_BUILTINS if hasattr(builtins, n))
_DANGEROUS_OBJECTS += (builtins.__import__,)
# Objects defined in these modules are never handed to a module, whatever name they travel under.
_UNSAFE_ORIGINS: frozenset[str] = FORBIDDEN_MODULES | {
    "builtins", "posix", "nt", "_io", "_socket", "_thread", "_signal", "_posixsubprocess", "_imp",
    "_ctypes", "_pickle", "_random", "_frozen_importlib", "_frozen_importlib_external",
}  # fmt: skip


class ModuleView:
    """A read-only view of an allowed module: its public, non-module attributes only."""

    __slots__ = ("_view_name", "_view_names")

    def __init__(self, name: str, names: Mapping[str, Any]) -> None:
        object.__setattr__(self, "_view_name", name)
        object.__setattr__(self, "_view_names", types.MappingProxyType(dict(names)))

    def __getattr__(self, attr: str) -> Any:
        try:
            return self._view_names[attr]
        except KeyError:
            raise AttributeError(f"module {self._view_name!r} exposes no public attribute {attr!r}") from None

    def __setattr__(self, attr: str, value: Any) -> None:
        raise AttributeError(f"module {self._view_name!r} is read-only")

    def __delattr__(self, attr: str) -> None:
        raise AttributeError(f"module {self._view_name!r} is read-only")

    def __dir__(self) -> list[str]:
        return sorted(self._view_names)

    def __repr__(self) -> str:
        return f"<module view {self._view_name!r}>"


def _view_entry_allowed(attr: str, value: Any) -> bool:
    if attr.startswith("_") or attr in FORBIDDEN_ATTRIBUTES:
        return False
    if isinstance(value, types.ModuleType):
        return False
    origin = getattr(value, "__module__", None)
    if isinstance(origin, str) and origin.split(".")[0] in _UNSAFE_ORIGINS:
        return False  # e.g. a toolkit module re-exporting os.system under another name
    return not any(value is d for d in _DANGEROUS_OBJECTS)


def _frozen(value: Any, depth: int = 0) -> Any:
    """A read-only stand-in for a shared container (a module writing into a toolkit table would
    change it for the whole process): dicts become mapping proxies, lists tuples, sets frozensets."""
    if depth > 4:
        return value
    if isinstance(value, dict):
        return types.MappingProxyType({k: _frozen(v, depth + 1) for k, v in value.items()})
    if isinstance(value, list):
        return tuple(_frozen(v, depth + 1) for v in value)
    if isinstance(value, set):
        return frozenset(value)
    if isinstance(value, bytearray):
        return bytes(value)
    return value


_VIEW_CACHE: dict[str, ModuleView] = {}
_VIEW_LOCK = threading.Lock()


def module_view(name: str) -> ModuleView:
    """The (cached) read-only view of allowed module ``name``; raises ImportError otherwise."""
    if not is_allowed_import(name):
        raise ImportError(_import_refusal(name))
    with _VIEW_LOCK:
        view = _VIEW_CACHE.get(name)
    if view is not None:
        return view
    module = importlib.import_module(name)
    names = {k: _frozen(v) for k, v in vars(module).items() if _view_entry_allowed(k, v)}
    view = ModuleView(name, names)
    with _VIEW_LOCK:
        return _VIEW_CACHE.setdefault(name, view)


def _restricted_import(
    name: str,
    globals: Mapping[str, Any] | None = None,  # noqa: A002 - the signature of __import__
    locals: Mapping[str, Any] | None = None,  # noqa: A002
    fromlist: tuple[str, ...] | list[str] | None = (),
    level: int = 0,
) -> Any:
    if level:
        raise ImportError("relative imports are not allowed in code modules")
    if name == "__future__":
        return importlib.import_module("__future__")
    if not fromlist and "." in name:
        raise ImportError(f"dotted import {name!r} is not allowed; use 'from {name} import name'")
    if not fromlist and _is_runtime_module(name):
        raise ImportError(f"'import {name}' is not allowed; use 'from {name} import name'")
    view = module_view(name)
    for attr in fromlist or ():
        if attr != "*" and attr not in dir(view):
            raise ImportError(f"'{name}.{attr}' is not available to modules (a module, private or unsafe object)")
    return view


# --- bounded arithmetic and containers: what the loader rewrites module code to call ---------

MAX_INT_BITS = 1 << 16  # an integer a module computes: at most 65,536 bits (about 19,700 digits)
MAX_SEQUENCE_ITEMS = 10_000_000  # a sequence (or string) built by repetition, or a range's length
MAX_TUPLE_DEPTH = 100  # nested tuples/frozensets: hashing a deeper one recurses in C and can crash


def _int_bits(v: Any) -> int | None:
    if isinstance(v, bool):
        return 1
    if isinstance(v, int):
        return v.bit_length()
    if isinstance(v, fractions.Fraction):
        return max(v.numerator.bit_length(), v.denominator.bit_length())
    return None


def _bounded_pow(a: Any, b: Any, mod: Any = None) -> Any:
    if mod is not None:
        return builtins.pow(a, b, mod)  # modular: bounded by the modulus
    bits, exp = _int_bits(a), b
    if hasattr(exp, "is_Integer") and not isinstance(exp, int):  # a sympy Integer exponent
        exp = int(exp) if getattr(exp, "is_Integer", False) else exp
        bits = bits if bits is not None else (_int_bits(int(a)) if getattr(a, "is_Integer", False) else 2)
    if isinstance(exp, int) and bits is not None and abs(exp) > 1 and bits > 1 and abs(exp) * bits > MAX_INT_BITS:
        raise OverflowError("power too large for a code module")
    return a ** b


def _bounded_lshift(a: Any, b: Any) -> Any:
    bits = _int_bits(a)
    if isinstance(b, int) and bits is not None and bits + b > MAX_INT_BITS:
        raise OverflowError("shift too large for a code module")
    return a << b


def _bounded_mul(a: Any, b: Any) -> Any:
    ba, bb = _int_bits(a), _int_bits(b)
    if ba is not None and bb is not None:
        if ba + bb > MAX_INT_BITS:
            raise OverflowError("product too large for a code module")
    elif isinstance(a, str | bytes | list | tuple) and isinstance(b, int) or (
            isinstance(b, str | bytes | list | tuple) and isinstance(a, int)):
        seq, n = (a, b) if isinstance(b, int) else (b, a)
        if n > 0 and len(seq) * n > MAX_SEQUENCE_ITEMS:
            raise MemoryError("repetition too large for a code module")
    return a * b


def _depth_problem(value: Any) -> bool:
    """Whether ``value`` nests tuples or frozensets deeper than :data:`MAX_TUPLE_DEPTH`."""
    stack = [(value, 1)]
    seen = 0
    while stack:
        v, d = stack.pop()
        if d > MAX_TUPLE_DEPTH:
            return True
        seen += 1
        if seen > 100_000:
            return True
        for item in v:
            if isinstance(item, tuple | frozenset):
                stack.append((item, d + 1))
    return False


def _bounded_tuple(*args: Any) -> tuple:
    t = builtins.tuple(*args)
    if any(isinstance(x, tuple | frozenset) for x in t) and _depth_problem(t):
        raise RecursionError("tuple nested too deeply for a code module")
    return t


def _bounded_frozenset(*args: Any) -> frozenset:
    f = builtins.frozenset(*args)
    if any(isinstance(x, tuple | frozenset) for x in f) and _depth_problem(f):
        raise RecursionError("frozenset nested too deeply for a code module")
    return f


_NESTING = (tuple, frozenset)


def _tuple_display(t: tuple) -> tuple:
    """The depth check of a computed tuple display in module code (``a, r = x.answer, x.ref``).
    A loop over a prebuilt type tuple: this runs for several displays of every module call, and a
    generator with a ``tuple | frozenset`` union built per item cost a few percent of a cascade."""
    for x in t:
        if isinstance(x, _NESTING):
            if _depth_problem(t):
                raise RecursionError("tuple nested too deeply for a code module")
            break
    return t


def _bounded_range(*args: Any) -> range:
    r = builtins.range(*args)
    if len(r) > MAX_SEQUENCE_ITEMS:
        raise MemoryError(f"range of {len(r)} items is too long for a code module")
    return r


_BOUNDED = {"__av_pow": _bounded_pow, "__av_lshift": _bounded_lshift, "__av_mul": _bounded_mul,
            "__av_tuple": _tuple_display}
_BINOP_HELPERS = {ast.Pow: "__av_pow", ast.LShift: "__av_lshift", ast.Mult: "__av_mul"}


class _Bound(ast.NodeTransformer):
    """Rewrites ``a ** b``, ``a << b``, ``a * b`` (and their augmented forms) into calls of the
    bounded helpers, and tuple displays with computed items into a depth check."""

    def visit_BinOp(self, node: ast.BinOp) -> ast.AST:
        self.generic_visit(node)
        helper = _BINOP_HELPERS.get(type(node.op))
        if helper is None:
            return node
        return ast.copy_location(ast.Call(ast.Name(helper, ast.Load()), [node.left, node.right], []), node)

    def visit_AugAssign(self, node: ast.AugAssign) -> ast.AST:
        self.generic_visit(node)
        helper = _BINOP_HELPERS.get(type(node.op))
        if helper is None or not isinstance(node.target, ast.Name):
            return node  # attribute and subscript targets: only names are rewritten (no attribute stores exist)
        call = ast.Call(ast.Name(helper, ast.Load()), [ast.Name(node.target.id, ast.Load()), node.value], [])
        return ast.copy_location(ast.Assign([ast.Name(node.target.id, ast.Store())], call), node)

    def visit_Tuple(self, node: ast.Tuple) -> ast.AST:
        self.generic_visit(node)
        if not isinstance(node.ctx, ast.Load) or all(isinstance(e, ast.Constant) for e in node.elts):
            return node
        return ast.copy_location(ast.Call(ast.Name("__av_tuple", ast.Load()), [node], []), node)


def bounded_code(source: str, filename: str) -> Any:
    """Compile policy-checked ``source`` with the bounded-arithmetic rewrite applied."""
    tree = _Bound().visit(ast.parse(source, filename, "exec"))
    ast.fix_missing_locations(tree)
    return compile(tree, filename, "exec", dont_inherit=True)


def safe_builtins() -> dict[str, Any]:
    """A fresh builtins dict for a module namespace: :data:`SAFE_BUILTINS` plus the restricted
    import, with ``pow``, ``range``, ``tuple`` and ``frozenset`` bounded."""
    d = {n: getattr(builtins, n) for n in SAFE_BUILTINS}
    d.update(pow=_bounded_pow, range=_bounded_range, tuple=_bounded_tuple, frozenset=_bounded_frozenset)
    d["__import__"] = _restricted_import
    return d


# --- string evaluation by sympy, refused while module code runs ----------------------------

_IN_MODULE: contextvars.ContextVar[bool] = contextvars.ContextVar("autoverifier_in_module", default=False)
_SYMPY_GUARD = [False]
_SYMPY_GUARD_LOCK = threading.Lock()


def _guard_sympy_eval() -> None:
    """Make sympy refuse to evaluate strings while module code runs (``expr.subs("y", "<code>")``
    reaches ``parse_expr``, which calls ``eval``). Installed once per process; sympy is imported
    here if it is not yet (the toolkit imports it anyway on the first symbolic answer)."""
    if _SYMPY_GUARD[0]:
        return
    with _SYMPY_GUARD_LOCK:
        if _SYMPY_GUARD[0]:
            return
        import sympy.parsing.sympy_parser as parser

        original = parser.eval_expr

        def eval_expr(code: Any, local_dict: Any, global_dict: Any) -> Any:
            if _IN_MODULE.get():
                raise ValueError("code modules may not evaluate strings")
            return original(code, local_dict, global_dict)

        parser.eval_expr = eval_expr
        _SYMPY_GUARD[0] = True


def _guarded(decide: Callable[[Any], Any]) -> Callable[[Any], Any]:
    def decide_in_sandbox(x: Any) -> Any:
        token = _IN_MODULE.set(True)
        try:
            return decide(x)
        finally:
            _IN_MODULE.reset(token)

    decide_in_sandbox.__wrapped__ = decide  # type: ignore[attr-defined]
    decide_in_sandbox.sandboxed = decide  # type: ignore[attr-defined]  # see in_sandbox()
    return decide_in_sandbox


def sandboxed_decide(decide: Callable[[Any], Any]) -> Callable[[Any], Any] | None:
    """The module code inside a loaded module's ``decide`` (:func:`load_module_source`), which
    must run under :func:`in_sandbox`; ``None`` for any other callable."""
    return getattr(decide, "sandboxed", None)


def in_sandbox(body: Callable[..., Any], *args: Any) -> Any:
    """``body(*args)`` as module code: for a caller that runs several modules' code in a row (the
    cascade) and sets the flag once instead of once per module. Restored by value, so an
    interrupt landing anywhere cannot leave it set."""
    previous = _IN_MODULE.get()
    try:
        _IN_MODULE.set(True)
        return body(*args)
    finally:
        while True:
            try:
                _IN_MODULE.set(previous)
                break
            except BudgetExceeded:  # one that was already pending: it is spent
                continue


MODULE_LOAD_BUDGET_S = 2.0  # module-level code (constants, compiled patterns) runs under this budget


@dataclass(frozen=True)
class ModuleNamespace:
    """A loaded module: its metadata, ``decide`` and its cases (empty lists when absent)."""

    MODULE: dict[str, Any]
    decide: Callable[[Any], Any]
    SUPPORT: list[dict[str, Any]] = field(default_factory=list)
    COUNTEREXAMPLES: list[dict[str, Any]] = field(default_factory=list)
    filename: str = "<module>"
    sha256: str = ""

    @property
    def id(self) -> str:
        return str(self.MODULE.get("id", ""))


def load_module_source(source: str, filename: str = "<module>") -> ModuleNamespace:
    """Check ``source`` against the policy, then execute it in a restricted namespace.

    Raises :class:`ModulePolicyError` listing every violation, including an import that the
    restricted ``__import__`` refuses at execution time (a toolkit name that is a module).
    """
    violations = check_module_source(source)
    if violations:
        raise ModulePolicyError(violations, filename)
    digest = hashlib.sha256(source.encode("utf-8", "surrogatepass")).hexdigest()
    stem = re.sub(r"[^A-Za-z0-9_]", "_", filename.rsplit("/", 1)[-1].removesuffix(".py")) or "module"
    namespace: dict[str, Any] = {"__builtins__": safe_builtins(), "__name__": f"autoverifier_module_{stem}",
                                 **_BOUNDED}
    code = bounded_code(source, filename)
    _guard_sympy_eval()
    from verifier_runtime.limits import budget

    token = _IN_MODULE.set(True)
    try:
        with budget(MODULE_LOAD_BUDGET_S):
            exec(code, namespace)  # noqa: S102 - policy-checked source, restricted builtins and imports
    except ImportError as e:
        raise ModulePolicyError([f"import refused at load time: {e}"], filename) from e
    except BudgetExceeded as e:
        raise ModulePolicyError([f"module-level code ran over its {MODULE_LOAD_BUDGET_S:g} s budget"], filename) from e
    except Exception as e:  # a constant expression that fails (bad regex, ...)
        raise ModulePolicyError([f"module-level code failed: {type(e).__name__}: {str(e)[:200]}"], filename) from e
    finally:
        _IN_MODULE.reset(token)
    meta = namespace.get("MODULE")
    decide = namespace.get("decide")
    if not isinstance(meta, dict) or not callable(decide):
        raise ModulePolicyError(["MODULE or decide missing after execution"], filename)
    return ModuleNamespace(
        MODULE=dict(meta),
        decide=_guarded(decide),
        SUPPORT=list(namespace.get("SUPPORT", [])),
        COUNTEREXAMPLES=list(namespace.get("COUNTEREXAMPLES", [])),
        filename=filename,
        sha256=digest,
    )


__all__ = [
    "ALLOWED_STDLIB",
    "FORBIDDEN_ATTRIBUTES",
    "FORBIDDEN_BUILTINS",
    "SAFE_BUILTINS",
    "ModuleNamespace",
    "ModulePolicyError",
    "ModuleView",
    "case_problem",
    "check_module_source",
    "in_sandbox",
    "is_allowed_import",
    "load_module_source",
    "module_view",
    "safe_builtins",
    "sandboxed_decide",
]
