"""Recursive-descent parser over the token list: tuple AST nodes (see :mod:`.convert` for the tags)."""

from __future__ import annotations

from fractions import Fraction

from verifier_runtime.limits import MAX_EXPONENT, MAX_EXPR_DEPTH, MAX_LITERAL_DIGITS
from verifier_runtime.toolkit.latex.guard import LimitRefused
from verifier_runtime.toolkit.latex.tokens import _FUNCS, _GREEK, _INVERSE, _WRAP_CMDS, Node, ParseRefused

_D: Node = ("sym", "d")


def _starts_with_d(node: Node) -> bool:
    """``d`` or a product that starts with it (``dy``, ``dx``, ``d^2 y``): a differential."""
    if node == _D:
        return True
    if node[0] == "pow":
        return node[1] == _D
    return node[0] == "mul" and bool(node[1]) and _starts_with_d(node[1][0])


# a Greek letter's variant glyph names the same letter (\varepsilon_0 is \epsilon_0, \varphi is \phi)
_GREEK_VARIANTS = {"varepsilon": "epsilon", "varphi": "phi", "vartheta": "theta", "varrho": "rho",
                   "varsigma": "sigma", "varkappa": "kappa"}

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
        if self.i >= len(self.t):
            return False
        p = self.t[self.i]
        return p[0] == kind and (text is None or p[1] == text)

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
        if len(factors) > 2 and factors[0] == _D and ("inv", _D) in factors:
            raise ParseRefused("a derivative (dy/dx), not a quotient of products")
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
            raise LimitRefused("literal_digits")
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
            if _starts_with_d(num) and _starts_with_d(den):
                raise ParseRefused("a derivative (\\frac{d}{dx}), not a quotient of products")
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
        if name == "infty" or (name == "inf" and not self.at("op", "_")):
            return ("const", "oo")  # "(0, \inf)": infinity; an infimum has its subscript (\inf_{x})
        if name in ("exponentialE",):
            return ("const", "E")
        if name in ("imath", "mathrm_i"):
            return ("const", "I")
        if name == "Gamma" and self.at("op", "("):
            # \Gamma(x) is the gamma function, (x - 1)!: built as that factorial, so the guard bounds it
            self.take()
            self.enter()
            arg = self.expr()
            self.depth -= 1
            self.expect("op", ")")
            return ("fact", ("add", (arg, ("neg", ("num", Fraction(1))))))
        if name in _GREEK:
            return self.symbol(_GREEK_VARIANTS.get(name, name))  # \varepsilon is \epsilon in another glyph
        if name == "hbar":
            return self.symbol("hbar")
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
            if base == ("sym", "e"):
                base = ("const", "E")  # \log_e is the natural logarithm
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

