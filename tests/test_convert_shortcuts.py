"""Building sympy values from parse trees: the rational shortcut (exact rational subtrees built
with Fractions) and the per-tree memo give exactly what building every node in sympy gives."""

from __future__ import annotations

import random
from fractions import Fraction

import pytest

from verifier_runtime.toolkit.latex import convert
from verifier_runtime.toolkit.latex.tokens import ParseRefused


def _long_way(n):
    """Every node built in sympy, as the converter did before the rational shortcut."""
    sp = convert._sympy()
    tag = n[0]
    if tag == "num":
        v = n[1]
        return sp.Integer(v.numerator) if v.denominator == 1 else sp.Rational(v.numerator, v.denominator)
    if tag == "const":
        return {"pi": sp.pi, "E": sp.E, "I": sp.I, "oo": sp.oo}[n[1]]
    if tag == "sym":
        return sp.Symbol(n[1])
    if tag == "neg":
        return -_long_way(n[1])
    if tag == "inv":
        d = _long_way(n[1])
        if d == 0:
            raise ParseRefused("division by zero")
        return sp.Pow(d, -1)
    if tag == "add":
        return sp.Add(*[_long_way(c) for c in n[1]])
    if tag == "mul":
        return sp.Mul(*[_long_way(c) for c in n[1]])
    if tag == "pow":
        return sp.Pow(_long_way(n[1]), _long_way(n[2]))
    if tag == "deg":
        return _long_way(n[1]) * sp.pi / 180
    if tag == "fact":
        return sp.factorial(_long_way(n[1]))
    if tag == "binom":
        return sp.binomial(_long_way(n[1]), _long_way(n[2]))
    if tag == "root":
        return sp.root(_long_way(n[1]), _long_way(n[2]))
    if tag == "func":
        args = [_long_way(c) for c in n[2]]
        return {"sqrt": sp.sqrt, "abs": sp.Abs}.get(n[1], getattr(sp, n[1], None))(*args)
    raise ParseRefused(f"unknown node {tag}")


NUMS = [Fraction(0), Fraction(1), Fraction(-1), Fraction(2), Fraction(-3), Fraction(1, 2), Fraction(-2, 3),
        Fraction(7, 4), Fraction(10), Fraction(5), Fraction(3, 1)]


def _tree(rng: random.Random, depth: int):
    if depth <= 0 or rng.random() < 0.25:
        r = rng.random()
        if r < 0.7:
            return ("num", rng.choice(NUMS))
        if r < 0.9:
            return ("sym", rng.choice("xyn"))
        return ("const", rng.choice(["pi", "E", "I"]))
    tag = rng.choice(["add", "mul", "neg", "inv", "pow", "pow", "fact", "binom", "deg", "root", "func"])
    if tag in ("add", "mul"):
        return (tag, tuple(_tree(rng, depth - 1) for _ in range(rng.randint(2, 3))))
    if tag in ("neg", "inv", "deg"):
        return (tag, _tree(rng, depth - 1))
    if tag == "fact":
        return ("fact", ("num", Fraction(rng.randint(-2, 8), rng.choice([1, 1, 1, 2]))) if rng.random() < 0.6
                else _tree(rng, depth - 1))
    if tag == "binom":
        def arg():
            return ("num", Fraction(rng.randint(-3, 9))) if rng.random() < 0.7 else _tree(rng, depth - 1)
        return ("binom", arg(), arg())
    if tag == "pow":
        exp = ("num", Fraction(rng.randint(-3, 4), rng.choice([1, 1, 1, 2, 3]))) if rng.random() < 0.7 \
            else _tree(rng, 1)
        return ("pow", _tree(rng, depth - 1), exp)
    if tag == "root":
        return ("root", _tree(rng, depth - 1), ("num", Fraction(rng.choice([2, 3]))))
    return ("func", rng.choice(["sqrt", "abs", "sin", "exp", "floor"]), (_tree(rng, depth - 1),))


def _outcome(fn, tree):
    sp = convert._sympy()
    try:
        return ("value", sp.srepr(fn(tree)))
    except ParseRefused as e:
        return ("refused", str(e))
    except (ValueError, TypeError, ArithmeticError) as e:
        return ("error", type(e).__name__)


@pytest.mark.parametrize("seed", range(4))
def test_the_rational_shortcut_builds_what_sympy_builds(seed: int) -> None:
    rng = random.Random(seed)
    shortcut = 0
    for _ in range(400):
        tree = _tree(rng, 4)
        got, want = _outcome(convert._to_sympy, tree), _outcome(_long_way, tree)
        assert got == want, tree
        if isinstance(convert._build(tree), Fraction) if got[0] == "value" else False:
            shortcut += 1
    assert shortcut > 40  # the shortcut was taken, not only the sympy way


def test_whole_number_factorials_and_binomials_are_sympy_s() -> None:
    for n in range(-4, 16):
        for k in range(-4, 16):
            tree = ("binom", ("num", Fraction(n)), ("num", Fraction(k)))
            assert _outcome(convert._to_sympy, tree) == _outcome(_long_way, tree), (n, k)
        tree = ("fact", ("num", Fraction(n)))
        assert _outcome(convert._to_sympy, tree) == _outcome(_long_way, tree), n
    for b in NUMS:
        for e in range(-4, 5):
            tree = ("pow", ("num", b), ("num", Fraction(e)))
            assert _outcome(convert._to_sympy, tree) == _outcome(_long_way, tree), (b, e)


TEXTS = [
    "\\frac{137}{24}-8 \\ln 2", "4^{2017}-2 \\cdot 3^{2017}+2^{2017}", "8 \\cdot\\binom{50}{19}", "\\frac{1}{1-1}",
    "(3^{1010.5})^2 - (2^{1010.5})^2", "\\frac{10^{n+1} - 10 - 9n}{81}", "0^{-1}", "0^0", "(-2)^{-3}", "5!",
    "\\frac{(2n)!}{k!(2n-k)!}", "\\sqrt{8}", "2\\sqrt{2}", "\\frac{3 \\sqrt{3}-3}{2}", "-\\frac{-4}{6}", "30^\\circ",
    "\\binom{3}{5}", "\\binom{-1}{2}", "(\\frac{1}{2})!", "\\frac{1}{2}^{-2}", "1/(2-2)", "x^{2} - \\frac{1}{4}",
]


def test_parsed_texts_build_what_sympy_builds() -> None:
    for text in TEXTS:
        parsed = convert.parse_ast(text)
        if parsed is None:
            continue
        assert _outcome(convert._to_sympy, parsed[0]) == _outcome(_long_way, parsed[0]), text


def test_one_tree_is_built_once_and_a_failing_tree_is_not_kept() -> None:
    from verifier_runtime.toolkit import clear_caches

    clear_caches()
    a, b = convert.parse_expression("x^{2} + \\frac{1}{2}"), convert.parse_expression("x^2 + 1/2")
    assert a is b
    assert a == _long_way(convert.parse_ast("x^2+1/2")[0])
    assert convert.parse_expression("\\frac{1}{1-1}") is None
    assert convert.converted.cache_info().currsize == 1  # the refused tree left nothing behind
    clear_caches()
    assert convert.converted.cache_info().currsize == 0
