"""Structured answers: intervals and unions, sets, tuples and vectors, comma lists, matrices.

Elements are compared with the number and expression comparators. Conventions (see
``docs/toolkit-math.md``): ``\\{...\\}`` is a set (order and repeats ignored); ``(...)``,
``[...]`` and ``\\langle...\\rangle`` are ordered tuples; a bare comma list ``1, 2, 3`` is an
unordered multiset; ``(0, 1)`` and ``[0, 1]`` are ambiguous between a pair and an interval
(:func:`tuple_as_interval` gives the interval reading); ``[0, 1)`` is always an interval.
Every public function returns ``None`` instead of raising.
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass
from typing import Any

from verifier_runtime.limits import MAX_ANSWER_CHARS, MAX_EXPR_DEPTH, MAX_EXPR_NODES, check_deadline
from verifier_runtime.toolkit.latex import (
    equations_equal,
    numeric_value,
    parse_equation,
    parse_expression,
    values_equal,
)
from verifier_runtime.toolkit.latex.convert import _sympy
from verifier_runtime.toolkit.numbers import Number, numbers_close, parse_number, strip_math_delimiters
from verifier_runtime.toolkit.text import NOT_EQUAL_RE

# Patterns of the parsing hot path, compiled once (re's own cache lookup costs per call).
_SIZING_CMD_RE = re.compile(r"\\(?:left|right|bigl|bigr|Bigl|Bigr|big|Big)(?![A-Za-z])")
_ASSIGN_PREFIX_RE = re.compile(r"^[A-Za-z](?:_\{?\w+\}?)?\s*=\s*(?=.)")
_VARIABLE_RE = re.compile(r"[A-Za-z](?:_\{?\w+\}?)?")
_LEFT_OPEN_RE = re.compile(r"\\(?:left|right)\s*[(\[]")
_RIGHT_CLOSE_RE = re.compile(r"\\right\s*[)\]]$")
_HLINE_RE = re.compile(r"\\hline")
_ROW_BREAK_RE = re.compile(r"\\\\(?:\[[^\]]*\])?")

__all__ = [
    "Equation",
    "Collection",
    "Interval",
    "IntervalSet",
    "Matrix",
    "split_top_level",
    "parse_element",
    "parse_collection",
    "expand_plus_minus",
    "has_plus_minus",
    "parse_interval_set",
    "parse_matrix",
    "tuple_as_interval",
    "elements_equal",
    "assigned_value",
    "collections_equal",
    "interval_sets_equal",
    "matrices_equal",
]

MAX_ITEMS = 64  # elements in one collection or matrix


@dataclass(frozen=True, slots=True)
class Equation:
    """``lhs = rhs`` as sympy expressions."""

    lhs: Any
    rhs: Any
    text: str


@dataclass(frozen=True, slots=True)
class Collection:
    """A set, tuple, vector or comma list. ``bracket``: ``"{"``, ``"("``, ``"["``, ``"<"`` or ``""`` (bare list)."""

    items: tuple[Any, ...]
    ordered: bool
    bracket: str
    text: str = ""

    @property
    def is_set(self) -> bool:
        return self.bracket == "{"


@dataclass(frozen=True, slots=True)
class Interval:
    """One interval; ``lo``/``hi`` are Numbers or sympy expressions (``-oo``/``oo`` for unbounded)."""

    lo: Any
    hi: Any
    lo_closed: bool
    hi_closed: bool


@dataclass(frozen=True, slots=True)
class IntervalSet:
    """A union of intervals, normalised: sorted and merged where endpoints are numeric."""

    parts: tuple[Interval, ...]
    text: str = ""


@dataclass(frozen=True, slots=True)
class Matrix:
    """Rows of elements. ``delimiter`` is the environment (``pmatrix``, ``bmatrix``, ``vmatrix``...)."""

    rows: tuple[tuple[Any, ...], ...]
    delimiter: str
    text: str = ""

    @property
    def is_determinant(self) -> bool:
        """``vmatrix``/``Vmatrix`` denote a determinant (or norm), not a matrix value."""
        return self.delimiter in ("vmatrix", "Vmatrix")


# --- splitting -----------------------------------------------------------------------------------

_OPEN = "([{\u27e8"
_CLOSE = ")]}\u27e9"


# LaTeX spacing commands: "(1,\\,2)" spaces its items, and the comma of "\\," separates none
_SPACING_CMD_RE = re.compile(r"(?<!\\)\\(?:[,;:!]|[ ](?=\S))")  # a row break (two backslashes) stays


def _prep(s: str) -> str:
    s = s.replace("\\langle", "\u27e8").replace("\\rangle", "\u27e9")
    s = _SIZING_CMD_RE.sub("", s)
    if "\\" in s:
        s = _SPACING_CMD_RE.sub(" ", s)
    s = s.replace("\\lbrace", "\\{").replace("\\rbrace", "\\}")
    return s.strip()


def split_top_level(s: str, sep: str = ",") -> list[str] | None:
    """Split ``s`` at ``sep`` outside any brackets; ``None`` if brackets nest too deep."""
    if len(sep) == 1 and sep not in _OPEN and sep not in _CLOSE and sum(map(s.count, _OPEN)) <= MAX_EXPR_DEPTH:
        return _split_flat(s, sep)  # no deeper nesting than there are openers: never too deep
    return _split_scan(s, sep)


_BRACKET_OR_SEP_RES = {sep: re.compile("[" + re.escape(_OPEN + _CLOSE + sep) + "]") for sep in ",;"}


def _split_flat(s: str, sep: str) -> list[str]:
    """:func:`split_top_level` for a one-character separator, visiting only brackets and separators."""
    if sep not in s:
        return [s]
    pattern = _BRACKET_OR_SEP_RES.get(sep) or re.compile("[" + re.escape(_OPEN + _CLOSE + sep) + "]")
    parts: list[str] = []
    depth = 0
    start = 0
    for m in pattern.finditer(s):
        ch = m.group()
        if ch in _OPEN:
            depth += 1
        elif ch in _CLOSE:
            depth = max(0, depth - 1)
        elif depth == 0:
            parts.append(s[start : m.start()])
            start = m.end()
    parts.append(s[start:])
    return parts


def _split_scan(s: str, sep: str) -> list[str] | None:
    """:func:`split_top_level` character by character (any separator, any depth)."""
    parts: list[str] = []
    depth = 0
    start = 0
    i = 0
    n = len(s)
    while i < n:
        ch = s[i]
        if ch in _OPEN:
            depth += 1
            if depth > MAX_EXPR_DEPTH:
                return None
        elif ch in _CLOSE:
            depth = max(0, depth - 1)
        elif depth == 0 and s.startswith(sep, i):
            parts.append(s[start:i])
            i += len(sep)
            start = i
            continue
        i += 1
    parts.append(s[start:])
    return parts


def _strip_wrappers(s: str) -> str:
    s = strip_math_delimiters(s.strip())
    if s.endswith(".") and not s[-2:-1].isdigit():
        s = s[:-1].rstrip()
    return s


def _ok(s: object) -> bool:
    return isinstance(s, str) and bool(s.strip()) and len(s) <= MAX_ANSWER_CHARS and "\x00" not in s


_BRACKET_RE = re.compile("[" + re.escape(_OPEN + _CLOSE) + "]")


def _matching_close(s: str, open_idx: int) -> int:
    """Index of the bracket closing the one at ``open_idx`` (any bracket type), or -1."""
    depth = 0
    for m in _BRACKET_RE.finditer(s, open_idx):  # the brackets only, not every character
        if m.group() in _OPEN:
            depth += 1
        else:
            depth -= 1
            if depth == 0:
                return m.start()
    return -1


# --- elements ------------------------------------------------------------------------------------


def parse_element(s: object, *, _depth: int = 0) -> Any:
    """One element: a nested collection or interval, an equation, a Number or a sympy expression; else ``None``."""
    if not _ok(s) or _depth > 4:
        return None
    try:
        t = _strip_wrappers(_prep(s))
        if not t:
            return None
        if t in _EMPTY or _SPACES_RE.sub("", t) in _EMPTY:
            return Collection((), False, "{", t)  # the empty set, an element like any other: {\emptyset, 1}
        if t[0] in _OPEN or t.startswith("\\{"):
            nested = parse_collection(t, _depth=_depth + 1)
            if nested is not None:
                return nested
            iv = parse_interval_set(t)
            if iv is not None:
                return iv
        if "=" in t:
            eq = parse_equation(t)
            return Equation(eq[0], eq[1], t) if eq else None
        n = parse_number(t)
        if n is not None:
            return n
        return parse_expression(t)
    except (ValueError, TypeError, RecursionError, AttributeError):
        return None


# --- collections ---------------------------------------------------------------------------------

_EMPTY = {"\\emptyset", "\\varnothing", "\u2205", "\\{\\}", "{}", "\\{ \\}"}
_SPACES_RE = re.compile(r"\s+|\\[,;:! ]")


def parse_collection(s: object, *, _depth: int = 0) -> Collection | None:
    """A set ``\\{..\\}``, tuple ``(..)``/``[..]``, vector ``\\langle..\\rangle`` or bare list ``a, b``; else ``None``.

    A bracketed single element is not a collection (``(3)`` is just 3), except a one-element set.
    Mixed brackets (``[0, 1)``) are intervals, not collections.
    """
    if not _ok(s):
        return None
    t = _strip_wrappers(_prep(s))
    if t in _EMPTY:
        return Collection((), False, "{", s)
    bracket = ""
    inner = t
    if t.startswith("\\{") and t.endswith("\\}") and _matching_close(t, 1) == len(t) - 1:
        bracket, inner = "{", t[2:-2]
    elif t and t[0] in "([\u27e8" and _matching_close(t, 0) == len(t) - 1:
        pairs = {"(": ")", "[": "]", "\u27e8": "\u27e9"}
        if t[-1] != pairs[t[0]]:
            return None  # mixed brackets: an interval
        bracket, inner = ("<" if t[0] == "\u27e8" else t[0]), t[1:-1]
    parts = split_top_level(inner, ",")
    if parts is None:
        return None
    if len(parts) == 1 and ";" in inner and bracket in ("(", "["):
        parts = split_top_level(inner, ";") or parts
    parts = [p.strip() for p in parts]
    if len(parts) == 1 and bracket in ("(", "[") and parts[0][:1] in _OPEN + "\\" and _depth < MAX_EXPR_DEPTH:
        return parse_collection(parts[0], _depth=_depth + 1)  # redundant outer brackets: ((1, 2))
    if bracket == "" and len(parts) < 2:
        return None
    if bracket in ("(", "[", "<") and len(parts) < 2:
        return None
    if len(parts) > MAX_ITEMS or any(not p for p in parts):
        return None
    items = []
    for p in parts:
        check_deadline()
        el = parse_element(p, _depth=_depth)
        if el is None:
            return None
        items.append(el)
    ordered = bracket in ("(", "[", "<")
    return Collection(tuple(items), ordered, bracket, s)


# --- plus-minus -----------------------------------------------------------------------------------

PLUS_MINUS_RE = re.compile(r"\\(?:pm|mp)(?![A-Za-z])|[\u00b1\u2213]")  # \\pm and \\mp give the same two values; not \\pmod, \\pmb
_PM_ANY = re.compile(r"\\(?:pm|mp)(?![A-Za-z])|[\u00b1\u2213]")


# a spread written in words or ASCII: "give or take 2", "plus or minus 0.1", "+/- 3", "could be off by one"
_PM_WORDS_RE = re.compile(r"(?:\bgive\s+or\s+take|\bplus\s+or\s+minus|\+\s*/\s*-|(?<![\w)}])\+-)\s*+\$?[\d.]"
                          r"|\boff\s+by\s+(?:one|two|a\s+few|\d)", re.IGNORECASE)


def has_plus_minus(s: str) -> bool:
    """``s`` writes a plus-minus (``\\pm``, ``\\mp``, ``±``, ``∓``, or in words: "give or take 2",
    "plus or minus 0.1", "+/- 3", "could be off by one"); ``\\pmod`` and ``\\pmb`` are not one."""
    if ("pm" in s or "mp" in s or "\u00b1" in s or "\u2213" in s) and _PM_ANY.search(s):
        return True
    return ("+" in s or "or" in s or "off" in s) and bool(_PM_WORDS_RE.search(s))


def expand_plus_minus(s: object) -> Collection | None:
    """``a \\pm b`` (one ``\\pm`` or ``±``) as the set ``{a + b, a - b}``; ``x = \\pm 2`` as ``{2, -2}``."""
    if not _ok(s):
        return None
    t = _strip_wrappers(_prep(s))
    t = _ASSIGN_PREFIX_RE.sub("", t)
    if len(PLUS_MINUS_RE.findall(t)) != 1 or "=" in t or "," in t:
        return None
    plus, minus = PLUS_MINUS_RE.sub("+", t), PLUS_MINUS_RE.sub("-", t)
    a, b = parse_element(plus.lstrip("+") if plus.lstrip().startswith("+") else plus), parse_element(minus)
    if a is None or b is None or isinstance(a, (Collection, Equation)) or isinstance(b, (Collection, Equation)):
        return None
    return Collection((a, b), False, "{", s)


# --- intervals -----------------------------------------------------------------------------------

_UNION = re.compile(r"\\cup|\u222a|(?<!\s)\s++U\s+|\\text\{\s*or\s*\}|(?<!\s)\s++or\s+")
_INFS = {"\\infty": 1, "+\\infty": 1, "-\\infty": -1, "\u221e": 1, "-\u221e": -1, "inf": 1, "-inf": -1,
         "oo": 1, "-oo": -1, "+\u221e": 1, "infty": 1, "-infty": -1, "+inf": 1,
         # the words, read lower-cased: "(2, infinity)", "(-Infinity, 0]"
         "infinity": 1, "+infinity": 1, "-infinity": -1, "\u2212infinity": -1, "\\text{infinity}": 1, "-\\text{infinity}": -1}
_IN_PREFIX = re.compile(r"^[A-Za-z](?:_\{?\w+\}?)?\s*(?:\\in|\u2208)\s*")
_REALS = {"\\mathbb{R}", "\\mathbb R", "\\R", "\u211d", "\\mathbb{R}^1"}
# the whole real line in words ("All real numbers satisfy it."), with nothing excepted
_REALS_TEXT_RE = re.compile(
    r"^\s*(?:the\s+set\s+of\s+)?(?:all|any|every)\s+real\s+(?:numbers?|values?(?:\s+of\s+x)?|x)(?:\s+(?:satisfy\s+(?:it|"
    r"the\s+inequality|this)|work|are\s+solutions))?\s*\.?\s*$",
    re.IGNORECASE,
)
_INEQ = re.compile(r"\\leqslant|\\geqslant|\\leq?|\\geq?|\\lt|\\gt|\u2264|\u2265|\u2a7d|\u2a7e|<=|>=|<|>")
_INEQ_MAP = {"\\le": "<=", "\\leq": "<=", "\u2264": "<=", "<=": "<=", "\\ge": ">=", "\\geq": ">=",
             "\u2265": ">=", ">=": ">=", "<": "<", "\\lt": "<", ">": ">", "\\gt": ">",
             "\\leqslant": "<=", "\\geqslant": ">=", "\u2a7d": "<=", "\u2a7e": ">="}


def _endpoint(s: str) -> Any:
    t = s.strip().replace(" ", "")
    if "nfinit" in t:
        t = t.lower()
    if t in _INFS:
        sp = _sympy()
        return sp.oo if _INFS[t] > 0 else -sp.oo
    n = parse_number(t)
    if n is not None:
        return n
    return parse_expression(s)


def _to_float(x: Any) -> float | None:
    """A real endpoint as a float (``inf`` allowed), or ``None`` when symbolic or complex."""
    try:
        if isinstance(x, Number):
            return float(x.value)
        sp = _sympy()
        if x == sp.oo:
            return math.inf
        if x == -sp.oo:
            return -math.inf
        if not x.is_number:
            return None
        v = numeric_value(x)
        if v is None or v.imag != 0:
            return None
        return float(v.real)
    except (TypeError, ValueError, AttributeError, OverflowError, RecursionError):
        return None


def _one_interval(t: str) -> Interval | None:
    t = t.strip()
    if t in _REALS:
        sp = _sympy()
        return Interval(-sp.oo, sp.oo, False, False)
    if len(t) < 5 or t[0] not in "([" or t[-1] not in ")]":
        return _inequality(t)
    parts = split_top_level(t[1:-1], ",")
    if parts is not None and len(parts) == 1 and ";" in t:
        parts = split_top_level(t[1:-1], ";")  # "[3; 5]": the bounds apart by a semicolon
    if parts is None or len(parts) != 2:
        return None
    lo, hi = _endpoint(parts[0]), _endpoint(parts[1])
    if lo is None or hi is None:
        return None
    flo, fhi = _to_float(lo), _to_float(hi)
    if flo is not None and fhi is not None and (flo > fhi or (flo == fhi and not (t[0] == "[" and t[-1] == "]"))):
        return None
    lo_closed = t[0] == "[" and flo != -math.inf
    hi_closed = t[-1] == "]" and fhi != math.inf
    return Interval(lo, hi, lo_closed, hi_closed)


def _inequality(t: str) -> Interval | None:
    """``x > 3``, ``x \\le 2``, ``-1 < x \\le 4`` (one variable) as an interval."""
    ops = _INEQ.findall(t)
    if not ops or len(ops) > 2:
        return None
    pieces = [p.strip() for p in _INEQ.split(t)]
    if any(not p for p in pieces):
        return None
    kinds = [_INEQ_MAP[o] for o in ops]
    sp = _sympy()
    var_idx = [k for k, p in enumerate(pieces) if _VARIABLE_RE.fullmatch(p)]
    if len(var_idx) != 1:
        return _linear_inequality(pieces, kinds)
    v = var_idx[0]
    lo: Any = -sp.oo
    hi: Any = sp.oo
    lo_c = hi_c = False
    if len(pieces) == 2:
        other = _endpoint(pieces[1 - v])
        if other is None:
            return None
        op = kinds[0]
        var_is_smaller = (op in ("<", "<=")) == (v == 0)
        if var_is_smaller:
            hi, hi_c = other, "=" in op
        else:
            lo, lo_c = other, "=" in op
    else:
        if v != 1 or (kinds[0][0] != kinds[1][0]):
            return None
        a, b = _endpoint(pieces[0]), _endpoint(pieces[2])
        if a is None or b is None:
            return None
        if kinds[0][0] == "<":
            lo, lo_c, hi, hi_c = a, "=" in kinds[0], b, "=" in kinds[1]
        else:
            lo, lo_c, hi, hi_c = b, "=" in kinds[1], a, "=" in kinds[0]
    flo, fhi = _to_float(lo), _to_float(hi)
    if flo is not None and fhi is not None and flo > fhi:
        return None
    return Interval(lo, hi, lo_c and flo != -math.inf, hi_c and fhi != math.inf)


_FLIP = {"<": ">", ">": "<", "<=": ">=", ">=": "<="}


def _linear_inequality(pieces: list[str], kinds: list[str]) -> Interval | None:
    """``-y < 2``, ``2x + 1 \\ge 5``, ``3 > 1 - x``: one side linear in one variable, the other a
    constant, rewritten as ``y > -2`` and read as an interval."""
    if len(pieces) != 2:
        return None
    exprs = [parse_expression(p) for p in pieces]
    if any(e is None for e in exprs):
        return None
    with_var = [k for k, e in enumerate(exprs) if getattr(e, "free_symbols", None)]
    if len(with_var) != 1:
        return None
    v = with_var[0]
    e, other = exprs[v], exprs[1 - v]
    symbols = list(e.free_symbols)
    if len(symbols) != 1 or other.free_symbols:
        return None
    sym = symbols[0]
    sp = _sympy()
    try:
        poly = sp.Poly(e, sym)
    except Exception:  # noqa: BLE001 - not a polynomial in the symbol
        return None
    if poly.degree() != 1:
        return None
    k, c = poly.all_coeffs()
    if not (k.is_number and c.is_number) or k == 0:
        return None
    bound = sp.nsimplify((other - c) / k)
    op = kinds[0] if v == 0 else _FLIP[kinds[0]]  # now: sym op bound ... after dividing by k
    if k.is_negative:
        op = _FLIP[op]
    lo: Any = -sp.oo
    hi: Any = sp.oo
    if op in ("<", "<="):
        hi, closed = bound, op == "<="
        return Interval(lo, hi, False, closed)
    lo, closed = bound, op == ">="
    return Interval(lo, hi, closed, False)


def parse_interval_set(s: object) -> IntervalSet | None:
    """An interval, a union of intervals (``\\cup``, ``∪``, ``U``, ``or``), ``\\mathbb{R}`` or a
    one-variable inequality, normalised (sorted, overlapping parts merged); else ``None``.

    Unbounded ends are always open (``[2, \\infty]`` reads as ``[2, \\infty)``). An interval with
    ``lo > hi`` is rejected.
    """
    if not _ok(s):
        return None
    try:
        if _REALS_TEXT_RE.match(s):
            sp = _sympy()
            return IntervalSet((Interval(-sp.oo, sp.oo, False, False),), s)
        if "eal" in s or "\\mathbb" in s or "\u211d" in s or "\\R" in s:
            conditioned = _reals_with_condition(s)
            if conditioned is not None:
                return IntervalSet(_normalise(conditioned), s)
        t = _IN_PREFIX.sub("", _strip_wrappers(_prep(s)))
        if "\\" in t or "|" in t or "\u2260" in t or "!=" in t:
            special = _excluded_points(t) or _absolute_bound(t)
            if special is not None:
                return IntervalSet(_normalise(special), s)
        if ("and" in t or "\\land" in t or "\\wedge" in t) and not _UNION.search(t):
            both = _both_bounds(t)
            if both is not None:
                return IntervalSet((both,), s)
        pieces = _UNION.split(t)
        if len(pieces) > MAX_ITEMS:
            return None
        parts = []
        for p in pieces:
            check_deadline()
            iv = _one_interval(p)
            if iv is None:
                return None
            parts.append(iv)
        return IntervalSet(_normalise(parts), s)
    except (ValueError, TypeError, RecursionError, AttributeError):
        return None


# "x > 1 and x < 2", "x \\ge 0 \\land x \\le 5": two bounds on one variable, both holding
_AND_RE = re.compile(r"(?<!\s)\s*+(?:,\s*+)?(?:\band\b|\\land(?![A-Za-z])|\\wedge(?![A-Za-z])|\\text\{\s*and\s*\})\s*+")
_ONE_LETTER_RE = re.compile(r"(?<![A-Za-z\\])[A-Za-z](?![A-Za-z])")


def is_both_bounds(s: str) -> bool:
    """``s`` is two bounds on one variable joined by "and" ("x > 1 and x < 2"): one interval."""
    t = _IN_PREFIX.sub("", _strip_wrappers(_prep(s)))
    return not _UNION.search(t) and _both_bounds(t) is not None


def _both_bounds(t: str) -> Interval | None:
    pieces = [strip_math_delimiters(p.strip().strip("$").strip()) for p in _AND_RE.split(t)]
    if len(pieces) != 2:
        return None
    names = [set(_ONE_LETTER_RE.findall(p)) for p in pieces]
    if len(names[0]) != 1 or names[0] != names[1]:
        return None  # "x > 1 and y < 2": two unknowns
    a, b = _one_interval(pieces[0]), _one_interval(pieces[1])
    if a is None or b is None:
        return None
    return _intersection(a, b)


def _intersection(a: Interval, b: Interval) -> Interval | None:
    """The interval both ``a`` and ``b`` cover, or ``None`` where it is empty or not comparable."""
    alo, ahi, blo, bhi = _to_float(a.lo), _to_float(a.hi), _to_float(b.lo), _to_float(b.hi)
    if None in (alo, ahi, blo, bhi):
        return None
    if alo > blo or (alo == blo and not a.lo_closed):
        lo, lo_closed, lo_f = a.lo, a.lo_closed, alo
    else:
        lo, lo_closed, lo_f = b.lo, b.lo_closed, blo
    if ahi < bhi or (ahi == bhi and not a.hi_closed):
        hi, hi_closed, hi_f = a.hi, a.hi_closed, ahi
    else:
        hi, hi_closed, hi_f = b.hi, b.hi_closed, bhi
    if lo_f > hi_f or (lo_f == hi_f and not (lo_closed and hi_closed)):
        return None
    return Interval(lo, hi, lo_closed, hi_closed)


# "\\mathbb{R} \\setminus \\{0, 1\\}", "x \\neq 2": the reals (or an interval) without finitely many points
_SETMINUS_RE = re.compile(r"(?<!\s)\s*+(?:\\setminus|\\smallsetminus|\\backslash)(?![A-Za-z])\s*+"
                          r"\\\{(?P<points>[^{}]{1,200})\\\}$")
# "|x| \\ge 1", "|x - 2| < 3": a bound on an absolute value, as intervals
_ABS_RE = re.compile(r"^(?:\\left)?\|\s*+[A-Za-z]\s*+(?:(?P<sign>[-+])\s*+(?P<c>\d[\d.]*+))?\s*+(?:\\right)?\|\s*+"
                     r"(?P<op>\\leq?(?![A-Za-z])|\\geq?(?![A-Za-z])|<=|>=|[<>\u2264\u2265]|\\lt(?![A-Za-z])|\\gt(?![A-Za-z]))"
                     r"\s*+(?P<a>\d[\d.]*+)$")


_MAX_POINT_CHARS = 31


def _excluded_points(t: str) -> list[Interval] | None:
    """The intervals of a set with finitely many points removed, or ``None``."""
    m = NOT_EQUAL_RE.match(t)
    if m is not None and not m.group("op").endswith(("notin", "\u2209")):  # "x \\notin \\{1, 2\\}": not one point
        if len(m.group("v")) > _MAX_POINT_CHARS or "," in m.group("v") or ";" in m.group("v"):
            return None
        base, points = [Interval(-_sympy().oo, _sympy().oo, False, False)], [m.group("v")]
    else:
        m = _SETMINUS_RE.search(t)
        if m is None:
            return _reals_without_interval(t)
        if m.start() == 0:
            return None
        whole = parse_interval_set(t[: m.start()])
        if whole is None:
            return None
        base, points = list(whole.parts), _split_flat(m.group("points"), ",")
    return _remove_points(base, points)


_SETMINUS_INTERVAL_RE = re.compile(r"^(?:\\mathbb\s*+\{?R\}?|\u211d)\s*+(?:\\setminus|\\smallsetminus|\\backslash|-)"
                                   r"(?![A-Za-z])\s*+(?P<iv>[\[(].{3,80}[\])])$")


def _reals_without_interval(t: str) -> list[Interval] | None:
    """``\\mathbb{R} \\setminus [3, 5]``: the real line without one interval, as the intervals left."""
    m = _SETMINUS_INTERVAL_RE.match(t.strip())
    iv = _one_interval(m.group("iv")) if m else None
    if iv is None:
        return None
    sp = _sympy()
    out = []
    if iv.lo != -sp.oo:
        out.append(Interval(-sp.oo, iv.lo, False, not iv.lo_closed))
    if iv.hi != sp.oo:
        out.append(Interval(iv.hi, sp.oo, not iv.hi_closed, False))
    return out or None


def _remove_points(base: list[Interval], points: list[str]) -> list[Interval] | None:
    """``base`` without the written ``points`` (each a number, ``x = 2`` or ``$2$``), or ``None``."""
    nums = [parse_number(_POINT_LABEL_RE.sub("", strip_math_delimiters(p.strip()))) for p in points]
    if not nums or len(nums) > MAX_ITEMS or any(n is None for n in nums):
        return None
    for n in sorted(nums, key=lambda n: n.value):
        base = _without_point(base, n)
        if base is None:
            return None
    return base


# the real line with a condition in words or set-builder shorthand: "all real numbers except 2 and 3",
# "all real x with $x \\neq 2$", "x \\in \\mathbb{R}, x \\neq 2"
_POINT_LABEL_RE = re.compile(r"^[A-Za-z]\s*+=\s*+")
_POINT_SPLIT_RE = re.compile(r"\s*+,\s*+(?:(?:and|or)\s++)?|\s++(?:and|or)\s++")
_REALS_EXCEPT_RE = re.compile(
    r"^(?:the\s+set\s+of\s+)?(?:all|any|every)\s+real\s+(?:numbers?|values?)(?:\s+(?:of\s+)?[a-z])?,?\s++"
    r"(?:except(?:\s+for)?|other\s+than|but|excluding|apart\s+from|besides)\s++(?P<pts>[^;:]{1,120})$", re.IGNORECASE)
_REALS_SUCH_THAT_RE = re.compile(
    r"^(?:the\s+set\s+of\s+)?(?:all|any|every)\s+real\s+(?:numbers?\s+|values?\s+(?:of\s+)?)?\$?(?P<v>[a-z])\$?\s++"
    r"(?:with|such\s+that|where|for\s+which|satisfying)\s++(?P<cond>.{1,120})$", re.IGNORECASE)
_IN_REALS_COND_RE = re.compile(
    r"^(?P<v>[A-Za-z])\s*+(?:\\in(?![A-Za-z])|\u2208)\s*+(?:\\mathbb\s*+\{?R\}?|\u211d|\\R(?![A-Za-z]))\s*+"
    r"(?:,|:|\\mid(?![A-Za-z])|\|)\s*+(?P<cond>.{1,120})$")


# "The domain is ...", "So the solution set is ...": the subject before a stated set
SET_SUBJECT_RE = re.compile(r"^(?:so\s+|thus\s+|hence\s+|therefore\s+)?(?:the\s+)?(?:(?:domain|range|solution\s+set|set|"
                            r"answer|solutions?)\s+)(?:of\s+[^,;]{1,40}?\s+)?(?:is|are|=)\s++", re.IGNORECASE)


def real_set_statement(s: str) -> str | None:
    """The part of ``s`` that states the reals under an exception or condition, or two bounds on one
    variable: ``s`` itself, or what follows its subject ("The domain is all real numbers except 2",
    "The solution is $x > 1$ and $x < 2$"); else ``None``."""
    if _reals_with_condition(s) is not None or is_both_bounds(s):
        return s
    lead = SET_SUBJECT_RE.match(s)
    if lead is None:
        return None
    rest = s[lead.end() :]
    return rest if _reals_with_condition(rest) is not None or is_both_bounds(rest) else None


def reals_with_condition(s: str) -> bool:
    """``x \\in \\mathbb{R}, x \\neq 2``, "all real numbers except 2 and 3" and the like: one set,
    whatever commas or "and" it has."""
    return _reals_with_condition(s) is not None


def _reals_with_condition(s: str) -> list[Interval] | None:
    """The intervals of the real line under a written exception or condition, or ``None``."""
    t = _strip_wrappers(_prep(s))
    oo = _sympy().oo
    m = _REALS_EXCEPT_RE.match(t)
    if m is not None:
        points = [p for p in _POINT_SPLIT_RE.split(m.group("pts").strip().rstrip(".")) if p]
        return _remove_points([Interval(-oo, oo, False, False)], points)
    m = _REALS_SUCH_THAT_RE.match(t) or _IN_REALS_COND_RE.match(t)
    if m is None:
        return None
    cond = strip_math_delimiters(m.group("cond").strip().rstrip(".").strip())
    if not cond.startswith(m.group("v")):
        return None  # the condition is on the variable named
    got = parse_interval_set(cond)
    return list(got.parts) if got is not None else None


def _without_point(parts: list[Interval], n: Number) -> list[Interval] | None:
    v = float(n.value)
    out: list[Interval] = []
    for p in parts:
        lo, hi = _to_float(p.lo), _to_float(p.hi)
        if lo is None or hi is None:
            return None
        if v < lo or v > hi or (v == lo and not p.lo_closed) or (v == hi and not p.hi_closed):
            out.append(p)
            continue
        if v > lo:  # the point splits the part (a part that is the point alone goes)
            out.append(Interval(p.lo, n, p.lo_closed, False))
        if v < hi:
            out.append(Interval(n, p.hi, False, p.hi_closed))
    return out


def _absolute_bound(t: str) -> list[Interval] | None:
    m = _ABS_RE.match(t)
    if m is None:
        return None
    a, c = parse_number(m.group("a")), parse_number(m.group("c") or "0")
    if a is None or c is None:
        return None
    centre = c.value if m.group("sign") == "-" else -c.value  # |x - 2| is centred on 2, |x + 2| on -2
    lo, hi = _as_number(centre - a.value), _as_number(centre + a.value)
    op = m.group("op")
    oo = _sympy().oo
    closed = op in ("\\le", "\\leq", "<=", "\u2264", "\\ge", "\\geq", ">=", "\u2265")
    inside = op in ("\\le", "\\leq", "<=", "\u2264", "<", "\\lt")
    if inside:
        return [Interval(lo, hi, closed, closed)] if a.value > 0 or closed else None
    return [Interval(-oo, lo, False, closed), Interval(hi, oo, closed, False)]


def _as_number(v: Any) -> Number:
    """An exact endpoint computed from written numbers (``2 - 3``), as a number (an integer keeps
    the precision an integer written so has)."""
    if v.denominator != 1:
        return Number(v, f"{v.numerator}/{v.denominator}", "fraction")
    digits = str(abs(v.numerator))
    return Number(v, str(v.numerator), "integer", 0, max(1, len(digits.rstrip("0"))))


def _normalise(parts: list[Interval]) -> tuple[Interval, ...]:
    keyed = [(_to_float(p.lo), _to_float(p.hi), p) for p in parts]
    if any(lo is None or hi is None for lo, hi, _ in keyed):
        return tuple(parts)  # symbolic endpoints: keep as written
    keyed.sort(key=lambda k: (k[0], not k[2].lo_closed, k[1]))
    merged: list[list[Any]] = []
    for lo, hi, p in keyed:
        if merged:
            m = merged[-1]
            mhi = m[1]
            touches = lo < mhi or (lo == mhi and (m[2].hi_closed or p.lo_closed))
            if touches:
                if hi > mhi or (hi == mhi and p.hi_closed and not m[2].hi_closed):
                    m[2] = Interval(m[2].lo, p.hi, m[2].lo_closed, p.hi_closed if hi > mhi else True)
                    m[1] = hi
                continue
        merged.append([lo, hi, p])
    return tuple(m[2] for m in merged)


def tuple_as_interval(c: Collection) -> IntervalSet | None:
    """The interval reading of an ambiguous pair ``(a, b)`` or ``[a, b]``, or ``None``."""
    if not isinstance(c, Collection) or c.bracket not in ("(", "[") or len(c.items) != 2:
        return None
    lo, hi = c.items
    if not _is_scalar(lo) or not _is_scalar(hi):
        return None
    flo, fhi = _to_float(lo), _to_float(hi)
    if flo is not None and fhi is not None and flo >= fhi:
        return None
    closed = c.bracket == "["
    return IntervalSet((Interval(lo, hi, closed and flo != -math.inf, closed and fhi != math.inf),), c.text)


def _is_scalar(x: Any) -> bool:
    return isinstance(x, Number) or (hasattr(x, "free_symbols") and not isinstance(x, (Collection, Matrix)))


# --- matrices ------------------------------------------------------------------------------------

_MATRIX = re.compile(
    r"^\\begin\{(?P<env>[pbBvV]?matrix|smallmatrix|array)\}(?:\{[lcr|\s]*\})?(?P<body>.*)\\end\{(?P=env)\}$",
    re.S,
)


_NESTED_LIST_RE = re.compile(r"^\[\s*+(\[[^\[\]]*+\](?:\s*+,\s*+\[[^\[\]]*+\])*+)\s*+\]$")
_LIST_ROW_RE = re.compile(r"\[([^\[\]]*+)\]")


# a transpose mark closing the text: "^T", "^{T}", "^\\top", "^{\\intercal}", "^{\\mathsf{T}}"
TRANSPOSE_RE = re.compile(r"\s*+\^\s*+(?:\{\s*+(?:T|\\top|\\intercal|\\(?:mathsf|mathrm|text|mathbf)\s*+\{\s*+T\s*+\})\s*+\}"
                          r"|T|\\top|\\intercal)\s*+$")


def _transposed(t: str) -> Matrix | None:
    """R4.4: a tuple or a matrix with a transpose mark: ``(1, 2)^T`` and ``[1, 2]^T`` are the column
    of their entries, ``\\begin{pmatrix}1 & 2\\end{pmatrix}^T`` the matrix transposed; ``None`` for
    anything else (a set ``\\{1, 2\\}^T``, a transpose of a transpose, a bare letter ``A^T``)."""
    m = TRANSPOSE_RE.search(t)
    if m is None:
        return None
    base = t[:m.start()].strip()
    if not base or TRANSPOSE_RE.search(base):
        return None
    if base.startswith(("\\begin", "\\left", "[[")):
        inner = parse_matrix(base)
        if inner is None or inner.is_determinant:
            return None
        rows = tuple(tuple(r[k] for r in inner.rows) for k in range(len(inner.rows[0])))
        return Matrix(rows, inner.delimiter, t)
    if base[:1] not in "([\u27e8":
        return None
    c = parse_collection(base)
    if c is None or not c.ordered or not all(_is_scalar(x) for x in c.items):
        return None
    return Matrix(tuple((x,) for x in c.items), "pmatrix", t)


def parse_matrix(s: object) -> Matrix | None:
    """A ``pmatrix``/``bmatrix``/``Bmatrix``/``vmatrix``/``Vmatrix``/``matrix``/``array`` as rows, or
    a nested list of rows (``[[1, 2], [3, 4]]``), or either of them or a tuple with a transpose
    mark (``(1, 2)^T``: the column of 1 and 2); else ``None``.

    An ``array`` wrapped in ``\\left(``...``\\right)`` reads as a ``pmatrix``. Rows must have
    equal lengths.
    """
    if not _ok(s):
        return None
    try:
        t = _strip_wrappers(s)
        if t.endswith(("T", "}", "top", "intercal")) and "^" in t:
            tr = _transposed(t)
            if tr is not None:
                return tr
        t = _LEFT_OPEN_RE.sub("", t) if t.startswith("\\left") else t
        t = _RIGHT_CLOSE_RE.sub("", t).strip()
        m = _MATRIX.match(t)
        if m:
            env = m.group("env")
            body = _HLINE_RE.sub("", m.group("body").strip())
            row_texts = [r for r in _ROW_BREAK_RE.split(body) if r.strip()]
        else:  # a nested list, row by row: [[1, 2], [3, 4]]
            n = _NESTED_LIST_RE.match(t) if t.startswith("[") else None
            if n is None:
                return None
            env = "bmatrix"
            row_texts = [r.replace(",", "&") for r in _LIST_ROW_RE.findall(n.group(1))]
        if not row_texts or len(row_texts) > MAX_ITEMS:
            return None
        rows = []
        width = None
        cells_total = 0
        for r in row_texts:
            cells = [c.strip() for c in r.split("&")]
            if width is None:
                width = len(cells)
            if len(cells) != width:
                return None
            cells_total += len(cells)
            if cells_total > MAX_EXPR_NODES:
                return None
            row = []
            for c in cells:
                check_deadline()
                el = parse_element(c)
                if el is None:
                    return None
                row.append(el)
            rows.append(tuple(row))
        return Matrix(tuple(rows), "pmatrix" if env == "array" else env, s)
    except (ValueError, TypeError, RecursionError, AttributeError):
        return None


# --- equality ------------------------------------------------------------------------------------


def elements_equal(a: Any, b: Any, *, rel_tol: float = 0.0, abs_tol: float = 0.0) -> bool | None:
    """Equality of two parsed elements of any supported kind; ``None`` if undecided or kinds differ."""
    try:
        if isinstance(a, Number) and isinstance(b, Number):
            return numbers_close(a, b, rel_tol=rel_tol, abs_tol=abs_tol)
        if isinstance(a, Collection) and isinstance(b, Collection):
            return collections_equal(a, b, rel_tol=rel_tol, abs_tol=abs_tol)
        if (isinstance(a, Collection) and a.is_set and isinstance(b, Number)) or (
                isinstance(b, Collection) and b.is_set and isinstance(a, Number)):
            return False  # a set is no number: {2} is not 2, \emptyset is not 0 (R2.4)
        if isinstance(a, IntervalSet) and isinstance(b, IntervalSet):
            return interval_sets_equal(a, b, rel_tol=rel_tol, abs_tol=abs_tol)
        if isinstance(a, Collection) and isinstance(b, IntervalSet):
            iv = tuple_as_interval(a)
            return interval_sets_equal(iv, b, rel_tol=rel_tol, abs_tol=abs_tol) if iv else None
        if isinstance(a, IntervalSet) and isinstance(b, Collection):
            return elements_equal(b, a, rel_tol=rel_tol, abs_tol=abs_tol)
        if isinstance(a, Matrix) and isinstance(b, Matrix):
            return matrices_equal(a, b, rel_tol=rel_tol, abs_tol=abs_tol)
        if isinstance(a, Equation) and isinstance(b, Equation):
            return equations_equal((a.lhs, a.rhs), (b.lhs, b.rhs))
        if isinstance(a, Equation) and _is_scalar(b):
            value = assigned_value(a)
            return values_equal(value, b, rel_tol=rel_tol, abs_tol=abs_tol) if value is not None else None
        if isinstance(b, Equation) and _is_scalar(a):
            return elements_equal(b, a, rel_tol=rel_tol, abs_tol=abs_tol)
        if _is_scalar(a) and _is_scalar(b):
            return values_equal(a, b, rel_tol=rel_tol, abs_tol=abs_tol)
        return None
    except (ValueError, TypeError, RecursionError, AttributeError):
        return None


def assigned_value(eq: Equation) -> Any:
    """The constant of an assignment ``x = 3`` or ``3 = x`` (sympy), else ``None``."""
    for side, other in ((eq.lhs, eq.rhs), (eq.rhs, eq.lhs)):
        if getattr(side, "is_Symbol", False) and not getattr(other, "free_symbols", {1}):
            return other
    return None


def _all(results: list[bool | None]) -> bool | None:
    if any(r is False for r in results):
        return False
    if any(r is None for r in results):
        return None
    return True


def _unordered(a: tuple[Any, ...], b: tuple[Any, ...], multiset: bool, rel_tol: float, abs_tol: float) -> bool | None:
    if multiset and len(a) != len(b):
        return False
    undecided = False
    used = [False] * len(b)
    for x in a:
        found = False
        for j, y in enumerate(b):
            if multiset and used[j]:
                continue
            check_deadline()
            r = elements_equal(x, y, rel_tol=rel_tol, abs_tol=abs_tol)
            if r is True:
                found = True
                used[j] = True
                break
            if r is None:
                undecided = True
        if not found:
            return None if undecided else False
    if multiset:
        return True
    # set: every element of b must also appear in a
    for y in b:
        if not any(elements_equal(x, y, rel_tol=rel_tol, abs_tol=abs_tol) is True for x in a):
            return None if undecided else False
    return True


def collections_equal(a: Collection, b: Collection, *, rel_tol: float = 0.0, abs_tol: float = 0.0) -> bool | None:
    """Sets by membership, bare lists as multisets, tuples in order; ``None`` when undecided.

    A set against a bare list compares as sets. A tuple against a bare list is equal only in
    the same order (same items in another order: ``None``). Tuples with different bracket
    shapes (``(1, 2)`` vs ``[1, 2]``) compare by items.
    """
    if a.is_set or b.is_set:
        if a.ordered or b.ordered:
            return None
        return _unordered(a.items, b.items, False, rel_tol, abs_tol)
    if not a.ordered and not b.ordered:
        return _unordered(a.items, b.items, True, rel_tol, abs_tol)
    if len(a.items) != len(b.items):
        return False
    in_order = _all([elements_equal(x, y, rel_tol=rel_tol, abs_tol=abs_tol) for x, y in zip(a.items, b.items, strict=True)])
    if a.ordered and b.ordered:
        return in_order
    if in_order is True:
        return True
    return None if _unordered(a.items, b.items, True, rel_tol, abs_tol) is True else in_order


def interval_sets_equal(a: IntervalSet, b: IntervalSet, *, rel_tol: float = 0.0, abs_tol: float = 0.0) -> bool | None:
    """Same normalised parts: same count, same open/closed ends, equal endpoints."""
    if len(a.parts) != len(b.parts):
        return False
    results: list[bool | None] = []
    for p, q in zip(a.parts, b.parts, strict=True):
        if p.lo_closed != q.lo_closed or p.hi_closed != q.hi_closed:
            return False
        results.append(elements_equal(p.lo, q.lo, rel_tol=rel_tol, abs_tol=abs_tol))
        results.append(elements_equal(p.hi, q.hi, rel_tol=rel_tol, abs_tol=abs_tol))
    return _all(results)


def matrices_equal(a: Matrix, b: Matrix, *, rel_tol: float = 0.0, abs_tol: float = 0.0) -> bool | None:
    """Same shape and equal entries; ``pmatrix`` vs ``bmatrix`` is the same matrix. A determinant
    (``vmatrix``) against a matrix is undecided (``None``)."""
    if a.is_determinant != b.is_determinant:
        return None
    if len(a.rows) != len(b.rows) or any(len(r) != len(s) for r, s in zip(a.rows, b.rows, strict=True)):
        return False
    return _all(
        [elements_equal(x, y, rel_tol=rel_tol, abs_tol=abs_tol) for r, s in zip(a.rows, b.rows, strict=True) for x, y in zip(r, s, strict=True)]
    )
