"""The typed comparator: parse an answer into one kind, compare two answers of any kinds.

``parse_answer`` tries a fixed cheap-first order: number, quantity (only when a unit is
written), matrix / interval / set / tuple (only when brackets, a union or an inequality
suggest it), equation (one ``=``), expression; plain words are kind ``"text"``.
``compare_answers`` returns a :class:`Comparison` whose ``equal`` is ``True``/``False`` when
decided and ``None`` when not (kinds that do not meet, limits, undecidable algebra); the
verdict policy (tolerances, what to do with ``None``) belongs to the calling module.

>>> answers_equivalent("0.5", "\\\\frac{1}{2}").equal
True
>>> answers_equivalent("\\\\sqrt{2}", "1.414").equal, answers_equivalent("\\\\sqrt{2}", "1.414", rel_tol=1e-3).equal
(False, True)
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from fractions import Fraction
from typing import Any

from verifier_runtime.limits import MAX_ANSWER_CHARS
from verifier_runtime.toolkit._memo import memoize_text
from verifier_runtime.toolkit.latex import (
    equations_equal,
    expressions_equal,
    numeric_value,
    parse_equation,
    parse_expression,
    values_equal,
)
from verifier_runtime.toolkit.numbers import (
    Number,
    collapse_spaces,
    numbers_close,
    parse_number,
    strip_math_delimiters,
)
from verifier_runtime.toolkit.structures import (
    TRANSPOSE_RE,
    Collection,
    Equation,
    IntervalSet,
    Matrix,
    collections_equal,
    elements_equal,
    expand_plus_minus,
    has_plus_minus,
    interval_sets_equal,
    matrices_equal,
    parse_collection,
    parse_interval_set,
    parse_matrix,
    tuple_as_interval,
)
from verifier_runtime.toolkit.text import french_intervals
from verifier_runtime.toolkit.units import (
    Quantity,
    compare_quantity_to_number,
    has_unit,
    parse_quantity,
    quantities_equal,
)

# Patterns of the parsing hot path, compiled once (re's own cache lookup costs per call).
_HAS_LETTER_RE = re.compile(r"[A-Za-z]")
_TEXT_CMD_RE = re.compile(r"\\(?:text|mathrm|textbf|mathbf|textit|emph)\{([^{}]*)\}")

__all__ = [
    "ANSWER_KINDS",
    "Answer",
    "Comparison",
    "parse_answer",
    "compare_answers",
    "answers_equivalent",
    "interpretations",
    "Ratio",
    "parse_ratio",
    "ratios_equal",
    "real_value",
]

ANSWER_KINDS = ("number", "quantity", "expression", "equation", "interval", "set", "tuple", "matrix", "ratio", "text")


@dataclass(frozen=True, slots=True)
class Ratio:
    """``a : b (: c ...)`` as exact terms; two ratios are equal when proportional (``12:8`` = ``3:2``)."""

    terms: tuple[Fraction, ...]
    text: str = ""


_RATIO_SEP = r"(?<!\s)\s*+(?::|\\colon|\\!:\\!|\bto\b)\s*"
_RATIO_RE = re.compile(r"^\s*([-+]?[\d.,]+(?:\s*[A-Za-z%]{0,3})?)((?:" + _RATIO_SEP + r"[-+]?[\d.,]+(?:\s*[A-Za-z%]{0,3})?)+)\s*$")
_RATIO_SPLIT_RE = re.compile(_RATIO_SEP)


def parse_ratio(s: object) -> Ratio | None:
    """``3:2``, ``3 : 2``, ``3 \\colon 2``, ``3 to 2``, ``1:2:3``; terms are plain numbers."""
    if not isinstance(s, str) or len(s) > 200 or (":" not in s and "colon" not in s and " to " not in s):
        return None
    m = _RATIO_RE.match(s)
    if not m:
        return None
    terms = []
    for part in _RATIO_SPLIT_RE.split(s.strip()):
        n = parse_number(part.strip())
        if n is None:
            return None
        terms.append(n.value)
    if len(terms) < 2 or all(t == 0 for t in terms):
        return None
    return Ratio(tuple(terms), s)


def ratios_equal(a: Ratio, b: Ratio) -> bool:
    """Proportional term by term (``12:8`` = ``3:2``, ``30:60:90`` = ``1:2:3``)."""
    if len(a.terms) != len(b.terms):
        return False
    k = next((i for i, t in enumerate(b.terms) if t != 0), None)
    if k is None or a.terms[k] == 0:
        return False
    scale = a.terms[k] / b.terms[k]
    return scale > 0 and all(x == scale * y for x, y in zip(a.terms, b.terms, strict=True))


@dataclass(frozen=True, slots=True)
class Answer:
    """A parsed answer. ``value`` by kind: Number, Quantity, sympy expression, Equation,
    IntervalSet, Collection (set/tuple), Matrix, or the normalised string (text)."""

    kind: str
    value: object
    text: str


@dataclass(frozen=True, slots=True)
class Comparison:
    """Outcome of comparing two answers: ``equal`` is ``None`` when undecided; ``detail`` is a short reason code."""

    equal: bool | None
    kind: str
    detail: str


_BRACKET_START = re.compile(r"^\s*(?:\\left\s*)?(?:[(\[]|\\\{|\\lbrace|\\langle|\u27e8)")
_SET_WORDS = re.compile(r"\\cup|\u222a|\\emptyset|\\varnothing|\u2205|\\mathbb\s*\{?R|\u211d")
_INEQ = re.compile(r"<|>|\\le|\\ge|\\lt|\\gt|\u2264|\u2265|\u2a7d|\u2a7e|\\in\b|\u2208")
_REALS_WORDS_RE = re.compile(r"\breal\s+(?:numbers?|values?|x)\b", re.IGNORECASE)


# "square units", "\text{ units}^2", "cubic units": a placeholder for whatever unit the figure has,
# no unit of measure (pint would read "units" as micro-nits)
_PLACEHOLDER_UNITS_RE = re.compile(
    r"(?<=[\d}a-zA-Z)])\s*+(?:\\(?:text|mathrm|textrm)\s*\{\s*)?(?:(?:square|sq\.?|cubic)\s+)?units?\s*+\}?"
    r"(?:\s*\^\s*\{?\s*[23]\s*\}?)?\s*$", re.IGNORECASE)


_SET_BUILDER_RE = re.compile(
    r"^\\(?:left\\)?\{\s*+(?P<var>[a-zA-Z])\s*+(?:(?:\\in|\u2208)\s*+\\mathbb\s*\{?R\}?\s*+)?"
    r"(?:\\mid|\\vert|\||:|\\colon|\\right\|)\s*+(?P<cond>[^{}]{1,200}?)\s*+\\(?:right\\)?\}$")


_FINITE_SET_RE = re.compile(r"(?:\\left)?\\\{(?P<items>[^{}\\]{0,200})(?:\\right)?\\\}")
_SET_UNION_RE = re.compile(r"^(?:(?:\\left)?\\\{[^{}\\]{0,200}(?:\\right)?\\\}\s*+\\cup\s*+)+"
                           r"(?:\\left)?\\\{[^{}\\]{0,200}(?:\\right)?\\\}$")


def _merged_sets(t: str) -> str:
    """A union of finite sets written out (``\\{1, 2\\} \\cup \\{3\\}``) as the one set it is;
    anything else as written."""
    if not _SET_UNION_RE.match(t):
        return t
    items = [m.group("items").strip() for m in _FINITE_SET_RE.finditer(t)]
    return "\\{" + ", ".join(i for i in items if i) + "\\}"


def _strip(s: str) -> str:
    t = strip_math_delimiters(s.strip())
    if t[:1] == "{" and t[-1:] == "}" and _one_group(t):
        t = t[1:-1].strip()  # "{5, 6}": a LaTeX group around the whole answer groups nothing
    if "\\cup" in t:
        t = _merged_sets(t)
    if "unit" in t or "Unit" in t:
        t = _PLACEHOLDER_UNITS_RE.sub("", t).strip() or t
    if t.startswith(("\\{", "\\left\\{")):
        m = _SET_BUILDER_RE.match(t)
        if m and _INEQ.search(m.group("cond")):
            t = m.group("cond").strip()  # {x | x > 0}: the condition is the set (an interval)
    return t


def _one_group(t: str) -> bool:
    """``t`` is one brace group from its first character to its last (``{a}{b}`` is two)."""
    depth = 0
    for k, ch in enumerate(t):
        if ch == "{" and (k == 0 or t[k - 1] != "\\"):
            depth += 1
        elif ch == "}" and (k == 0 or t[k - 1] != "\\"):
            depth -= 1
            if depth == 0 and k != len(t) - 1:
                return False
    return depth == 0


def _top_level_comma(t: str) -> bool:
    if "," not in t:
        return False
    depth = 0
    for ch in t:
        if ch in "([{":
            depth += 1
        elif ch in ")]}":
            depth -= 1
        elif ch == "," and depth == 0:
            return True
    return False


@memoize_text()
def parse_answer(s: object) -> Answer | None:
    """Parse ``s`` into a typed :class:`Answer`; ``None`` for empty, oversized or unparseable input."""
    if not isinstance(s, str) or len(s) > MAX_ANSWER_CHARS or "\x00" in s:
        return None
    try:
        return _parse_answer(s)
    except (ValueError, TypeError, RecursionError, AttributeError, ArithmeticError):
        return None


_DIGIT_COMMA_RE = re.compile(r"^[-+]?\d+,\d+(?:\s+\S.*)?$")
_THOUSANDS_RE = re.compile(r"^[-+]?\d{1,3}(?:,\d{3})+(?:\.\d+)?(?!\d)")
_PROSE = re.compile(r"(?<![A-Za-z])[A-Za-z]{2,}+[,;:]?\s++[A-Za-z]{2,}+[,;:]?\s++[A-Za-z]{2,}"
                    # or an English function word before another word or a number ("in 1977", "of the")
                    r"|(?<![A-Za-z])(?:in|on|at|of|the|and|is|was|by|for|from|with)\s++[A-Za-z0-9]", re.IGNORECASE)


def _parse_answer(s: str) -> Answer | None:
    t = _strip(s)
    if "]" in t or "[" in t:
        t = french_intervals(t)
    if not t:
        return None
    n = parse_number(t)
    if n is not None:
        return Answer("number", n, s)
    if has_unit(t):
        q = parse_quantity(t)
        if q is not None:
            return Answer("quantity", q, s)
    if ":" in t or "colon" in t or " to " in t:
        r = parse_ratio(t)
        if r is not None:
            return Answer("ratio", r, s)
    if _DIGIT_COMMA_RE.match(t):
        # "12,3456 g", "3,75 m": digits around a comma with no space are one number, not a list
        q = parse_quantity(t.replace(",", ".", 1)) if not _THOUSANDS_RE.match(t) else None
        if q is not None:
            return Answer("quantity", q, s)
    if t.startswith("\\begin") or t.startswith("\\left(\\begin") or t.startswith("\\left[\\begin") or t.startswith("[[") or (
            "^" in t and t[:1] in "([\u27e8" and TRANSPOSE_RE.search(t)):  # "(1, 2)^T": a column (R4.4)
        m = parse_matrix(t)
        if m is not None:
            return Answer("matrix", m, s)
    if "nfinit" in t or (len(t) <= 5 and t.lstrip("+-\u2212 ").lower() == "inf"):
        inf = _infinity_word(t)
        if inf is not None:
            return Answer("expression", inf, s)
    bracketed = bool(_BRACKET_START.match(t))
    if "real" in t.lower() and _REALS_WORDS_RE.search(t):  # every spelling it matches lower-cases to "real"
        iv = parse_interval_set(t)
        if iv is not None:
            return Answer("interval", iv, s)
    if not bracketed and "\\" not in t and _PROSE.search(t) and not _SET_WORDS.search(t) and not _INEQ.search(t):
        return Answer("text", _normal_text(t), s)  # prose (three words in a row): no math parser can read it
    if bracketed or _top_level_comma(t) or _SET_WORDS.search(t):
        c = parse_collection(t)
        if c is not None:
            return Answer("set" if c.bracket in ("{", "") else "tuple", c, s)
    if bracketed or _SET_WORDS.search(t) or _INEQ.search(t) or "\\neq" in t or "\u2260" in t or "!=" in t:
        iv = parse_interval_set(t)  # ("x \\neq 2": the reals without 2)
        if iv is not None:
            return Answer("interval", iv, s)
    if has_plus_minus(t):
        pm = expand_plus_minus(t)
        if pm is not None:
            return Answer("set", pm, s)
    if t.count("=") == 1:
        eq = parse_equation(t)
        if eq is not None:
            return Answer("equation", Equation(eq[0], eq[1], t), s)
    e = parse_expression(t)
    if e is not None:
        return Answer("expression", e, s)
    words = _normal_text(t)
    if _HAS_LETTER_RE.search(words) and "\\" not in words:
        return Answer("text", words, s)
    return None  # LaTeX that is not math we can read (\frac{0}{0}) is not text either


_INFINITY_RE = re.compile(r"^(?:(?P<neg>-|\u2212|minus\s++|negative\s++)|\+|plus\s++|positive\s++)?(?:infinity|inf)$", re.IGNORECASE)


def _infinity_word(t: str) -> Any:
    """``\\infty`` (or its negative) for the word: "infinity", "\\text{infinity}", "negative infinity"."""
    m = _INFINITY_RE.match(_normal_text(t))
    if m is None:
        return None
    from verifier_runtime.toolkit.latex.convert import _sympy

    oo = _sympy().oo
    return -oo if m.group("neg") else oo


def _normal_text(t: str) -> str:
    if "\\" in t:  # a text command starts with a backslash
        t = _TEXT_CMD_RE.sub(r"\1", t)
    return collapse_spaces(t).strip().rstrip(".").casefold()


def interpretations(answer: Answer) -> tuple[str, ...]:
    """Every kind ``answer`` can be read as: ``(0, 1)`` is both a ``"tuple"`` and an ``"interval"``."""
    if answer.kind == "tuple" and isinstance(answer.value, Collection) and tuple_as_interval(answer.value):
        return ("tuple", "interval")
    return (answer.kind,)


def _cmp(equal: bool | None, kind: str, detail: str) -> Comparison:
    return Comparison(equal, kind, detail if equal is not None else (detail if ":" in detail else "undecidable"))


def compare_answers(a: Answer, b: Answer, *, rel_tol: float = 0.0, abs_tol: float = 0.0) -> Comparison:
    """Compare two answers; kinds that cannot meet give ``equal=None`` with detail ``"kind_mismatch"``."""
    try:
        return _compare(a, b, rel_tol, abs_tol)
    except (ValueError, TypeError, RecursionError, AttributeError, ArithmeticError):
        return Comparison(None, getattr(a, "kind", "?"), "error")


def _tol_detail(prefix: str, rel_tol: float, abs_tol: float) -> str:
    return f"{prefix}:{'rel_tol' if rel_tol else 'abs_tol'}" if (rel_tol or abs_tol) else f"{prefix}:exact"


def _compare(a: Answer, b: Answer, rel_tol: float, abs_tol: float) -> Comparison:
    if not isinstance(a, Answer) or not isinstance(b, Answer):
        return Comparison(None, "", "unparsed")
    if not (_valid(a) and _valid(b)):
        return Comparison(None, a.kind, "invalid_answer")
    ka, kb = a.kind, b.kind
    if ka == kb and _strip(a.text) == _strip(b.text) and ka != "text":
        return Comparison(True, ka, "identical")
    if ka == kb:
        return _same_kind(a, b, rel_tol, abs_tol)
    kinds = {ka, kb}
    if kinds == {"number", "expression"}:
        r = values_equal(a.value, b.value, rel_tol=rel_tol, abs_tol=abs_tol)
        return _cmp(r, "number", _tol_detail("number_expr", rel_tol, abs_tol))
    if kinds == {"number", "quantity"}:
        q, n = (a.value, b.value) if ka == "quantity" else (b.value, a.value)
        r = compare_quantity_to_number(q, n, rel_tol=max(rel_tol, 1e-12))
        return _cmp(r, "quantity", "quantity:dimensionless" if r is not None else "quantity:bare_number")
    if kinds == {"number", "equation"}:
        return _number_vs_equation(*((a, b) if ka == "number" else (b, a)), rel_tol, abs_tol)
    if kinds == {"tuple", "interval"}:
        r = elements_equal(a.value, b.value, rel_tol=rel_tol, abs_tol=abs_tol)
        return _cmp(r, "interval", "interval:tuple_as_interval")
    if kinds == {"set", "tuple"}:
        r = collections_equal(a.value, b.value, rel_tol=rel_tol, abs_tol=abs_tol)
        return _cmp(r, "set", "set:elementwise" if r is not None else "set:order_ambiguous")
    return Comparison(None, f"{ka}/{kb}", "kind_mismatch")


_VALUE_TYPES: dict[str, type | tuple[type, ...]] = {
    "number": Number, "quantity": Quantity, "equation": Equation, "interval": IntervalSet,
    "set": Collection, "tuple": Collection, "matrix": Matrix, "ratio": Ratio, "text": str,
}


def _valid(a: Answer) -> bool:
    """The value has the type its kind promises (answers built by hand may not)."""
    if a.kind == "expression":
        return hasattr(a.value, "free_symbols") and hasattr(a.value, "evalf")
    t = _VALUE_TYPES.get(a.kind)
    return t is not None and isinstance(a.value, t) and isinstance(a.text, str)


def _number_vs_equation(num: Answer, eq: Answer, rel_tol: float, abs_tol: float) -> Comparison:
    """``x = 3`` (read as the number 3) against an equation: as equations when the number was
    written as an assignment, else against ``symbol = constant`` (``3 = x``)."""
    written = parse_equation(_strip(num.text))
    e: Any = eq.value
    if written is not None:
        r = equations_equal(written, (e.lhs, e.rhs))
        return _cmp(r, "equation", "equation:proportional")
    for side, other in ((e.lhs, e.rhs), (e.rhs, e.lhs)):
        if getattr(side, "is_Symbol", False) and not getattr(other, "free_symbols", {1}):
            r = values_equal(num.value, other, rel_tol=rel_tol, abs_tol=abs_tol)
            return _cmp(r, "number", "number_equation:assignment")
    return Comparison(None, "number/equation", "kind_mismatch")


def _same_kind(a: Answer, b: Answer, rel_tol: float, abs_tol: float) -> Comparison:
    k = a.kind
    va: Any = a.value
    vb: Any = b.value
    if k == "number":
        if isinstance(va, Number) and isinstance(vb, Number) and va.value == vb.value:
            return Comparison(True, k, "number:exact")
        if rel_tol or abs_tol:
            return Comparison(numbers_close(va, vb, rel_tol=rel_tol, abs_tol=abs_tol), k, _tol_detail("number", rel_tol, abs_tol))
        return Comparison(False, k, "number:exact")
    if k == "quantity":
        if isinstance(va, Quantity) and isinstance(vb, Quantity) and va.dimensionality != vb.dimensionality:
            return Comparison(None, k, "quantity:dimension_mismatch")
        r = quantities_equal(va, vb, rel_tol=rel_tol, abs_tol=abs_tol)
        return _cmp(r, k, "quantity:converted")
    if k == "expression":
        if va == vb:
            return Comparison(True, k, "expr:structural")
        r = expressions_equal(va, vb, rel_tol=rel_tol, abs_tol=abs_tol)
        return _cmp(r, k, "expr:numeric")
    if k == "equation":
        r = equations_equal((va.lhs, va.rhs), (vb.lhs, vb.rhs))
        return _cmp(r, k, "equation:proportional")
    if k == "interval":
        r = interval_sets_equal(va, vb, rel_tol=rel_tol, abs_tol=abs_tol)
        return _cmp(r, k, "interval:normalised")
    if k in ("set", "tuple"):
        r = collections_equal(va, vb, rel_tol=rel_tol, abs_tol=abs_tol)
        pair = k == "tuple" and len(va.items) == 2
        if pair and r is True and va.bracket != vb.bracket and {va.bracket, vb.bracket} <= {"(", "["}:
            # (0, 1) vs [0, 1]: as pairs they agree, as intervals they do not
            return Comparison(None, k, "tuple:bracket_ambiguous")
        return _cmp(r, k, f"{k}:elementwise")
    if k == "matrix":
        if isinstance(va, Matrix) and isinstance(vb, Matrix) and va.is_determinant != vb.is_determinant:
            return Comparison(None, k, "matrix:determinant_vs_matrix")
        r = matrices_equal(va, vb, rel_tol=rel_tol, abs_tol=abs_tol)
        return _cmp(r, k, "matrix:elementwise")
    if k == "ratio":
        r = ratios_equal(va, vb)
        return Comparison(r, k, "ratio:proportional")
    if k == "text":
        if va == vb:
            return Comparison(True, k, "text:exact")
        return Comparison(None, k, "text:differ")
    return Comparison(None, k, "undecidable")


def real_value(a: Answer | None) -> float | None:
    """The real value of a parsed number or constant expression, or ``None`` (another kind, a
    free symbol, a complex value, a value this cannot evaluate)."""
    if a is None:
        return None
    if a.kind == "number":
        return float(a.value.value)
    if a.kind != "expression":
        return None
    v = numeric_value(a.value)
    if v is None or getattr(v, "imag", 0) != 0:
        return None
    try:
        return float(v.real)
    except (TypeError, ValueError, OverflowError):
        return None


def answers_equivalent(a: str, b: str, *, rel_tol: float = 0.0, abs_tol: float = 0.0) -> Comparison:
    """Parse both strings and compare them; ``equal=None`` with detail ``"unparsed"`` if either fails."""
    pa, pb = parse_answer(a), parse_answer(b)
    if pa is None or pb is None:
        return Comparison(None, (pa or pb).kind if (pa or pb) else "", "unparsed")
    return compare_answers(pa, pb, rel_tol=rel_tol, abs_tol=abs_tol)

