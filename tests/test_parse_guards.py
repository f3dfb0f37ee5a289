"""The parsing side's guarded steps give exactly what the unguarded steps give: the math-delimiter
strip tried only on texts that can start with a delimiter, whitespace collapsed only when some is
not a lone space, the number and unit normalisations skipping substitutions that cannot match, and
the token checks of the expression parser. Each shortcut is checked against the long way, written
out here as the code was before the shortcut, on texts made for it."""

from __future__ import annotations

import random
import re
import sys

import pytest

from verifier_runtime.toolkit import numbers, units
from verifier_runtime.toolkit.latex import convert

_WRAPPERS = (("$$", "$$"), ("$", "$"), ("\\(", "\\)"), ("\\[", "\\]"))


def _texts(pieces: list[str], n: int, seed: int, longest: int = 8) -> list[str]:
    rng = random.Random(seed)
    return ["".join(rng.choice(pieces) for _ in range(rng.randint(0, longest))) for _ in range(n)]


def _wrapped(pieces: list[str], wrappers: list[tuple[str, str]], n: int, seed: int) -> list[str]:
    """Short texts of ``pieces``, half of them inside one to three random ``wrappers``."""
    rng = random.Random(seed)
    out = []
    for t in _texts(pieces, n, seed, longest=4):
        for _ in range(rng.choice((0, 0, 0, 1, 2, 3))):
            left, right = rng.choice(wrappers)
            t = rng.choice(("", " ")) + left + t + right
        out.append(t)
    return out


# --- the math-delimiter strip ------------------------------------------------------------------


def _delimiters_long_way(t: str) -> str:
    for left, right in _WRAPPERS:
        if len(t) >= len(left) + len(right) and t.startswith(left) and t.endswith(right):
            t = t[len(left) : len(t) - len(right)].strip()
    return t


DELIMITER_PIECES = ["$", "$$", "\\(", "\\)", "\\[", "\\]", "\\", "(", ")", "[", "]", " ", "x", "1", "\\frac{1}{2}"]


@pytest.mark.parametrize("seed", [41, 42])
def test_the_delimiter_strip_is_the_four_tries(seed: int) -> None:
    texts = [t.strip() for t in _wrapped(DELIMITER_PIECES, [*_WRAPPERS, ("\\", ""), ("", "$")], 4000, seed)]
    texts += ["", "$", "$$", "$$$", "\\(\\)", " $x$ "]
    changed = 0
    for t in texts:
        got = numbers.strip_math_delimiters(t)
        assert got == _delimiters_long_way(t), t
        changed += got != t
    assert 400 < changed < len(texts) - 400


# --- whitespace runs ---------------------------------------------------------------------------

ALL_WHITESPACE = [chr(c) for c in range(sys.maxunicode + 1) if re.fullmatch(r"\s", chr(c))]


def test_every_whitespace_character_but_the_space_is_unprintable() -> None:
    # the premise of collapse_spaces' quick exit
    assert len(ALL_WHITESPACE) > 20
    assert [c for c in ALL_WHITESPACE if c.isprintable()] == [" "]


@pytest.mark.parametrize("seed", [43, 44])
def test_collapsing_spaces_is_the_substitution(seed: int) -> None:
    pieces = ["a", "b", "1", ".", " ", "  ", "\\,", "~", "\u00e9", *ALL_WHITESPACE]
    texts = _texts(pieces, 5000, seed)
    kept = 0
    for t in texts:
        got = numbers.collapse_spaces(t)
        assert got == re.sub(r"\s+", " ", t), repr(t)
        kept += got is t
    assert 200 < kept < len(texts) - 200


# --- the number normalisation ------------------------------------------------------------------


def _number_strip_long_way(s: str) -> str:
    s = s.strip()
    for _ in range(3):
        changed = False
        for left, right in _WRAPPERS:
            if len(s) >= len(left) + len(right) and s.startswith(left) and s.endswith(right):
                s = s[len(left) : len(s) - len(right)].strip()
                changed = True
        m = numbers._TEXT_WRAP.match(s)
        if m:
            s = m.group("body").strip()
            changed = True
        if s.endswith(".") and not s.endswith(".."):
            s = s[:-1].rstrip()
            changed = True
        if not changed:
            break
    return s


def _normalise_long_way(s: str) -> str:
    n = numbers
    s = _number_strip_long_way(s)
    if s[:1] in "$\\\u20ac\u00a3\u00a5\u20b9U":
        s = n._CURRENCY_LEAD_RE.sub("", s)
    if s[-1:] in "$\u20ac\u00a3\u00a5\u20b9sDRPoP." or s[-3:] in ("USD", "EUR", "GBP"):
        s = n._CURRENCY_TAIL_RE.sub("", s)
    if "," in s:
        s = n._LATEX_GROUP_RE.sub(",", s)
    if s and s[-1] in "\u2070\u00b9\u00b2\u00b3\u2074\u2075\u2076\u2077\u2078\u2079":
        s = n._SUP_EXP_RE.sub(lambda m: "10^{" + m.group(1).translate(n._SUPERSCRIPTS) + "}", s)
    s = n._SPACES.sub(" ", s)
    s = s.replace("{,}", ",").replace("\\%", "%").replace("\\left", "").replace("\\right", "")
    s = n._LATEX_MINUS.sub("-", s)
    return re.sub(r"\s+", " ", s).strip()


NUMBER_PIECES = ["1", "23", "4.5", ",", "{,}", ",\\!", "$", "$$", "\\(", "\\)", "\\text{", "\\boxed{", "}", "{",
                 ".", "..", " ", "  ", "\t", "\u00a0", "\u2009", "~", "\\,", "\\;", "\\quad", "\\%", "%", "\\left(",
                 "\\right)", "\u2212", "\\minus", "\u00b2", "\u2075", "10", "x = ", "USD", "\u20ac", "US$", "\\$",
                 "dollars", "e", "-", "/", "\\frac", "\u00e9"]


@pytest.mark.parametrize("seed", [45, 46])
def test_the_number_normalisation_is_the_long_way(seed: int) -> None:
    texts = _wrapped(NUMBER_PIECES, [*_WRAPPERS, ("\\text{", "}"), ("\\boxed{", "}"), ("", "."), ("", " USD")],
                     6000, seed) + ["$$12$$", "\\text{$5$}.", "12,\\!345", "3 \u00d7 10\u2075"]
    for s in texts:
        assert numbers._strip(s) == _number_strip_long_way(s), s
        assert numbers._normalise(s) == _normalise_long_way(s), s
    parsed = [numbers.parse_number(s) for s in texts]
    assert 150 < sum(p is not None for p in parsed) < len(texts) - 300


# --- the unit normalisation --------------------------------------------------------------------


def _latex_units_long_way(u: str) -> str:
    m = units

    def braced(u: str) -> str:
        return m._BRACED_EXPONENT_RE.sub(lambda x: "^" + x.group(1).replace(" ", ""), u)

    u = braced(u)
    for _ in range(3):
        u = m._WRAP.sub(r"\1", u)
    u = m._LATEX_SPACE_RE.sub(" ", u)
    u = m._DEG_C_RE.sub(" degC ", u)
    u = u.replace("\u2103", " degC ")
    u = m._DEG_F_RE.sub(" degF ", u)
    u = m._DEGREE_RE.sub(" degree ", u)
    u = m._MICRO_RE.sub("u", u)
    u = m._OHM_RE.sub("ohm", u)
    u = m._ANGSTROM_RE.sub("angstrom", u)
    u = m._TIMES_RE.sub("*", u)
    u = u.replace("\\%", "%").replace("\\left", "").replace("\\right", "")
    u = braced(u)
    u = u.replace("\u2212", "-")
    u = m._SUPERSCRIPT_RE.sub(lambda x: "^" + x.group().translate(m._SUPERSCRIPT_DIGITS), u)  # "m\u00b2\u00b3": one exponent
    u = m._BRACES_RE.sub(r"(\1)", u)
    return u.strip()


UNIT_PIECES = ["m", "s", "k", "g", "C", "F", "A", " ", "/", "^", "^{2}", "^{ -1 }", "^{\u22122}", "{", "}", "{{",
               "\\mathrm{", "\\text{", "\\,", "~", "\\circ", "^\\circ", "\\degree", "\u00b0", "\u2103", "\\mu",
               "\u00b5", "\u03bc", "\\Omega", "\u2126", "\\AA", "\u00c5", "\\cdot", "\u00b7", "\u00d7", "\\times",
               "\\%", "\\left(", "\\right)", "\u2212", "\u00b2", "\u00b3", "2", "-1", "*"]


@pytest.mark.parametrize("seed", [47, 48])
def test_the_unit_normalisation_is_the_long_way(seed: int) -> None:
    texts = _texts(UNIT_PIECES, 6000, seed) + ["m s^{-1}", "km/h", "{m}^{2}", "^{^{2}}", "25 \u00b0C"]
    plain = 0
    for u in texts:
        assert units._latex_units(u) == _latex_units_long_way(u), u
        plain += u.isascii() and "\\" not in u and "~" not in u
    assert 500 < plain < len(texts) - 500


@pytest.mark.parametrize("seed", [49])
def test_the_unit_split_skips_only_substitutions_that_cannot_match(seed: int) -> None:
    # the premise of the guards in _split: the siunitx patterns need a backslash, the thin
    # spaces a backslash or a tilde
    pieces = [*UNIT_PIECES, "\\SI{", "\\si{", "\\qty{", "\\meter", "5", "}{", "\\!", "\\;", "\\ "]
    for t in _texts(pieces, 6000, seed):
        if "\\" not in t:
            assert units._SI.search(t) is None and units._SI_UNIT.search(t) is None, t
            if "~" not in t:
                assert units._LATEX_THIN_SPACE_RE.search(t) is None, t


# --- the expression parser's token checks ------------------------------------------------------


def _refused_long_way(tokens: list[tuple[str, str]]) -> bool:
    if any(t == ("op", "=") or t[1] in ("<", ">", "le", "ge", "leq", "geq", "neq", "ne") for t in tokens):
        return True
    return any(t[1] in ("pm", "mp") for t in tokens) or any(t == ("op", ",") for t in tokens)


def _subscript_i_long_way(tokens: list[tuple[str, str]]) -> bool:
    return any(tokens[k] == ("op", "_") and tokens[k + 1][1] in ("i", "{") and
               (tokens[k + 1][1] == "i" or (k + 2 < len(tokens) and tokens[k + 2][1] == "i"))
               for k in range(len(tokens) - 1))


@pytest.mark.parametrize("seed", [50, 51])
def test_the_token_checks_are_the_long_way(seed: int) -> None:
    rng = random.Random(seed)
    pool = [(k, t) for k in ("op", "cmd", "name", "num") for t in
            ("=", ",", "<", ">", "le", "ge", "leq", "geq", "neq", "ne", "pm", "mp", "_", "{", "}", "i", "x", "1", "+")]
    pool += [("op", "_"), ("name", "i"), ("op", "{"), ("name", "x")] * 12
    refused = subscripted = 0
    for _ in range(6000):
        tokens = [rng.choice(pool) for _ in range(rng.randint(0, 4))]
        assert convert._refused(tokens) == _refused_long_way(tokens), tokens
        assert convert._subscript_i(tokens) == _subscript_i_long_way(tokens), tokens
        refused += convert._refused(tokens)
        subscripted += convert._subscript_i(tokens)
    assert 500 < refused < 5500 and subscripted > 80


def _tokenize_long_way(s: str) -> list[tuple[str, str]]:
    from verifier_runtime.toolkit.latex import tokens as tk

    out: list[tuple[str, str]] = []
    for m in tk._TOKEN_RE.finditer(s):
        kind, text = m.lastgroup, m.group()
        if kind == "ws":
            continue
        if kind == "uni":
            rep = tk._UNICODE.get(text)
            if rep is None:
                raise tk.ParseRefused(text)
            if rep.strip():
                out.extend(_tokenize_long_way(rep))
            continue
        if kind == "cmd":
            name = text[1:]
            if name in tk._SKIP_CMDS:
                continue
            out.append(("op", name) if name in ("{", "}", "|") else ("cmd", name))
            continue
        if kind == "word":
            out.extend(tk._split_word(text))
            continue
        out.append((kind or "op", text))
    if len(out) > tk.MAX_EXPR_NODES * 2:
        raise tk.ParseRefused("too many tokens")
    return out


@pytest.mark.parametrize("seed", [52, 53])
def test_the_tokens_are_the_long_way(seed: int) -> None:
    from verifier_runtime.toolkit.latex import tokens as tk

    def run(fn, s):
        try:
            return fn(s)
        except tk.ParseRefused:
            return "refused"

    pieces = ["1", "2.5", "3e4", "x", "sin", "Paris", "the", "\\frac", "\\{", "\\}", "\\|", "\\left", "\\,", "{", "}",
              "(", ")", "^", "_", "**", "+", "-", "=", ",", "|", " ", "\u2212", "\u03c0", "\u00d7", "\u2603", "\\pi"]
    texts = _texts(pieces, 5000, seed) + ["1" * 600 + "+x" * 200]
    outcomes = [run(tk._tokenize, s) for s in texts]
    assert outcomes == [run(_tokenize_long_way, s) for s in texts]
    assert 500 < sum(o == "refused" for o in outcomes) < len(texts) - 500
