"""Guarded parsing to sympy: tokenize, parse, guard, then convert (sympy is imported lazily)."""

from __future__ import annotations

import math
import re
import threading
from fractions import Fraction
from functools import lru_cache
from typing import Any

from verifier_runtime.limits import MAX_ANSWER_CHARS, MAX_EXPR_DEPTH, check_deadline, note_limit
from verifier_runtime.toolkit.latex.guard import LimitRefused, _guard
from verifier_runtime.toolkit.latex.parser import _Parser
from verifier_runtime.toolkit.latex.tokens import Node, ParseRefused, _tokenize
from verifier_runtime.toolkit.numbers import Number, strip_math_delimiters

_SYMPY_LOCK = threading.Lock()
_SYMPY: Any = None


def _sympy() -> Any:
    global _SYMPY
    if _SYMPY is None:
        with _SYMPY_LOCK:
            if _SYMPY is None:
                import sympy

                _SYMPY = sympy
    return _SYMPY


def _to_sympy(n: Node) -> Any:
    v = _build(n)
    return _rational(v) if type(v) is Fraction else v


def _rational(v: Fraction) -> Any:
    sp = _sympy()
    return sp.Integer(v.numerator) if v.denominator == 1 else sp.Rational(v.numerator, v.denominator)


def _sym(v: Any) -> Any:
    return _rational(v) if type(v) is Fraction else v


def _build(n: Node) -> Any:
    """``n`` in sympy, or as a :class:`~fractions.Fraction` where it is an exact rational.

    A subtree of rational numbers under ``add``, ``mul``, ``neg``, ``inv``, an integer power (no
    zero base under a negative one), a factorial of a whole number or a binomial of whole
    numbers is the rational sympy would build from it: evaluating such rational arithmetic is
    what sympy does when it constructs those nodes, and the guard has bounded every size first.
    Building it with Fractions skips sympy's construction machinery; the caller turns a
    Fraction into the sympy Rational."""
    sp = _sympy()
    check_deadline()
    tag = n[0]
    if tag == "num":
        return n[1]
    if tag == "sym":
        return sp.Symbol(n[1])
    if tag == "const":
        return {"pi": sp.pi, "E": sp.E, "I": sp.I, "oo": sp.oo}[n[1]]
    if tag == "add" or tag == "mul":
        parts = [_build(c) for c in n[1]]
        if all(type(p) is Fraction for p in parts):
            out = parts[0]
            for p in parts[1:]:
                out = out + p if tag == "add" else out * p
            return out
        return (sp.Add if tag == "add" else sp.Mul)(*[_sym(p) for p in parts])
    if tag == "neg":
        return -_build(n[1])
    if tag == "inv":
        d = _build(n[1])
        if d == 0:
            raise ParseRefused("division by zero")
        return 1 / d if type(d) is Fraction else sp.Pow(d, -1)
    if tag == "pow":
        b, e = _build(n[1]), _build(n[2])
        if type(b) is Fraction and type(e) is Fraction and e.denominator == 1 and (b != 0 or e >= 0):
            return b ** e.numerator
        return sp.Pow(_sym(b), _sym(e))
    if tag == "deg":
        return _to_sympy(n[1]) * sp.pi / 180
    if tag == "fact":
        a = _build(n[1])
        if type(a) is Fraction and a.denominator == 1 and a >= 0:
            return Fraction(math.factorial(a.numerator))
        return sp.factorial(_sym(a))
    if tag == "binom":
        top, k = _build(n[1]), _build(n[2])
        if type(top) is Fraction and type(k) is Fraction and top.denominator == k.denominator == 1 and top >= 0 and k >= 0:
            return Fraction(math.comb(top.numerator, k.numerator))
        return sp.binomial(_sym(top), _sym(k))
    if tag == "root":
        return sp.root(_to_sympy(n[1]), _to_sympy(n[2]))
    if tag == "log":
        base = _to_sympy(n[1]) if n[1] is not None else None
        arg = _to_sympy(n[2])
        return sp.log(arg, base) if base is not None else sp.log(arg)
    if tag == "func":
        name = n[1]
        args = [_to_sympy(c) for c in n[2]]
        if name == "ln":
            return sp.log(*args)
        if name == "log":
            return sp.log(*args)  # natural log; write \log_{10} for base ten
        if name == "lg":
            return sp.log(args[0], 10)
        if name == "abs":
            return sp.Abs(*args)
        if name == "sqrt":
            return sp.sqrt(*args)
        return getattr(sp, name)(*args)
    raise ParseRefused(f"unknown node {tag}")


@lru_cache(maxsize=4096)
def converted(node: Node) -> Any:
    """:func:`_to_sympy` once per distinct tree: two spellings of one expression (``x^{2}`` and
    ``x^2``, ``\\frac{1}{2}`` and ``1/2``) parse to one tree and share its sympy value. A tree is a
    hashable, immutable tuple and sympy values are immutable; a tree that fails is not kept."""
    return _to_sympy(node)


# --- public parsing ----------------------------------------------------------------------------


# "{}_{5}C_{2}", "^5C_2", "_5C_2": the number of combinations (n written before C, k after), also "P" for
# permutations; not after a symbol ("x_5C_2" is x_5 times C_2), and "C_5^2" stays a squared constant
_N = r"\{?\s*+(?P<%s>\d{1,4})\s*+\}?"
_CHOOSE_BEFORE_RE = re.compile(r"(?:\{\s*\}|(?<![A-Za-z0-9}\\]))[_^]" + _N % "n" + r"\s*+(?P<op>[CP])_" + _N % "k")


def _choose(m: re.Match[str]) -> str:
    n, k = m.group("n"), m.group("k")
    if m.group("op") == "C":
        return f"\\binom{{{n}}}{{{k}}}"
    return f"\\frac{{{n}!}}{{({n}-{k})!}}"


# R4.1: a complex number in cis form, "r \\operatorname{cis}(t)", "r\\,\\text{cis}\\,60^\\circ", "r cis t":
# r(cos t + i sin t)
_CIS_RE = re.compile(r"(?:\\operatorname\s*+\{\s*+cis\s*+\}|\\(?:text|mathrm|rm)\s*+\{\s*+cis\s*+\}|(?<![A-Za-z\\])cis(?=[ \t]*+[(\d\\{]))"
                     r"(?:\s|\\[,;: !]|~)*+")  # (a bare "cis" before its argument: not "cis-2-butene", "the cis isomer")
_CIS_PAIRS = {"(": ")", "{": "}", "[": "]"}
_CIS_BARE_END = frozenset("+-=,;<>")


def _cis_argument(s: str, k: int) -> int:
    """Where the argument of a cis starting at ``k`` ends: a bracketed group, or the rest of the text
    up to a top-level "+", "-", "=", ","; ``-1`` when there is none."""
    if k >= len(s):
        return -1
    if s[k] in _CIS_PAIRS:
        depth = 0
        for j in range(k, len(s)):
            if s[j] in "({[":
                depth += 1
            elif s[j] in ")}]":
                depth -= 1
                if depth == 0:
                    # "\\operatorname{cis}{\\frac{\\pi}{3}}" ends at its brace; "(\\pi/3)" at its parenthesis
                    return j + 1
        return -1
    depth = 0
    for j in range(k, len(s)):
        ch = s[j]
        if ch in "({[":
            depth += 1
        elif ch in ")}]":
            depth -= 1
            if depth < 0:
                return j
        elif depth == 0 and ch in _CIS_BARE_END and j > k:
            return j
    return len(s)


def _cis(s: str) -> str:
    """``r\\operatorname{cis}(t)`` written as ``r(\\cos(t) + i\\sin(t))``; the text unchanged where no
    argument follows the cis (at most three are read)."""
    for _ in range(3):
        m = _CIS_RE.search(s)
        if m is None:
            return s
        end = _cis_argument(s, m.end())
        arg = s[m.end():end].strip() if end > m.end() else ""
        if not arg:
            return s
        if arg[0] in "({[" and arg[-1] in ")}]":
            arg = arg[1:-1].strip()
        if not arg:
            return s
        s = f"{s[:m.start()]}(\\cos({arg}) + i\\sin({arg})){s[end:]}"
    return s


def _clean(s: str) -> str:
    s = strip_math_delimiters(s.strip())
    if s.endswith(".") and not s[-2:-1].isdigit():
        s = s[:-1].rstrip()
    s = s.replace("{,}", "").replace("\\%", "%")
    if "C_" in s or "P_" in s:
        s = _CHOOSE_BEFORE_RE.sub(_choose, s)
    if "cis" in s and len(s) <= 200:
        s = _cis(s)
    return s


def _pre_check(s: object) -> str | None:
    if not isinstance(s, str) or not s.strip() or len(s) > MAX_ANSWER_CHARS or "\x00" in s:
        return None
    if s.count("(") + s.count("{") + s.count("[") <= MAX_EXPR_DEPTH:
        return _clean(s)  # no deeper nesting than there are openers: the scan below cannot refuse
    depth = best = 0
    for ch in s:
        if ch in "({[":
            depth += 1
            best = max(best, depth)
        elif ch in ")}]":
            depth -= 1
    if best > MAX_EXPR_DEPTH:
        return None
    return _clean(s)


# Tokens that make a text no single expression: a relation, an equation, a list, a plus-minus
# ("=" and "," only as operators)
_REFUSED_TEXTS = frozenset({"=", ",", "<", ">", "le", "ge", "leq", "geq", "neq", "ne", "pm", "mp"})


def _refused(tokens: list[tuple[str, str]]) -> bool:
    for t in tokens:
        if t[1] in _REFUSED_TEXTS and (t[1] not in ("=", ",") or t[0] == "op"):
            return True
    return False


def parse_ast(s: object, *, imaginary_unit: bool = True) -> tuple[Node, float | None, int] | None:
    """The guarded AST of ``s`` with its constant-size bound and node count, or ``None``."""
    text = _pre_check(s)
    if not text:
        return None
    try:
        tokens = _tokenize(text)
        if not tokens:
            return None
        if _refused(tokens):
            return None
        use_i = imaginary_unit and not _subscript_i(tokens)
        node = _Parser(tokens, imaginary_unit=use_i).parse()
        size, count = _guard(node)
        return node, size, count
    except LimitRefused as e:
        note_limit(e.code)
        return None
    except (ParseRefused, ValueError, RecursionError, OverflowError, ZeroDivisionError, IndexError, TypeError):
        return None
    except Exception:  # noqa: BLE001 - a primitive never raises on input
        return None


def _subscript_i(tokens: list[tuple[str, str]]) -> bool:
    if ("op", "_") not in tokens:
        return False
    return any(tokens[k] == ("op", "_") and tokens[k + 1][1] in ("i", "{") and
               (tokens[k + 1][1] == "i" or (k + 2 < len(tokens) and tokens[k + 2][1] == "i"))
               for k in range(len(tokens) - 1))


def parse_expression(s: object, *, imaginary_unit: bool = True) -> Any:
    """LaTeX or plain math ``s`` as a sympy expression, or ``None`` (unparseable or over a limit)."""
    return _convert(parse_ast(s, imaginary_unit=imaginary_unit))


def _convert(parsed: tuple[Node, float | None, int] | None) -> Any:
    if parsed is None:
        return None
    try:
        return converted(parsed[0])
    except (ParseRefused, ValueError, TypeError, RecursionError, OverflowError, ZeroDivisionError, AttributeError):
        return None


def number_to_expr(n: Number) -> Any:
    """A :class:`Number` as an exact sympy Rational."""
    sp = _sympy()
    return sp.Rational(n.value.numerator, n.value.denominator)


def is_constant(expr: Any) -> bool:
    """Whether a sympy expression has no free symbols."""
    try:
        return not expr.free_symbols
    except AttributeError:
        return False



def parse_equation(s: object, *, imaginary_unit: bool = True) -> tuple[Any, Any] | None:
    """``"lhs = rhs"`` (exactly one top-level ``=``) as a pair of sympy expressions, or ``None``."""
    text = _pre_check(s)
    if not text or text.count("=") != 1 or any(op in text for op in ("<", ">", "\\le", "\\ge", "\\ne")):
        return None
    left, right = text.split("=")
    # both sides tokenized and parsed before either is built in sympy (the costly step): prose
    # after the "=" fails in the parser, and the left side is then never evaluated
    left_ast = parse_ast(left, imaginary_unit=imaginary_unit)
    right_ast = parse_ast(right, imaginary_unit=imaginary_unit) if left_ast is not None else None
    if right_ast is None:
        return None
    lhs = _convert(left_ast)
    rhs = _convert(right_ast) if lhs is not None else None
    if rhs is None:
        return None
    return lhs, rhs

