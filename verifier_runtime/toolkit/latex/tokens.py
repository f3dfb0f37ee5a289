"""Tokenizer for LaTeX and plain math: tokens as (type, text), plain words refused."""

from __future__ import annotations

import re

from verifier_runtime.limits import MAX_EXPR_NODES
from verifier_runtime.toolkit.numbers import VULGAR_FRACTION_RE, VULGAR_FRACTIONS

Node = tuple


class ParseRefused(Exception):
    """Internal: input is not a supported expression, or exceeds a hard limit."""


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
    "varrho", "varsigma", "varkappa",
}
#: the Greek letters the tokenizer reads as symbols (for other readers of names: ``toolkit.criterion``)
GREEK_NAMES = frozenset(_GREEK)
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


# Unicode writings of powers and fractions: "x\u00b2", "\u00bd", "2\u00bd" (a mixed number), "3\u20444"
_SUPERSCRIPT_DIGITS = str.maketrans("\u2070\u00b9\u00b2\u00b3\u2074\u2075\u2076\u2077\u2078\u2079\u207b\u207a", "0123456789-+")
_SUPERSCRIPT_RUN_RE = re.compile(r"[\u207b\u207a]?+[\u2070\u00b9\u00b2\u00b3\u2074-\u2079]++")


def _unicode_math(s: str) -> str:
    """``x^{2}`` for ``x\u00b2``, ``(1/2)`` for ``\u00bd``, ``(2+1/2)`` for ``2\u00bd``, ``/`` for the fraction slash."""
    s = _SUPERSCRIPT_RUN_RE.sub(lambda m: "^{" + m.group().translate(_SUPERSCRIPT_DIGITS) + "}", s)
    s = VULGAR_FRACTION_RE.sub(lambda m: f"({m.group(1)}+{VULGAR_FRACTIONS[m.group(2)]})" if m.group(1)
                       else f"({VULGAR_FRACTIONS[m.group(2)]})", s)
    return s.replace("\u2044", "/")


def _tokenize(s: str) -> list[tuple[str, str]]:
    """Tokens as (type, text); types: num, cmd, name, op."""
    if not s.isascii():
        s = _unicode_math(s)
    out: list[tuple[str, str]] = []
    for m in _TOKEN_RE.finditer(s):
        kind = m.lastgroup
        if kind == "ws":
            continue
        text = m.group()
        if kind == "op" or kind == "num":  # the commonest tokens, kept as they are
            out.append((kind, text))
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


# Any known name anywhere in a word (every name is lower-case)
_ANY_NAME_RE = re.compile("|".join(re.escape(n) for n in _PLAIN_NAMES))


def _split_word(w: str) -> list[tuple[str, str]]:
    """Split a run of letters into known names and single-letter symbols; refuse plain words."""
    if len(w) == 1:
        return [("name", w)]  # every known name and stop word has two letters or more
    if w.lower() in _STOP_WORDS:
        raise ParseRefused(f"word {w!r}")
    if len(w) >= 4 and (w.isupper() or not _ANY_NAME_RE.search(w)):
        raise ParseRefused(f"word {w!r}")  # no name in it: every letter would be a stray one
    parts = [("name", m) for m in _NAME_RE.findall(w)]
    stray = sum(1 for _, m in parts if len(m) == 1)
    if len(w) >= 4 and stray >= 3:
        raise ParseRefused(f"word {w!r}")
    return parts

