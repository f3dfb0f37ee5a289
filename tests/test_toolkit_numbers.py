"""Plain numbers: parsing forms, precision as written, exact comparison and rounding."""

from __future__ import annotations

import sys
import time
from fractions import Fraction

import pytest

from verifier_runtime.toolkit.numbers import (
    Number,
    matches_with_rounding,
    numbers_close,
    parse_number,
    round_to_decimals,
    round_to_sig_figs,
    to_fraction,
)


@pytest.mark.parametrize(
    ("text", "value", "kind"),
    [
        ("42", Fraction(42), "integer"),
        ("-3.50", Fraction(-7, 2), "decimal"),
        ("1,234,567.8", Fraction(12345678, 10), "decimal"),
        ("1 234", Fraction(1234), "integer"),
        ("1\u2009234", Fraction(1234), "integer"),
        ("1{,}234", Fraction(1234), "integer"),
        ("12,\\!345", Fraction(12345), "integer"),
        ("3,75", Fraction(15, 4), "decimal"),
        ("1,23", Fraction(123, 100), "decimal"),
        ("0,500", Fraction(1, 2), "decimal"),
        ("45 percent", Fraction(9, 20), "percent"),
        ("1.2 \u00d7 10\u2074", Fraction(12000), "scientific"),
        ("one thousand six hundred twenty-five", Fraction(1625), "words"),
        ("three fourths", Fraction(3, 4), "words"),
        ("two and a half", Fraction(5, 2), "words"),
        ("1011_2", Fraction(11), "based"),
        ("1\\,234", Fraction(1234), "integer"),
        ("3/4", Fraction(3, 4), "fraction"),
        ("\\frac{3}{4}", Fraction(3, 4), "fraction"),
        ("\\dfrac34", Fraction(3, 4), "fraction"),
        ("-\\frac{1}{2}", Fraction(-1, 2), "fraction"),
        ("\\frac{-1}{2}", Fraction(-1, 2), "fraction"),
        ("2 1/2", Fraction(5, 2), "mixed"),
        ("2\\frac{1}{2}", Fraction(5, 2), "mixed"),
        ("-2 1/2", Fraction(-5, 2), "mixed"),
        ("45%", Fraction(45, 100), "percent"),
        ("45\\%", Fraction(45, 100), "percent"),
        ("3.0 \\times 10^{8}", Fraction(3 * 10**8), "scientific"),
        ("3e8", Fraction(3 * 10**8), "scientific"),
        ("6.02 \u00d7 10^23", Fraction(602 * 10**21), "scientific"),
        ("1.5\\cdot10^{-3}", Fraction(15, 10**4), "scientific"),
        ("$5$", Fraction(5), "integer"),
        ("\\(0.5\\)", Fraction(1, 2), "decimal"),
        ("7.", Fraction(7), "integer"),
        ("x = 5", Fraction(5), "integer"),
        ("\u22123", Fraction(-3), "integer"),
        (".5", Fraction(1, 2), "decimal"),
    ],
)
def test_parse_number_forms(text: str, value: Fraction, kind: str) -> None:
    n = parse_number(text)
    assert n is not None, text
    assert n.value == value
    assert n.kind == kind
    assert n.text == text


@pytest.mark.parametrize(
    "text",
    ["3x", "1/0", "\\frac{1}{0}", "", "   ", "abc", "1,2,3", "1, 2", "a", "A", "1e999999999", "10^{99999}",
     "x = y = 3", "--3", "3..4", "2 3/2", "\\frac{x}{2}", "9" * 401, None, 12, b"12", "1\x002"],
)
def test_parse_number_rejects(text: object) -> None:
    assert parse_number(text) is None


def test_percent_keeps_written_figure() -> None:
    n = parse_number("12.5%")
    assert n is not None and n.is_percent and n.value == Fraction(1, 8) and n.as_written == Fraction(25, 2)


@pytest.mark.parametrize(
    ("text", "decimals", "sig_figs"),
    [("3.50", 2, 3), ("0.0050", 4, 2), ("1200", 0, 2), ("1200.5", 1, 5), ("3.0 \\times 10^{8}", None, 2), ("0", 0, 1)],
)
def test_precision_as_written(text: str, decimals: int | None, sig_figs: int) -> None:
    n = parse_number(text)
    assert n is not None and n.decimals == decimals and n.sig_figs == sig_figs


def test_numbers_close_exact_and_tolerances() -> None:
    a, b = parse_number("0.1"), parse_number("0.11")
    assert a and b
    assert not numbers_close(a, b)
    assert numbers_close(a, b, abs_tol=0.01)  # tolerances read as decimals: the boundary is inclusive
    assert not numbers_close(a, b, abs_tol=0.009)
    assert numbers_close(a, b, rel_tol=0.1)
    assert not numbers_close(a, b, rel_tol=0.05)
    assert numbers_close(parse_number("1/3"), parse_number("\\frac{2}{6}"))


def test_rounding_half_away_from_zero() -> None:
    assert round_to_decimals(Fraction(5, 2), 0) == 3
    assert round_to_decimals(Fraction(-5, 2), 0) == -3
    assert round_to_decimals(Fraction(12345, 1000), 2) == Fraction(1235, 100)
    assert round_to_decimals(Fraction(1234), -2) == 1200
    assert round_to_sig_figs(Fraction(123456), 2) == 120000
    assert round_to_sig_figs(Fraction(1, 3), 3) == Fraction(333, 1000)
    assert round_to_sig_figs(Fraction(0), 3) == 0
    assert round_to_sig_figs(Fraction(-9996, 1000), 3) == Fraction(-10)


def test_matches_with_rounding() -> None:
    ref = parse_number("3.14159")
    assert matches_with_rounding(parse_number("3.14"), ref)
    assert not matches_with_rounding(parse_number("3.15"), ref)
    assert matches_with_rounding(parse_number("3.1"), ref, decimals=1)
    assert not matches_with_rounding(parse_number("3.1"), ref, decimals=2)
    assert matches_with_rounding(parse_number("3.14"), ref, sig_figs=3)
    # either side may be the rounded one
    assert matches_with_rounding(ref, parse_number("3.14"))
    assert matches_with_rounding(parse_number("3.0e8"), parse_number("299792458"))
    assert not matches_with_rounding(parse_number("2.9e8"), parse_number("299792458"))
    assert matches_with_rounding(parse_number("33%"), parse_number("1/3"))


def test_to_fraction() -> None:
    assert to_fraction(0.1) == Fraction(1, 10)
    assert to_fraction("2.5") == Fraction(5, 2)
    assert to_fraction(float("nan")) is None
    assert to_fraction(True) is None
    assert to_fraction(Number(Fraction(1, 7), "1/7", "fraction")) == Fraction(1, 7)


def test_plain_numbers_are_fast_and_need_no_sympy() -> None:
    import subprocess

    code = (
        "import sys; from verifier_runtime.toolkit.numbers import parse_number, numbers_close;"
        "numbers_close(parse_number('1,234.5'), parse_number('\\\\frac{2469}{2}'));"
        "print('sympy' in sys.modules)"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60)
    assert out.stdout.strip() == "False", out.stderr
    t0 = time.perf_counter()
    for _ in range(2000):
        numbers_close(parse_number("12.50"), parse_number("12.5"))
    per_pair = (time.perf_counter() - t0) / 2000
    assert per_pair < 1e-3  # measured ~10-20 µs; generous for slow CI


@pytest.mark.parametrize("text", ["-3.50", "0.0050", "0.0", "12.000", "007.5", "42", "-0", "1200"])
def test_fast_paths_agree_with_full_parser(text: str) -> None:
    from verifier_runtime.toolkit.numbers import _parse

    assert parse_number(text) == _parse(text)


def test_digitless_text_is_never_a_number() -> None:
    """``parse_number`` reads text without a digit only as number words; the digit parser agrees
    that such text holds no digit-written number. (A vulgar fraction counts as a digit: see
    ``test_vulgar_fractions``.)"""
    import random

    from verifier_runtime.toolkit import numbers

    pieces = ["\\frac{", "}{", "}", "\\dfrac", "%", "\\%", "e", "E", "x = ", "\\times 10^{", "-", "+", ".", ",", " ",
              "\\pi", "\u00b2", "\u2212", "$", "\\left(", "\\right)", "{,}", "one", "half", "\\cdot",
              "^", "/", "(", ")", "\\sqrt", "\u2460", "\u216b", "\\infty", "\u2044"]
    rng = random.Random(11)
    for _ in range(5000):
        s = "".join(rng.choice(pieces) for _ in range(rng.randint(1, 8)))
        assert numbers._parse(s) is None, s
        assert parse_number(s) == numbers.parse_number_words(s), s


@pytest.mark.parametrize(
    ("text", "value"),
    [
        ("0.\\overline{3}", Fraction(1, 3)),
        ("0.1\\overline{6}", Fraction(1, 6)),
        ("0.\\dot{3}", Fraction(1, 3)),
        ("0.(3)", Fraction(1, 3)),
        ("0.333...", Fraction(1, 3)),
        ("0.1666\\ldots", Fraction(1, 6)),
        ("0.142857142857142857...", Fraction(1, 7)),
        ("-0.\\overline{3}", Fraction(-1, 3)),
        ("1.\\overline{9}", Fraction(2)),
    ],
)
def test_repeating_decimals_are_exact(text: str, value: Fraction) -> None:
    n = parse_number(text)
    assert n is not None and n.value == value and n.kind == "repeating"


@pytest.mark.parametrize("text", ["3.14159...", "0.12...", "(0.5, 1.5)"])
def test_dots_without_a_repeated_block_are_no_repeating_decimal(text: str) -> None:
    n = parse_number(text)
    assert n is None or n.kind != "repeating"


@pytest.mark.parametrize("text, value", [("\u00bd", Fraction(1, 2)), ("2\u00bd", Fraction(5, 2)), ("\u00be", Fraction(3, 4)),
                                         ("-\u2153", Fraction(-1, 3)), ("3\u20444", Fraction(3, 4)), ("2 \u00bc", Fraction(9, 4))])
def test_vulgar_fractions(text: str, value: Fraction) -> None:
    """A Unicode vulgar fraction is its fraction, after a whole number a mixed number (R4.1)."""
    n = parse_number(text)
    assert n is not None and n.value == value, text


@pytest.mark.parametrize(("text", "value"), [
    ("3.2 E-4", Fraction(32, 100000)),
    ("3.2 E -4", Fraction(32, 100000)),
    ("3.2 e-4", Fraction(32, 100000)),
    ("3.2 E\u22124", Fraction(32, 100000)),
    ("-3.2 E+4", Fraction(-32000)),
    ("3.2 E", None),  # a letter, no exponent
    ("2 E. coli", None),
    ("3.2 E4", None),  # an unsigned exponent after a space: a label, a musical note
    ("3.2 e - 4", None),  # Euler's e in an expression
])
def test_a_space_before_a_signed_exponent_mark(text: str, value: Fraction | None) -> None:
    n = parse_number(text)
    assert (n.value if n is not None else None) == value
    if n is not None:
        assert n.kind == "scientific" and n.sig_figs == 2
