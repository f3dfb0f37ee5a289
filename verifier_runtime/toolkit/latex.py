"""LaTeX and plain math to sympy, with hard limits enforced before any symbolic work.

A small tokenizer and recursive-descent parser build a tuple AST; a guard pass checks depth,
node count, literal digits and bounds the size of every constant sub-expression (powers,
factorials, binomials, ``exp``) so no huge integer is ever built; only then is sympy imported
(lazily) and the AST converted. Equality is decided by (1) structural comparison, (2) numeric
evaluation at fixed pseudo-random points at bounded precision, (3) a bounded ``simplify`` on
small expressions only. Every public function returns ``None`` instead of raising.

Conventions (documented in ``docs/toolkit-math.md``): ``e`` is Euler's number; ``i`` is the
imaginary unit unless it appears in a subscript (``x_i``) or ``imaginary_unit=False``; runs of
letters are products of single-letter symbols (``xy``) except known names (``sin``, ``pi``);
plain ``2^10`` is 1024 while LaTeX ``2^{10}`` is required for multi-token exponents;
``60^\\circ`` is ``60*pi/180``.
"""

from __future__ import annotations

import math
import random
import re
import threading
from fractions import Fraction
from typing import Any

from verifier_runtime.limits import (
    MAX_ANSWER_CHARS,
    MAX_EXPONENT,
    MAX_EXPR_DEPTH,
    MAX_EXPR_NODES,
    MAX_FACTORIAL_ARG,
    MAX_LITERAL_DIGITS,
    check_deadline,
)
from verifier_runtime.toolkit.numbers import Number

__all__ = [
    "ParseRefused",
    "parse_expression",
    "expressions_equal",
    "parse_equation",
    "equations_equal",
    "number_to_expr",
    "values_equal",
    "is_constant",
    "numeric_value",
]

#: Largest constant a guarded expression may denote, as log10 of its magnitude (digits).
MAX_CONSTANT_DIGITS = 4_000  # also keeps every integer printable (Python refuses str() past 4,300 digits)
#: Points at which expressions with free symbols are compared.
EVAL_POINTS = 6
#: Expressions up to this many AST nodes may reach ``sympy.simplify`` as a last resort.
SIMPLIFY_MAX_NODES = 40

Node = tuple


class ParseRefused(Exception):
    """Internal: input is not a supported expression, or exceeds a hard limit."""


# --- tokenizer ---------------------------------------------------------------------------------

_FUNCS = {
    "sin": "sin", "cos": "cos", "tan": "tan", "sec": "sec", "csc": "csc", "cot": "cot",
    "arcsin": "asin", "arccos": "acos", "arctan": "atan", "asin": "asin", "acos": "acos",
    "atan": "atan", "sinh": "sinh", "cosh": "cosh", "tanh": "tanh", "log": "log", "ln": "ln",
    "lg": "lg", "exp": "exp", "sqrt": "sqrt", "abs": "abs", "arcsec": "asec", "arccsc": "acsc",
    "arccot": "acot", "cosec": "csc",
}
_INVERSE = {"sin": "asin", "cos": "acos", "tan": "atan", "sec": "asec", "csc": "acsc", "cot": "acot"}
_GREEK = {
    "alpha", "beta", "gamma", "delta", "epsilon", "varepsilon", "zeta", "eta", "theta", "vartheta",
    "iota", "kappa", "lambda", "mu", "nu", "xi", "rho", "sigma", "tau", "upsilon", "phi", "varphi",
    "chi", "psi", "omega", "Gamma", "Delta", "Theta", "Lambda", "Xi", "Sigma", "Phi", "Psi", "Omega",
}
_PLAIN_NAMES = sorted([*_FUNCS, "pi", "inf", "oo", "infty"], key=len, reverse=True)
# The first alternative that matches wins, as in the names' order above; a lone letter otherwise.
_NAME_RE = re.compile("|".join(re.escape(n) for n in _PLAIN_NAMES) + "|.", re.DOTALL)
_STOP_WORDS = {
    "no", "or", "is", "it", "an", "of", "to", "on", "at", "by", "if", "so", "up", "as", "be",
    "we", "he", "me", "my", "do", "go", "us", "am",
    "yes", "not", "and", "the", "all", "odd", "one", "two", "six", "ten", "any", "nor", "but",
    "for", "are", "was", "has", "had", "its", "can", "may", "off", "out", "low", "max", "min",
    "mod", "gcd", "lcm", "det", "dim", "ker", "deg", "arg", "lim", "sup", "inf", "int", "sum",
}
_SKIP_CMDS = {
    "left", "right", "big", "Big", "bigg", "Bigg", "bigl", "bigr", "Bigl", "Bigr", "biggl", "biggr",
    "displaystyle", "textstyle", "quad", "qquad", "limits", "nolimits", "!", ",", ";", ":", " ",
}
_WRAP_CMDS = {"mathrm", "text", "mathit", "mathbf", "boldsymbol", "textbf", "textit", "mathsf", "rm", "boxed"}
_TOKEN_RE = re.compile(
    r"(?P<num>(?:\d+(?:\.\d*)?|\.\d+)(?:[eE][-+]?\d+)?)|(?P<cmd>\\(?:[A-Za-z]+|.))|(?P<word>[A-Za-z]+)"
    r"|(?P<op>\*\*|[-+*/^_!(){}\[\]|,=<>'])|(?P<ws>\s+)|(?P<uni>.)",
    re.S,
)
_UNICODE = {
    "\u2212": "-", "\u2013": "-", "\u00d7": "*", "\u00b7": "*", "\u22c5": "*", "\u00f7": "/",
    "\u03c0": "\\pi", "\u221e": "\\infty", "\u221a": "\\sqrt", "\u00b0": "\\degree", "\u2009": " ",
    "\u202f": " ", "\u00a0": " ",
}


def _tokenize(s: str) -> list[tuple[str, str]]:
    """Tokens as (type, text); types: num, cmd, name, op."""
    out: list[tuple[str, str]] = []
    for m in _TOKEN_RE.finditer(s):
        kind = m.lastgroup
        text = m.group()
        if kind == "ws":
            continue
        if kind == "uni":
            rep = _UNICODE.get(text)
            if rep is None:
                raise ParseRefused(f"unsupported character {text!r}")
            if rep.strip():
                out.extend(_tokenize(rep))
            continue
        if kind == "cmd":
            name = text[1:]
            if name in _SKIP_CMDS:
                continue
            if name in ("{", "}"):
                out.append(("op", name))
                continue
            if name == "|":
                out.append(("op", "|"))
                continue
            out.append(("cmd", name))
            continue
        if kind == "word":
            out.extend(_split_word(text))
            continue
        out.append((kind or "op", text))
    if len(out) > MAX_EXPR_NODES * 2:
        raise ParseRefused("too many tokens")
    return out


def _split_word(w: str) -> list[tuple[str, str]]:
    """Split a run of letters into known names and single-letter symbols; refuse plain words."""
    if w.lower() in _STOP_WORDS:
        raise ParseRefused(f"word {w!r}")
    parts = [("name", m) for m in _NAME_RE.findall(w)]
    stray = sum(1 for _, m in parts if len(m) == 1)
    if len(w) >= 4 and stray >= 3:
        raise ParseRefused(f"word {w!r}")
    return parts


# --- parser ------------------------------------------------------------------------------------


_NOT_PRIMARY = {"cdot", "times", "div", "ast", "pm", "mp", "circ", "rfloor", "rceil", "rvert", "rVert", "vert"}


def _plain_capital(node: Node) -> bool:
    """A lone capital-letter symbol without subscript (``A``, not ``A_1`` or ``x``)."""
    return node[0] == "sym" and len(node[1]) == 1 and "A" <= node[1] <= "Z"


class _Parser:
    """Recursive descent over the token list; produces tuple nodes."""

    def __init__(self, tokens: list[tuple[str, str]], *, imaginary_unit: bool) -> None:
        self.t = tokens
        self.i = 0
        self.depth = 0
        self.abs_depth = 0
        self.imaginary = imaginary_unit

    # helpers
    def peek(self, k: int = 0) -> tuple[str, str] | None:
        j = self.i + k
        return self.t[j] if j < len(self.t) else None

    def at(self, kind: str, text: str | None = None) -> bool:
        p = self.peek()
        return p is not None and p[0] == kind and (text is None or p[1] == text)

    def take(self) -> tuple[str, str]:
        p = self.peek()
        if p is None:
            raise ParseRefused("unexpected end")
        self.i += 1
        return p

    def expect(self, kind: str, text: str) -> None:
        p = self.take()
        if p != (kind, text):
            raise ParseRefused(f"expected {text!r}, got {p[1]!r}")

    def enter(self) -> None:
        self.depth += 1
        if self.depth > MAX_EXPR_DEPTH:
            raise ParseRefused("nesting too deep")

    # grammar
    def parse(self) -> Node:
        node = self.expr()
        if self.peek() is not None:
            raise ParseRefused(f"unexpected {self.peek()[1]!r}")
        return node

    def expr(self) -> Node:
        self.enter()
        terms = [self.term()]
        while self.at("op", "+") or self.at("op", "-"):
            op = self.take()[1]
            t = self.term()
            terms.append(t if op == "+" else ("neg", t))
        self.depth -= 1
        return terms[0] if len(terms) == 1 else ("add", tuple(terms))

    def term(self) -> Node:
        factors = [self.unary()]
        while True:
            p = self.peek()
            if p is None:
                break
            if p in (("op", "*"), ("cmd", "cdot"), ("cmd", "times"), ("cmd", "ast")):
                self.take()
                factors.append(self.unary())
            elif p in (("op", "/"), ("cmd", "div")):
                self.take()
                factors.append(("inv", self.unary()))
            elif self.starts_primary(p):
                factor = self.power()
                if _plain_capital(factors[-1]) and _plain_capital(factor):
                    # "CNC", "ATG", "AB", "P(A)": capitals written side by side name something
                    # (a molecule, a sequence, a segment, an event); as a commutative product
                    # "CNC" would equal "CCN" and "ATG" would equal "GTA".
                    raise ParseRefused("juxtaposed capital letters: a name, not a product")
                factors.append(factor)
            else:
                break
        return factors[0] if len(factors) == 1 else ("mul", tuple(factors))

    def starts_primary(self, p: tuple[str, str]) -> bool:
        kind, text = p
        if kind in ("num", "name"):
            return True
        if kind == "op":
            return text in ("(", "{", "[") or (text == "|" and self.abs_depth == 0)
        return kind == "cmd" and text not in _NOT_PRIMARY

    def unary(self) -> Node:
        if self.at("op", "-"):
            self.take()
            self.enter()
            node = ("neg", self.unary())
            self.depth -= 1
            return node
        if self.at("op", "+"):
            self.take()
            return self.unary()
        return self.power()

    def power(self) -> Node:
        base = self.postfix(self.primary())
        if self.at("op", "^") or self.at("op", "**"):
            self.take()
            if self.at("cmd", "circ") or (self.at("op", "{") and self.peek(1) == ("cmd", "circ")):
                braced = self.at("op", "{")
                if braced:
                    self.take()
                self.take()
                if braced:
                    self.expect("op", "}")
                return self.postfix(("deg", base))
            self.enter()
            exp = self.exponent()
            self.depth -= 1
            return self.postfix(("pow", base, exp))
        return base

    def exponent(self) -> Node:
        if self.at("op", "{"):
            return self.group("{", "}")
        if self.at("op", "-"):
            self.take()
            return ("neg", self.exponent())
        base = self.postfix(self.primary())
        if self.at("op", "^") or self.at("op", "**"):
            self.take()
            self.enter()
            node = ("pow", base, self.exponent())
            self.depth -= 1
            return node
        return base

    def postfix(self, node: Node) -> Node:
        while True:
            if self.at("op", "!"):
                self.take()
                node = ("fact", node)
            elif self.at("cmd", "degree"):
                self.take()
                node = ("deg", node)
            else:
                return node

    def group(self, open_: str, close: str) -> Node:
        self.expect("op", open_)
        node = self.expr()
        self.expect("op", close)
        return node

    def braced_or_single(self) -> Node:
        """A LaTeX argument: ``{...}`` or a single token (``\\frac34``)."""
        if self.at("op", "{"):
            return self.group("{", "}")
        p = self.take()
        if p[0] == "num":
            if len(p[1]) > 1:
                if "." in p[1]:
                    raise ParseRefused("ambiguous argument")
                self.t.insert(self.i, ("num", p[1][1:]))  # "\frac34": one digit per argument
                return self.num_node(p[1][0])
            return self.num_node(p[1])
        if p[0] == "name" and len(p[1]) == 1:
            return ("sym", p[1])
        raise ParseRefused("bad argument")

    def num_node(self, text: str) -> Node:
        """A literal: integer, decimal or scientific (``2e3`` is 2000; ``2e`` is 2 times Euler's number)."""
        mant, _, exp_txt = text.lower().partition("e")
        digits = sum(c.isdigit() for c in mant)
        if digits > MAX_LITERAL_DIGITS or len(exp_txt.lstrip("+-").lstrip("0")) > 6:
            raise ParseRefused("literal too long")
        whole, _, frac = mant.partition(".")
        value = Fraction(int((whole or "0") + frac), 10 ** len(frac)) if frac else Fraction(int(whole or "0"))
        if exp_txt:
            exp = int(exp_txt)
            if abs(exp) > MAX_EXPONENT:
                raise ParseRefused("exponent too large")
            value *= Fraction(10) ** exp
        return ("num", value)

    def primary(self) -> Node:
        if self.depth > MAX_EXPR_DEPTH:
            raise ParseRefused("nesting too deep")
        return self._primary()

    def _primary(self) -> Node:
        p = self.take()
        kind, text = p
        if kind == "num":
            # LaTeX "\frac34" leaves single digits; a number token like "2e3" never arises here.
            return self.num_node(text)
        if kind == "op":
            if text == "(":
                node = self.expr()
                self.expect("op", ")")
                return node
            if text == "[":
                node = self.expr()
                self.expect("op", "]")
                return node
            if text == "{":
                node = self.expr()
                self.expect("op", "}")
                return node
            if text == "|":
                self.abs_depth += 1
                node = self.expr()
                self.expect("op", "|")
                self.abs_depth -= 1
                return ("func", "abs", (node,))
            raise ParseRefused(f"unexpected {text!r}")
        if kind == "name":
            return self.name(text)
        return self.command(text)

    def symbol(self, name: str) -> Node:
        if self.at("op", "_"):
            self.take()
            if self.at("op", "{"):
                self.take()
                sub = []
                while not self.at("op", "}"):
                    tok = self.take()
                    if tok[0] == "cmd" and tok[1] not in _GREEK:
                        raise ParseRefused("complex subscript")
                    sub.append(tok[1])
                    if len(sub) > 8:
                        raise ParseRefused("subscript too long")
                self.take()
                sub_txt = "".join(sub)
            else:
                tok = self.take()
                if tok[0] not in ("num", "name"):
                    raise ParseRefused("bad subscript")
                sub_txt = tok[1] if tok[0] == "name" else tok[1][0]
                if tok[0] == "num" and len(tok[1]) > 1:
                    raise ParseRefused("ambiguous subscript")
            return ("sym", f"{name}_{sub_txt}")
        return ("sym", name)

    def name(self, text: str) -> Node:
        if text in _FUNCS:
            return self.function(_FUNCS[text])
        if text == "pi":
            return ("const", "pi")
        if text in ("inf", "oo", "infty"):
            return ("const", "oo")
        if text == "e" and not self.at("op", "_"):
            return ("const", "E")
        if text == "i" and self.imaginary and not self.at("op", "_"):
            return ("const", "I")
        return self.symbol(text)

    def command(self, name: str) -> Node:
        if name in ("frac", "dfrac", "tfrac", "cfrac"):
            num = self.braced_or_single()
            den = self.braced_or_single()
            return ("mul", (num, ("inv", den)))
        if name in ("binom", "dbinom", "tbinom"):
            return ("binom", self.braced_or_single(), self.braced_or_single())
        if name == "sqrt":
            if self.at("op", "["):
                self.take()
                idx = self.expr()
                self.expect("op", "]")
                return ("root", self.braced_or_single(), idx)
            return ("func", "sqrt", (self.braced_or_single(),))
        if name in ("pi", "uppi"):
            return ("const", "pi")
        if name == "infty":
            return ("const", "oo")
        if name in ("exponentialE",):
            return ("const", "E")
        if name in ("imath", "mathrm_i"):
            return ("const", "I")
        if name in _GREEK:
            return self.symbol(name)
        if name in _FUNCS or name in ("arcsin", "arccos", "arctan"):
            return self.function(_FUNCS.get(name, name))
        if name in ("operatorname",):
            self.expect("op", "{")
            word = ""
            while not self.at("op", "}"):
                word += self.take()[1]
                if len(word) > 12:
                    raise ParseRefused("long operator name")
            self.take()
            if word not in _FUNCS:
                raise ParseRefused(f"unknown operator {word!r}")
            return self.function(_FUNCS[word])
        if name in _WRAP_CMDS:
            self.expect("op", "{")
            toks = []
            while not self.at("op", "}"):
                toks.append(self.take())
                if len(toks) > 3:
                    raise ParseRefused("text in expression")
            self.take()
            if len(toks) == 1 and toks[0][0] == "name" and len(toks[0][1]) == 1:
                return self.name(toks[0][1])
            if len(toks) == 1 and toks[0][0] == "num":
                return self.num_node(toks[0][1])
            raise ParseRefused("text in expression")
        if name in ("lvert", "vert", "rvert", "lVert", "rVert"):
            if name in ("rvert", "rVert"):
                raise ParseRefused("unmatched bar")
            node = self.expr()
            p = self.take()
            if p[0] != "cmd" or p[1] not in ("rvert", "vert", "rVert"):
                raise ParseRefused("unmatched bar")
            return ("func", "abs", (node,))
        if name in ("lfloor", "lceil"):
            node = self.expr()
            self.expect("cmd", "rfloor" if name == "lfloor" else "rceil")
            return ("func", "floor" if name == "lfloor" else "ceiling", (node,))
        raise ParseRefused(f"unsupported command \\{name}")

    def function(self, fname: str) -> Node:
        power: Node | None = None
        base: Node | None = None
        if fname == "log" and self.at("op", "_"):
            self.take()
            base = self.braced_or_single()
        if self.at("op", "^"):
            self.take()
            power = self.exponent()
            if power == ("neg", ("num", Fraction(1))) and fname in _INVERSE:
                fname, power = _INVERSE[fname], None
        if self.at("op", "(") or self.at("op", "{"):
            close = ")" if self.at("op", "(") else "}"
            self.take()
            self.enter()
            arg = self.expr()
            self.depth -= 1
            self.expect("op", close)
        else:
            # implicit argument: a product of powers up to the next operator or function
            factors = [self.power()]
            while (p := self.peek()) is not None and self.starts_primary(p) and not self._is_function(p):
                factors.append(self.power())
            arg = factors[0] if len(factors) == 1 else ("mul", tuple(factors))
        node: Node = ("log", base, arg) if base is not None else ("func", fname, (arg,))
        return ("pow", node, power) if power is not None else node

    @staticmethod
    def _is_function(p: tuple[str, str]) -> bool:
        return p[1] in _FUNCS or p[1] in ("frac", "dfrac", "tfrac")


# --- guards ------------------------------------------------------------------------------------

_LOG10_E = math.log10(math.e)


def _guard(node: Node) -> tuple[float | None, int]:
    """Bound the size of ``node``: (log10 bound of |value| for constants or None, node count).

    The bound covers both directions (huge and tiny values). Raises :class:`ParseRefused`
    when a power, factorial or binomial could exceed the limits.
    """
    count = [0]

    def walk(n: Node, depth: int) -> float | None:
        count[0] += 1
        if count[0] > MAX_EXPR_NODES:
            raise ParseRefused("too many nodes")
        if depth > MAX_EXPR_DEPTH * 2:
            raise ParseRefused("nesting too deep")
        tag = n[0]
        if tag == "num":
            v: Fraction = n[1]
            if v == 0:
                return 0.0
            return math.log10(max(abs(v.numerator), v.denominator))
        if tag == "const":
            return None if n[1] == "oo" else 1.0
        if tag == "sym":
            return None
        if tag in ("neg", "inv"):
            return walk(n[1], depth + 1)
        if tag in ("add", "mul"):
            sizes = [walk(c, depth + 1) for c in n[1]]
            if any(s is None for s in sizes):
                return None
            # a sum can cancel down to 1/(product of denominators): bound it by the sum of sizes too
            total = sum(sizes) + (math.log10(len(sizes)) if tag == "add" else 0.0)
            return _cap(total)
        if tag == "pow":
            b = walk(n[1], depth + 1)
            e = walk(n[2], depth + 1)
            return _cap(_pow_size(b, e, n[2]))
        if tag == "deg":
            return walk(n[1], depth + 1)
        if tag == "fact":
            a = walk(n[1], depth + 1)
            if a is None:
                return None
            bound = 10.0**a if a < 300 else math.inf
            if bound > MAX_FACTORIAL_ARG + 1:
                raise ParseRefused("factorial argument too large")
            return _cap(bound * math.log10(bound + 1) + 1)
        if tag == "binom":
            a, b = walk(n[1], depth + 1), walk(n[2], depth + 1)
            if a is None or b is None:
                return None
            na = 10.0**a if a < 300 else math.inf
            nb = 10.0**b if b < 300 else math.inf
            if min(na, nb) > MAX_FACTORIAL_ARG + 1:
                raise ParseRefused("binomial too large")
            return _cap(min(na, nb) * (a + 1))
        if tag == "root":
            x, idx = walk(n[1], depth + 1), walk(n[2], depth + 1)
            if idx is not None and idx > math.log10(MAX_EXPONENT) + 0.01:
                raise ParseRefused("root index too large")
            return x
        if tag == "log":
            if n[1] is not None:
                walk(n[1], depth + 1)
            walk(n[2], depth + 1)
            return None
        if tag == "func":
            sizes = [walk(c, depth + 1) for c in n[2]]
            a = sizes[0] if sizes else None
            if n[1] == "exp":
                return _cap(_pow_size(1.0, a, n[2][0]))
            if n[1] in ("sin", "cos", "tan", "sec", "csc", "cot", "sinh", "cosh", "tanh") and a is not None:
                if a > 60:
                    raise ParseRefused("trigonometric argument too large")
                if n[1] in ("sinh", "cosh", "tanh"):
                    return _cap(_pow_size(1.0, a, n[2][0]))
            if n[1] in ("sqrt", "abs", "floor", "ceiling"):
                return a
            return None if a is None else a + 2.0
        raise ParseRefused(f"unknown node {tag}")

    size = walk(node, 0)
    return size, count[0]


def _cap(size: float | None) -> float | None:
    if size is not None and size > MAX_CONSTANT_DIGITS:
        raise ParseRefused("constant too large")
    return size


def _pow_size(base: float | None, exp: float | None, exp_node: Node) -> float | None:
    if exp is None:
        # symbolic exponent: only evaluated numerically at small points; a constant huge base is still fine
        return None
    # exp is a log10 bound of the exponent's magnitude: the exponent may be as large as 10**exp
    if exp > math.log10(MAX_EXPONENT) + 1e-9:
        # allow exactly-known small exponents whose magnitude bound is loose (e.g. 10000)
        val = _exact_small(exp_node)
        if val is None or abs(val) > MAX_EXPONENT:
            raise ParseRefused("exponent too large")
        e_bound = float(abs(val))
    else:
        e_bound = 10.0**exp
    if base is None:
        return None
    return base * e_bound


def _exact_small(n: Node) -> Fraction | None:
    """Exact value of a small literal exponent (number or negated number), else None."""
    if n[0] == "num":
        return n[1]
    if n[0] == "neg" and n[1][0] == "num":
        return -n[1][1]
    return None


# --- conversion to sympy ------------------------------------------------------------------------

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
    sp = _sympy()
    check_deadline()
    tag = n[0]
    if tag == "num":
        v: Fraction = n[1]
        return sp.Integer(v.numerator) if v.denominator == 1 else sp.Rational(v.numerator, v.denominator)
    if tag == "const":
        return {"pi": sp.pi, "E": sp.E, "I": sp.I, "oo": sp.oo}[n[1]]
    if tag == "sym":
        return sp.Symbol(n[1])
    if tag == "neg":
        return -_to_sympy(n[1])
    if tag == "inv":
        d = _to_sympy(n[1])
        if d == 0:
            raise ParseRefused("division by zero")
        return sp.Pow(d, -1)
    if tag == "add":
        return sp.Add(*[_to_sympy(c) for c in n[1]])
    if tag == "mul":
        return sp.Mul(*[_to_sympy(c) for c in n[1]])
    if tag == "pow":
        return sp.Pow(_to_sympy(n[1]), _to_sympy(n[2]))
    if tag == "deg":
        return _to_sympy(n[1]) * sp.pi / 180
    if tag == "fact":
        return sp.factorial(_to_sympy(n[1]))
    if tag == "binom":
        return sp.binomial(_to_sympy(n[1]), _to_sympy(n[2]))
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


# --- public parsing ----------------------------------------------------------------------------

_WRAPPERS = (("$$", "$$"), ("$", "$"), ("\\(", "\\)"), ("\\[", "\\]"))


def _clean(s: str) -> str:
    s = s.strip()
    for left, right in _WRAPPERS:
        if len(s) >= len(left) + len(right) and s.startswith(left) and s.endswith(right):
            s = s[len(left) : len(s) - len(right)].strip()
    if s.endswith(".") and not s[-2:-1].isdigit():
        s = s[:-1].rstrip()
    s = s.replace("{,}", "").replace("\\%", "%")
    return s


def _pre_check(s: object) -> str | None:
    if not isinstance(s, str) or not s.strip() or len(s) > MAX_ANSWER_CHARS or "\x00" in s:
        return None
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


def parse_ast(s: object, *, imaginary_unit: bool = True) -> tuple[Node, float | None, int] | None:
    """The guarded AST of ``s`` with its constant-size bound and node count, or ``None``."""
    text = _pre_check(s)
    if not text:
        return None
    try:
        tokens = _tokenize(text)
        if not tokens:
            return None
        if any(t == ("op", "=") or t[1] in ("<", ">", "le", "ge", "leq", "geq", "neq", "ne") for t in tokens):
            return None
        if any(t[1] in ("pm", "mp") for t in tokens) or any(t == ("op", ",") for t in tokens):
            return None
        use_i = imaginary_unit and not _subscript_i(tokens)
        node = _Parser(tokens, imaginary_unit=use_i).parse()
        size, count = _guard(node)
        return node, size, count
    except (ParseRefused, ValueError, RecursionError, OverflowError, ZeroDivisionError, IndexError, TypeError):
        return None
    except Exception:  # noqa: BLE001 - a primitive never raises on input
        return None


def _subscript_i(tokens: list[tuple[str, str]]) -> bool:
    return any(tokens[k] == ("op", "_") and tokens[k + 1][1] in ("i", "{") and
               (tokens[k + 1][1] == "i" or (k + 2 < len(tokens) and tokens[k + 2][1] == "i"))
               for k in range(len(tokens) - 1))


def parse_expression(s: object, *, imaginary_unit: bool = True) -> Any:
    """LaTeX or plain math ``s`` as a sympy expression, or ``None`` (unparseable or over a limit)."""
    parsed = parse_ast(s, imaginary_unit=imaginary_unit)
    if parsed is None:
        return None
    try:
        return _to_sympy(parsed[0])
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


# --- equality ----------------------------------------------------------------------------------


def _as_expr(x: Any) -> Any:
    if isinstance(x, Number):
        return number_to_expr(x)
    if isinstance(x, str):
        return parse_expression(x)
    if isinstance(x, Fraction):
        return _sympy().Rational(x.numerator, x.denominator)
    if isinstance(x, int) and not isinstance(x, bool):
        return _sympy().Integer(x)
    try:
        if hasattr(x, "free_symbols") and hasattr(x, "evalf"):
            return x
    except Exception:  # noqa: BLE001 - foreign objects with odd attribute access
        return None
    return None


_TLS = threading.local()
#: Working precision of numeric checks, in bits (about 36 significant digits).
EVAL_PREC_BITS = 120
#: Relative noise margin of numeric checks (values agreeing this closely are equal).
NOISE = 1e-22
_MAX_TRIG_ARG_LOG2 = 4_000  # |argument| below 2**4000: reduction modulo pi stays cheap
_MAX_EXP_ARG = 1e12
_MAX_INT_POWER = 10**6


class _Unevaluable(Exception):
    """Internal: the expression cannot be evaluated numerically within bounds."""


def _ctx() -> Any:
    """A private mpmath context per thread (mpmath's global context is shared and mutable)."""
    ctx = getattr(_TLS, "ctx", None)
    if ctx is None:
        import mpmath

        ctx = mpmath.MPContext()
        ctx.prec = EVAL_PREC_BITS
        _TLS.ctx = ctx
    return ctx


def _point_values(n: int) -> list[tuple[Any, ...]]:
    """The fixed pseudo-random coordinates for ``n`` symbols, made once per thread and count."""
    cache = getattr(_TLS, "points", None)
    if cache is None:
        cache = _TLS.points = {}
    values = cache.get(n)
    if values is None:
        ctx = _ctx()
        rng = random.Random(20240611 + n)
        values = [tuple(ctx.mpf(repr(rng.uniform(0.2, 1.8))) for _ in range(n)) for _ in range(EVAL_POINTS)]
        if len(cache) < 64:
            cache[n] = values
    return values


def _points(symbols: list[Any]) -> list[dict[Any, Any]]:
    return [dict(zip(symbols, row, strict=True)) for row in _point_values(len(symbols))]


def _mp_eval(expr: Any, subs: dict[Any, Any], ctx: Any, budget: list[int]) -> Any:
    """Evaluate a sympy expression with mpmath at fixed precision, refusing unbounded work."""
    budget[0] -= 1
    if budget[0] < 0:
        raise _Unevaluable("too many nodes")
    if budget[0] % 64 == 0:
        check_deadline()
    sp = _sympy()
    if expr.is_Integer:
        return ctx.mpf(int(expr))
    if expr.is_Rational:
        return ctx.mpf(int(expr.p)) / int(expr.q)
    if expr.is_Float:
        return ctx.mpf(str(expr))
    if expr.is_Symbol:
        if expr not in subs:
            raise _Unevaluable("free symbol")
        return subs[expr]
    if expr is sp.pi:
        return +ctx.pi
    if expr is sp.E:
        return +ctx.e
    if expr is sp.I:
        return ctx.mpc(0, 1)
    if expr.is_Add:
        total = ctx.mpf(0)
        for a in expr.args:
            total += _mp_eval(a, subs, ctx, budget)
        return total
    if expr.is_Mul:
        prod = ctx.mpf(1)
        for a in expr.args:
            prod *= _mp_eval(a, subs, ctx, budget)
        return prod
    if expr.is_Pow:
        base = _mp_eval(expr.base, subs, ctx, budget)
        if expr.exp.is_Integer and abs(int(expr.exp)) <= _MAX_INT_POWER:
            e = int(expr.exp)
            if e < 0 and base == 0:
                raise _Unevaluable("division by zero")
            return base**e
        ev = _mp_eval(expr.exp, subs, ctx, budget)
        if abs(ev) > _MAX_EXP_ARG:
            raise _Unevaluable("exponent too large")
        if base == 0:
            raise _Unevaluable("zero base")
        return ctx.power(base, ev)
    name = type(expr).__name__
    fn = _MP_FUNCS.get(name)
    if fn is None or len(expr.args) != 1:
        if name == "binomial" and len(expr.args) == 2:
            n, k = (_mp_eval(a, subs, ctx, budget) for a in expr.args)
            if abs(n) > 10**6 or abs(k) > 10**6:
                raise _Unevaluable("binomial too large")
            return ctx.binomial(n, k)
        raise _Unevaluable(f"no numeric rule for {name}")
    arg = _mp_eval(expr.args[0], subs, ctx, budget)
    if name in _TRIG:
        if arg != 0 and ctx.mag(arg) > _MAX_TRIG_ARG_LOG2:
            raise _Unevaluable("argument too large")
    elif name == "exp":
        if ctx.re(arg) > _MAX_EXP_ARG:
            raise _Unevaluable("exp overflow")
    elif name in ("factorial", "gamma") and abs(arg) > 10**6:
        raise _Unevaluable("factorial too large")
    elif name in ("floor", "ceiling") and ctx.im(arg) != 0:
        raise _Unevaluable("complex floor")
    return fn(ctx, arg)


_TRIG = {"sin", "cos", "tan", "sec", "csc", "cot", "sinh", "cosh", "tanh"}
_MP_FUNCS = {
    "sin": lambda c, x: c.sin(x), "cos": lambda c, x: c.cos(x), "tan": lambda c, x: c.tan(x),
    "sec": lambda c, x: c.sec(x), "csc": lambda c, x: c.csc(x), "cot": lambda c, x: c.cot(x),
    "asin": lambda c, x: c.asin(x), "acos": lambda c, x: c.acos(x), "atan": lambda c, x: c.atan(x),
    "asec": lambda c, x: c.asec(x), "acsc": lambda c, x: c.acsc(x), "acot": lambda c, x: c.acot(x),
    "sinh": lambda c, x: c.sinh(x), "cosh": lambda c, x: c.cosh(x), "tanh": lambda c, x: c.tanh(x),
    "exp": lambda c, x: c.exp(x), "log": lambda c, x: c.log(x), "Abs": lambda c, x: abs(x),
    "factorial": lambda c, x: c.factorial(x), "gamma": lambda c, x: c.gamma(x),
    "floor": lambda c, x: c.floor(c.re(x)), "ceiling": lambda c, x: c.ceil(c.re(x)),
}


def _finite(ctx: Any, v: Any) -> bool:
    return bool(ctx.isfinite(ctx.re(v)) and ctx.isfinite(ctx.im(v)))


def numeric_value(expr: Any, subs: dict[Any, Any] | None = None) -> Any | None:
    """``expr`` (at ``subs``) as a finite mpmath number at ``EVAL_PREC_BITS``, or ``None``.

    Bounded: huge trigonometric arguments, exponents or factorials make it ``None`` instead of
    running an unbounded reduction.
    """
    ctx = _ctx()
    try:
        v = _mp_eval(expr, subs or {}, ctx, [MAX_EXPR_NODES * 4])
    except (_Unevaluable, ValueError, TypeError, ZeroDivisionError, OverflowError, ArithmeticError,
            AttributeError, RecursionError):
        return None
    return v if _finite(ctx, v) else None


def _numeric(expr: Any, subs: dict[Any, Any]) -> Any | None:
    return numeric_value(expr, subs)


def _close(va: Any, vb: Any, rel_tol: float, abs_tol: float) -> bool:
    ctx = _ctx()
    scale = max(abs(va), abs(vb), ctx.mpf(1))
    bound = max(ctx.mpf(NOISE) * scale, ctx.mpf(repr(float(rel_tol))) * scale, ctx.mpf(repr(float(abs_tol))))
    return bool(abs(va - vb) <= bound)


def values_equal(a: Any, b: Any, *, rel_tol: float = 0.0, abs_tol: float = 0.0) -> bool | None:
    """Equality of two scalars (Number, sympy expression, Fraction or text).

    Two Numbers compare exactly (with tolerances when given) without sympy. A constant that is
    not rational never equals a finite decimal at ``rel_tol=0`` (``\\sqrt{2}`` vs 1.414), and is
    compared numerically when a tolerance is given. Expressions with symbols are compared by
    :func:`expressions_equal`.
    """
    from verifier_runtime.toolkit.numbers import numbers_close

    try:
        if isinstance(a, Number) and isinstance(b, Number):
            return numbers_close(a, b, rel_tol=rel_tol, abs_tol=abs_tol)
        return expressions_equal(a, b, rel_tol=rel_tol, abs_tol=abs_tol)
    except RecursionError:
        return None


def expressions_equal(a: Any, b: Any, *, rel_tol: float = 1e-9, abs_tol: float = 0.0) -> bool | None:
    """Whether two expressions (strings or sympy expressions) are equal; ``None`` if undecided.

    Order: structural equality, then exact comparison of rational constants, then numeric
    evaluation at ``EVAL_POINTS`` fixed pseudo-random points at ``EVAL_PREC_BITS`` bits (a
    difference beyond ``rel_tol``/``abs_tol`` or numeric noise at any point decides ``False``;
    agreement at every point decides ``True``), then a bounded ``simplify`` for small inputs.
    The tolerances apply to constant expressions; expressions with free symbols are compared
    at numeric-noise tolerance (their literals are exact).
    """
    try:
        return _expressions_equal(a, b, rel_tol, abs_tol)
    except (ParseRefused, ValueError, TypeError, RecursionError, ArithmeticError, AttributeError):
        return None


def _expressions_equal(a: Any, b: Any, rel_tol: float, abs_tol: float) -> bool | None:
    ea, eb = _as_expr(a), _as_expr(b)
    if ea is None or eb is None:
        return None
    sp = _sympy()
    if ea == eb:
        return True
    if ea.has(sp.oo, -sp.oo, sp.zoo) or eb.has(sp.oo, -sp.oo, sp.zoo):
        return False if (ea.is_number and eb.is_number) else None
    if ea.is_Rational and eb.is_Rational:
        if rel_tol == 0 and abs_tol == 0:
            return False
        fa = Fraction(int(ea.p), int(ea.q))
        fb = Fraction(int(eb.p), int(eb.q))
        from verifier_runtime.toolkit.numbers import numbers_close

        return numbers_close(Number(fa, "", "fraction"), Number(fb, "", "fraction"), rel_tol=rel_tol, abs_tol=abs_tol)
    exact_tol = rel_tol == 0 and abs_tol == 0
    if exact_tol and ea.is_number and eb.is_number and (ea.is_Rational or eb.is_Rational):
        other = eb if ea.is_Rational else ea
        if _irrational(other):
            return False
    symbols = sorted(ea.free_symbols | eb.free_symbols, key=lambda s: s.name)
    points = _points(symbols) if symbols else [{}]
    if symbols:
        # literals are exact, so symbolic forms are compared at numeric-noise tolerance only: a
        # relative tolerance would accept (x+1)^50 + 1 for (x+1)^50 where the values are large
        rel_tol = abs_tol = 0.0
    agree = 0
    for subs in points:
        check_deadline()
        va, vb = _numeric(ea, subs), _numeric(eb, subs)
        if va is None or vb is None:
            continue
        if not _close(va, vb, rel_tol, abs_tol):
            return False
        agree += 1
    if agree >= (1 if not symbols else 3):
        return True
    if _small(ea) and _small(eb):
        check_deadline()
        try:
            d = sp.simplify(ea - eb)
        except (ValueError, TypeError, ArithmeticError, RecursionError, AttributeError, NotImplementedError):
            return None
        if d == 0:
            return True
    return None


def _irrational(expr: Any) -> bool:
    """Conservative: sympy proves ``expr`` is not rational (e.g. sqrt(2), pi)."""
    try:
        return expr.is_rational is False
    except (TypeError, ValueError, AttributeError, RecursionError):
        return False


def _small(expr: Any) -> bool:
    try:
        if sum(1 for _ in _sympy().preorder_traversal(expr)) > SIMPLIFY_MAX_NODES:
            return False
        for p in expr.atoms(_sympy().Pow):
            if p.exp.is_Number and abs(p.exp) > 12:
                return False
        return True
    except (TypeError, ValueError, AttributeError, RecursionError):
        return False


# --- equations ---------------------------------------------------------------------------------


def parse_equation(s: object, *, imaginary_unit: bool = True) -> tuple[Any, Any] | None:
    """``"lhs = rhs"`` (exactly one top-level ``=``) as a pair of sympy expressions, or ``None``."""
    text = _pre_check(s)
    if not text or text.count("=") != 1 or any(op in text for op in ("<", ">", "\\le", "\\ge", "\\ne")):
        return None
    left, right = text.split("=")
    lhs = parse_expression(left, imaginary_unit=imaginary_unit)
    rhs = parse_expression(right, imaginary_unit=imaginary_unit)
    if lhs is None or rhs is None:
        return None
    return lhs, rhs


def equations_equal(a: Any, b: Any) -> bool | None:
    """Whether two equations are the same up to a non-zero constant factor (sides may swap).

    ``y = 2x + 1`` equals ``2x - y + 1 = 0``; ``x = 3`` equals ``3 = x``. Equations with the
    same solutions but not proportional (``x^2 = 1`` vs ``x = 1``) are not equal. ``None``
    when a side cannot be parsed or evaluated.
    """
    try:
        return _equations_equal(a, b)
    except (ParseRefused, ValueError, TypeError, RecursionError, ArithmeticError, AttributeError):
        return None


def _equations_equal(a: Any, b: Any) -> bool | None:
    pa = parse_equation(a) if isinstance(a, str) else a
    pb = parse_equation(b) if isinstance(b, str) else b
    if not pa or not pb:
        return None
    da, db = pa[0] - pa[1], pb[0] - pb[1]
    if da == db or da == -db:
        return True
    symbols = sorted(da.free_symbols | db.free_symbols, key=lambda s: s.name)
    if not symbols:
        return None
    ratio = None
    agree = 0
    for subs in _points(symbols):
        check_deadline()
        va, vb = _numeric(da, subs), _numeric(db, subs)
        if va is None or vb is None:
            continue
        za = abs(va) < NOISE
        zb = abs(vb) < NOISE
        if za or zb:
            if za != zb:
                return False
            continue
        r = va / vb
        if ratio is None:
            ratio = r
        elif not _close(r, ratio, 0.0, 0.0):
            return False
        agree += 1
    return True if agree >= 3 else None
