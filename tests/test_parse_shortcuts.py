"""The parsing side's shortcuts give exactly what the long way gives: the linear-solution check's
monomial reading, the unit split shared by has_unit and parse_quantity, the counting shortcuts of
the depth and comma checks, and the bracket-only visits of the top-level split and bracket match."""

from __future__ import annotations

import random
import re

import pytest

from verifier_runtime.toolkit.latex import convert
from verifier_runtime.toolkit.latex.tokens import ParseRefused

# --- linear-solution check: the monomial shortcut against the derivative ----------------------

EQUATIONS = [
    "64x^2 - \\frac{64y^2}{3} = 1", "\\frac{x^2}{2}-\\frac{y^2}{6}=1", "x^2 + y^2 = 36", "x^2+y^2=3",
    "3x + y + 10 = 0", "15x+5y+16=0", "d = 7a", "\\frac{d}{a} = 7", "y = x^2 - (x+1)^2", "y = -2x - 1",
    "a x^2 + b x^2 = c", "2x^2 y + 3 x y^2 = 1", "(a+1) x^2 = y", "x^3 - x = y", "\\sin(x) + x^2 = y",
    "x y = 1", "\\frac{1}{x} + y = 2", "x^{-2} = y", "\\sqrt{x} = y", "e^{x} = y", "x^2 - x^2 y = 4",
    "y^2 = 4 p x", "(x-1)^2 + (y-2)^2 = 9", "x^2 - 2 x + 1 = y", "2 x + 3 y = 6", "y - 3 = 2(x - 1)",
]


def _random_relations(n: int, seed: int) -> list:
    import sympy as sp

    rng = random.Random(seed)
    x, y, a, b = sp.symbols("x y a b")
    coefficients = [sp.Integer(1), sp.Integer(-3), sp.Rational(5, 2), a, -b, a + 1, sp.sqrt(2), sp.pi, a * b,
                    1 / a, sp.oo, -sp.oo, sp.I, sp.Integer(7)]
    factors = [x, x**2, x**3, 1 / x, x**-2, y, y**2, x * y, sp.sin(x), (x + 1) ** 2, sp.sqrt(x), sp.exp(y),
               sp.Abs(x), sp.Integer(1), x**2 * y, (x - 1) * (x + 1), sp.log(x), sp.sinh(a * x) / a, sp.exp(-x * b),
               sp.cos(x) ** 2, sp.sin(x) ** 2, a * (x + 1), sp.tan(x), sp.sqrt(x**2 + a), sp.log(sp.exp(x)),
               (x**2 - 1) / (x - 1), sp.cosh(x) - sp.sinh(x), sp.exp(sp.I * x), x**sp.Rational(3, 2), 2**x]
    out = []
    for _ in range(n):
        k = rng.randint(1, 4)
        out.append(sp.Add(*[rng.choice(coefficients) * rng.choice(factors) for _ in range(k)]))
    return out


def _relations() -> list:
    out = []
    for text in EQUATIONS:
        lhs, rhs = convert.parse_equation(text)
        out.append(lhs - rhs)
    return out + _random_relations(300, 11)


def test_the_monomial_reading_is_what_diff_and_subs_give() -> None:
    from verifier_runtime.toolkit.latex import equality as eq

    seen = {True: 0, False: 0, None: 0}
    for d in _relations():
        for s in sorted(d.free_symbols, key=lambda v: v.name):
            m = eq._monomials(d, s)
            seen[None if m is None else m[0]] += 1
            if m is None:
                continue
            k = d.diff(s)
            if m[0]:
                assert m[1] == k and m[2] == d.subs(s, 0), (d, s)  # the same sympy objects
            else:
                assert k != 0 and k.has(s), (d, s)
    assert min(seen.values()) >= 20, seen


PHYSICS = [
    "\\rho t = \\frac{v_0}{\\omega_0}\\sinh(\\omega_0 t)",
    "\\rho=\\frac{1}{2} \\frac{v_{0}}{\\omega_{0}} e^{\\omega_{0} t}-\\frac{1}{2} \\frac{v_{0}}{\\omega_{0}} e^{-\\omega_{0} t}",
    "T = 2\\pi \\sqrt{\\frac{L^3}{G(M_1 + M_2)}}", "v = \\sqrt{2 g h}", "E = m c^2 \\ln(\\frac{r}{r_0})",
    "y = \\tan(k x) + x", "I = I_0 \\cos^2(\\theta) + \\sin^2(\\theta) I_0", "x = a (t + 1) - a t",
]


def test_a_proven_bend_is_a_derivative_that_keeps_the_unknown() -> None:
    """What the linear-solution check skips on: wherever _bends proves a relation is not linear in
    an unknown, sympy's derivative is neither zero nor free of that unknown (the check's test)."""
    from verifier_runtime.toolkit.latex import equality as eq

    relations = _relations()
    for text in PHYSICS:
        lhs, rhs = convert.parse_equation(text)
        relations.append(lhs - rhs)
    seen = {True: 0, False: 0}
    for d in relations:
        for s in sorted(d.free_symbols, key=lambda v: v.name):
            bends = eq._bends(d, s)
            seen[bends] += 1
            k = d.diff(s)
            if bends:
                assert k != 0 and k.has(s), (d, s)
    assert seen[True] >= 100 and seen[False] >= 100, seen
    first, last = relations[-len(PHYSICS)], relations[-1]  # rho t - v_0 sinh(omega_0 t)/omega_0; x - a(t+1) + a t
    named = {v.name: v for v in first.free_symbols | last.free_symbols}
    assert eq._bends(first, named["omega_0"]) and eq._bends(first, named["t"]) and not eq._bends(first, named["rho"])
    assert not eq._bends(last, named["t"]) and not eq._bends(last, named["a"])  # linear in both


def test_same_linear_solution_with_and_without_the_shortcut_agree(monkeypatch) -> None:
    from verifier_runtime.toolkit.latex import equality as eq

    physics = []
    for text in PHYSICS:
        lhs, rhs = convert.parse_equation(text)
        physics.append(lhs - rhs)
    diffs = _relations()[: len(EQUATIONS) + 60]
    pairs = [(a, b) for a in diffs for b in diffs[: len(EQUATIONS)]]
    pairs += [(a, b) for a in physics + diffs[len(EQUATIONS):] for b in physics]

    def run() -> list[bool]:
        return [eq._same_linear_solution(a, b, sorted(a.free_symbols | b.free_symbols, key=lambda v: v.name))
                for a, b in pairs]

    fast = run()
    monkeypatch.setattr(eq, "_monomials", lambda expr, s: None)
    assert run() == fast
    monkeypatch.setattr(eq, "_bends", lambda expr, s: False)
    assert run() == fast
    assert sum(fast) >= 5 and not all(fast)


# --- the unit split, kept once per text --------------------------------------------------------

UNIT_TEXTS = [
    "12 cm", "9.8\\,\\mathrm{m/s^2}", "\\SI{5}{\\meter}", "25 \u00b0C", "3,75 m", "90 kilometres per hour",
    "$3.0 \\times 10^8$ km/s", "v = 3 m/s", "\\text{12 kg}", "5", "x + 1", "Paris", "10 A, 22.5 A",
    "1.5 km", "100%", "4 units", "7 x", "2 m^{2}", "6.02e23 mol^-1", "\\frac{1}{2} J", "\x00 5 m", "",
]


def test_the_kept_unit_split_is_the_computed_one() -> None:
    from verifier_runtime.toolkit import units

    units._split.cache_clear()
    for text in UNIT_TEXTS * 2:  # the second round reads the kept results
        assert units._split(text) == units._split.__wrapped__(text), text
        assert units.has_unit(text) == (units._split.__wrapped__(text) is not None)


# --- bracket depth and top-level commas: the counting shortcuts against the character scans ----


def _nested(opener: str, closer: str, depth: int) -> str:
    return opener * depth + "x" + closer * depth


BRACKET_TEXTS = [
    "x", "(x)", "\\frac{1}{2}", "f(g(h(x)))", "((1, 2), (3, 4))", "[0, 1)", "\\{1, 2\\}", "a,b", "{a,b},c",
    _nested("(", ")", 40), _nested("(", ")", 41), _nested("{", "}", 45), _nested("[", "]", 39),
    "(" * 41 + ")" * 41, "()" * 60, "(" * 30 + "{" * 11 + "x" + "}" * 11 + ")" * 30, "((((" * 12,
    "))))" * 12 + "((((" * 12, "$(1,2)$", "(1,2).", "1{,}000", "\\left( x \\right)", "(a, (b, c)), d",
    ",", ",,", "(,)", "x, y", "\\sqrt{2}, 3", "[1, 2], [3, 4]", "1,000,000", "((a),b",
]


def _depth_scan(s: str) -> bool:
    depth = best = 0
    for ch in s:
        if ch in "({[":
            depth += 1
            best = max(best, depth)
        elif ch in ")}]":
            depth -= 1
    return best > convert.MAX_EXPR_DEPTH


def _comma_scan(t: str) -> bool:
    depth = 0
    for ch in t:
        if ch in "([{":
            depth += 1
        elif ch in ")]}":
            depth -= 1
        elif ch == "," and depth == 0:
            return True
    return False


def test_the_depth_check_refuses_exactly_what_the_scan_refuses() -> None:
    refused = 0
    for s in BRACKET_TEXTS:
        expected = None if _depth_scan(s) else convert._clean(s)
        assert convert._pre_check(s) == expected, s
        refused += expected is None
    assert refused >= 4


def test_the_top_level_comma_check_is_the_scan() -> None:
    from verifier_runtime.toolkit.compare import _top_level_comma

    results = [_top_level_comma(t) for t in BRACKET_TEXTS]
    assert results == [_comma_scan(t) for t in BRACKET_TEXTS]
    assert any(results) and not all(results)


# --- top-level splitting and bracket matching: the bracket-only visits against the scans -------


def _split_texts(n: int, seed: int) -> list[str]:
    rng = random.Random(seed)
    pieces = ["(", ")", "[", "]", "{", "}", "\u27e8", "\u27e9", ",", ";", ", ", "a", "1", "x^2", "\\{", "\\}",
              " ", "\\frac{1}{2}", "ab", "=", "\u2212"]
    out = ["", ",", ";;", "a,b", "(a,b),c", "((((", "))))", "(" * 41 + "x" + ")" * 41, "(" * 40 + ",",
           "{a;b};c", "a,,b", "\u27e8x, y\u27e9, z"]
    return out + ["".join(rng.choice(pieces) for _ in range(rng.randint(1, 60))) for _ in range(n)]


def _matching_close_scan(s: str, open_idx: int) -> int:
    from verifier_runtime.toolkit.structures import _CLOSE, _OPEN

    depth = 0
    for j in range(open_idx, len(s)):
        if s[j] in _OPEN:
            depth += 1
        elif s[j] in _CLOSE:
            depth -= 1
            if depth == 0:
                return j
    return -1


@pytest.mark.parametrize("seed", [21, 22])
def test_the_top_level_split_is_the_scan(seed: int) -> None:
    from verifier_runtime.toolkit import structures as st

    texts = _split_texts(2000, seed)
    for sep in (",", ";", " and ", "("):
        for t in texts:
            assert st.split_top_level(t, sep) == st._split_scan(t, sep), (t, sep)
    assert any(len(st.split_top_level(t, ",") or []) > 2 for t in texts)
    assert any(st.split_top_level(t, ",") is None for t in texts)


@pytest.mark.parametrize("seed", [23, 24])
def test_the_matching_bracket_is_the_scan(seed: int) -> None:
    from verifier_runtime.toolkit.structures import _matching_close

    found = 0
    for t in _split_texts(2000, seed):
        for k in range(len(t)):
            got = _matching_close(t, k)
            assert got == _matching_close_scan(t, k), (t, k)
            found += got >= 0
    assert found > 1000


def test_normal_text_without_a_backslash_skips_only_the_command_pass() -> None:
    from verifier_runtime.toolkit import compare

    def long_way(t: str) -> str:
        t = compare._TEXT_CMD_RE.sub(r"\1", t)
        return re.sub(r"\s+", " ", t).strip().rstrip(".").casefold()

    texts = ["Paris", "  Leonardo   da Vinci. ", "\\text{Yes}", "\\textbf{ Fe } or Cu", "text{x}", "\\emph{a}\\mathrm{b}",
             "\\\\", "ÉCOLE", "a\tb\nc.", "\\text{a{b}c}", "x \\mathbf{v}."]
    assert [compare._normal_text(t) for t in texts] == [long_way(t) for t in texts]


# --- plain words: the name search against the split into names and stray letters -------------


def _split_word_long_way(w: str):
    from verifier_runtime.toolkit.latex import tokens

    if w.lower() in tokens._STOP_WORDS:
        return "refused"
    parts = [("name", m) for m in tokens._NAME_RE.findall(w)]
    stray = sum(1 for _, m in parts if len(m) == 1)
    if len(w) >= 4 and stray >= 3:
        return "refused"
    return parts


def _split_word_now(w: str):
    from verifier_runtime.toolkit.latex import tokens

    try:
        return tokens._split_word(w)
    except ParseRefused:
        return "refused"


@pytest.mark.parametrize("seed", [31, 32])
def test_a_word_is_split_or_refused_as_the_long_way_does(seed: int) -> None:
    rng = random.Random(seed)
    pieces = ["a", "b", "x", "y", "C", "H", "E", "O", "sin", "cos", "pi", "ln", "oo", "inf", "infty", "exp",
              "sqrt", "abs", "lg", "Sin", "PI", "t", "an", "arc", "sec", "cosec", "tanh", "is", "no"]
    words = ["Paris", "MKTAYIAKQR", "CCCCEEEEHHHH", "ccccc", "sinx", "xsin", "pix", "abc", "abcd", "ABCD",
             "Sinh", "sinh", "lnx", "xyz", "xyzw", "piii", "oooo", "infinity", "cosine", "No", "THE"]
    words += ["".join(rng.choice(pieces) for _ in range(rng.randint(1, 6))) for _ in range(3000)]
    outcomes = [_split_word_now(w) for w in words]
    assert outcomes == [_split_word_long_way(w) for w in words]
    assert 300 < sum(o == "refused" for o in outcomes) < len(words) - 300
