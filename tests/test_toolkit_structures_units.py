"""Structured answers (intervals, sets, tuples, matrices) and quantities with units."""

from __future__ import annotations

from fractions import Fraction

import pytest

from verifier_runtime.toolkit.numbers import parse_number
from verifier_runtime.toolkit.structures import (
    Collection,
    Equation,
    IntervalSet,
    Matrix,
    collections_equal,
    elements_equal,
    interval_sets_equal,
    matrices_equal,
    parse_collection,
    parse_element,
    parse_interval_set,
    parse_matrix,
    split_top_level,
    tuple_as_interval,
)
from verifier_runtime.toolkit.units import (
    Quantity,
    compare_quantity_to_number,
    convert,
    has_unit,
    parse_quantity,
    preload_units,
    quantities_equal,
)


@pytest.fixture(scope="module", autouse=True)
def _units_loaded() -> None:
    assert preload_units()


def test_split_top_level() -> None:
    assert split_top_level("(1, 2), \\{3, 4\\}, 5") == ["(1, 2)", " \\{3, 4\\}", " 5"]
    assert split_top_level("(" * 50 + ")" * 50) is None


def test_interval_parsing_and_normalisation() -> None:
    iv = parse_interval_set("(0, 1]")
    assert isinstance(iv, IntervalSet) and len(iv.parts) == 1
    p = iv.parts[0]
    assert not p.lo_closed and p.hi_closed and p.lo.value == 0 and p.hi.value == 1
    merged = parse_interval_set("[2, 3] \\cup (0, 2)")
    assert len(merged.parts) == 1 and merged.parts[0].hi_closed
    assert parse_interval_set("(3, 1)") is None  # lo > hi
    assert parse_interval_set("(1, 1)") is None
    assert parse_interval_set("[1, 1]") is not None
    assert parse_interval_set("[2, \\infty]").parts[0].hi_closed is False
    assert parse_interval_set("hello") is None
    assert parse_interval_set("(a, b)") is not None  # symbolic endpoints kept as written


def test_interval_equality() -> None:
    a = parse_interval_set("(-\\infty, -1) \\cup (1, \\infty)")
    b = parse_interval_set("(1, \\infty) \\cup (-\\infty, -1)")
    assert interval_sets_equal(a, b) is True
    assert interval_sets_equal(parse_interval_set("(0,1)"), parse_interval_set("(0,1]")) is False
    assert interval_sets_equal(parse_interval_set("x \\le 2"), parse_interval_set("(-\\infty, 2]")) is True
    assert interval_sets_equal(parse_interval_set("3 > x"), parse_interval_set("(-\\infty, 3)")) is True


def test_collections() -> None:
    s = parse_collection("\\{1, 2, 3\\}")
    assert isinstance(s, Collection) and s.is_set and not s.ordered
    t = parse_collection("(1, 2)")
    assert t.ordered and t.bracket == "("
    assert parse_collection("\\langle 1, 2 \\rangle").bracket == "<"
    bare = parse_collection("1, 2, 3")
    assert bare.bracket == "" and not bare.ordered
    assert parse_collection("(3)") is None  # a parenthesised single value is not a tuple
    assert parse_collection("\\{3\\}").items[0].value == 3
    assert parse_collection("[0, 1)") is None  # mixed brackets: an interval
    assert parse_collection("\\emptyset").items == ()
    assert collections_equal(parse_collection("\\{1,2\\}"), parse_collection("\\{2,1,1\\}")) is True
    assert collections_equal(parse_collection("(1,2)"), parse_collection("(2,1)")) is False
    assert collections_equal(parse_collection("1,1,2"), parse_collection("1,2,2")) is False


def test_pair_reads_as_interval_on_demand() -> None:
    pair = parse_collection("(0, 1)")
    iv = tuple_as_interval(pair)
    assert iv is not None and not iv.parts[0].lo_closed
    assert tuple_as_interval(parse_collection("(2, 1)")) is None
    assert elements_equal(pair, parse_interval_set("(0, 1)")) is True
    assert elements_equal(pair, parse_interval_set("(0, 1]")) is False


def test_elements() -> None:
    assert isinstance(parse_element("x = 1"), Equation)
    assert parse_element("0.5").value == Fraction(1, 2)
    assert parse_element("\\sqrt{2}") is not None
    assert parse_element("((((1, 2))))") is not None
    assert parse_element("") is None


def test_matrices() -> None:
    m = parse_matrix("\\begin{pmatrix}1 & 2\\\\ 3 & 4\\end{pmatrix}")
    assert isinstance(m, Matrix) and len(m.rows) == 2 and m.delimiter == "pmatrix"
    b = parse_matrix("\\begin{bmatrix}1 & 2\\\\ 3 & 4\\end{bmatrix}")
    assert matrices_equal(m, b) is True
    v = parse_matrix("\\begin{vmatrix}1 & 2\\\\ 3 & 4\\end{vmatrix}")
    assert v.is_determinant and matrices_equal(m, v) is None
    arr = parse_matrix("\\left(\\begin{array}{cc}1 & 2\\\\ 3 & 4\\end{array}\\right)")
    assert arr is not None and matrices_equal(m, arr) is True
    assert parse_matrix("\\begin{pmatrix}1 & 2\\\\ 3\\end{pmatrix}") is None  # ragged
    assert parse_matrix("\\begin{pmatrix}1 & 2\\end{bmatrix}") is None


@pytest.mark.parametrize(
    ("text", "unit", "magnitude"),
    [
        ("12 cm", "centimeter", Fraction(12)),
        ("3.0 \\times 10^{8} m/s", "meter / second", Fraction(3 * 10**8)),
        ("9.8\\,\\mathrm{m/s^2}", "meter / second ** 2", Fraction(49, 5)),
        ("25 \u00b0C", "degree_Celsius", Fraction(25)),
        ("25^{\\circ}C", "degree_Celsius", Fraction(25)),
        ("300 K", "kelvin", Fraction(300)),
        ("5 kJ/mol", "kilojoule / mole", Fraction(5)),
        ("1.2 kg\u00b7m/s", "kilogram * meter / second", Fraction(6, 5)),
        ("\\SI{5}{\\meter}", "meter", Fraction(5)),
        ("45^\\circ", "degree", Fraction(45)),
        ("2.5 g/cm^3", "gram / centimeter ** 3", Fraction(5, 2)),
        ("10 mL", "milliliter", Fraction(10)),
        ("1 atm", "standard_atmosphere", Fraction(1)),
        ("760 mmHg", "millimeter_Hg", Fraction(760)),
        ("v = 3 m/s", "meter / second", Fraction(3)),
        ("4.2 \\mu m", "micrometer", Fraction(21, 5)),
    ],
)
def test_parse_quantity(text: str, unit: str, magnitude: Fraction) -> None:
    q = parse_quantity(text)
    assert isinstance(q, Quantity), text
    assert q.unit == unit and q.magnitude == magnitude


@pytest.mark.parametrize("text", ["3x", "2a", "5", "5 apples", "12 %", "3 c", "", "m", "5 m^{100}", None, "1\x00 m"])
def test_parse_quantity_rejects(text: object) -> None:
    assert parse_quantity(text) is None


def test_has_unit_is_lexical() -> None:
    assert has_unit("5 kg") and not has_unit("5") and not has_unit("2x")


def test_quantities_equal() -> None:
    P = parse_quantity  # noqa: N806
    assert quantities_equal(P("1 km"), P("1000 m")) is True
    assert quantities_equal(P("1 km"), P("999 m")) is False
    assert quantities_equal(P("25 \u00b0C"), P("298.15 K")) is True
    assert quantities_equal(P("5 N"), P("5 kg")) is None
    # temperature differences: 5 degrees Celsius of change equals 5 K of change, not as absolute values
    assert quantities_equal(P("5 \u00b0C"), P("5 K")) is False
    assert quantities_equal(P("5 \u00b0C"), P("5 K"), temperature_difference=True) is True
    assert quantities_equal(P("1 atm"), P("760 mmHg"), rel_tol=1e-6) is True
    assert quantities_equal(P("1 atm"), P("760 mmHg"), rel_tol=1e-9) is False


def test_convert_and_bare_numbers() -> None:
    q = convert(parse_quantity("1 km"), "m")
    assert q is not None and q.unit == "meter" and q.magnitude == pytest.approx(1000)
    assert convert(parse_quantity("1 km"), "kg") is None
    assert convert(parse_quantity("1 km"), "\\mathrm{cm}").magnitude == pytest.approx(1e5)
    n = parse_number("1000")
    assert compare_quantity_to_number(parse_quantity("1 km"), n, "m") is True
    assert compare_quantity_to_number(parse_quantity("1 km"), n) is None
    assert compare_quantity_to_number(parse_quantity("45^\\circ"), parse_number("45")) is None


def test_plus_minus_and_assignments() -> None:
    from verifier_runtime.toolkit.structures import assigned_value, expand_plus_minus

    pm = expand_plus_minus("1 \\pm \\sqrt{2}")
    assert pm is not None and pm.is_set and len(pm.items) == 2
    assert collections_equal(pm, parse_collection("\\{1 - \\sqrt{2}, 1 + \\sqrt{2}\\}")) is True
    assert expand_plus_minus("2 \\pm 1 \\pm 3") is None
    assert expand_plus_minus("x^2 = \\pm 1") is None
    assert expand_plus_minus("no sign") is None
    eq = parse_element("x = 3")
    assert str(assigned_value(eq)) == "3"
    assert assigned_value(parse_element("x + y = 3")) is None
    assert elements_equal(eq, parse_number("3")) is True
    assert parse_interval_set("x \\in [0, 1)") is not None


@pytest.mark.parametrize(("a", "b", "equal"), [
    (r"\{\emptyset, \{\emptyset\}\}", r"\{\{\emptyset\}, \emptyset\}", True),
    (r"\{\emptyset, \{3\}\}", r"\{\{3\}, \varnothing\}", True),
    (r"\{\emptyset, \{3\}\}", r"\{\{3\}, \{ \}\}", True),
    (r"\{\emptyset, \{\emptyset\}\}", r"\{\emptyset\}", False),
    (r"\{\emptyset, \{\emptyset\}\}", r"\{\emptyset, \{\{\emptyset\}\}\}", False),
    (r"\{4, \{5\}\}", r"\{4, 5\}", False),
])
def test_the_empty_set_is_an_element_like_any_other(a: str, b: str, equal: bool) -> None:
    ca, cb = parse_collection(a), parse_collection(b)
    assert ca is not None and cb is not None
    assert collections_equal(ca, cb) is equal


def test_a_set_is_no_number() -> None:
    assert elements_equal(parse_element(r"\{2\}"), parse_number("2")) is False
    assert elements_equal(parse_number("0"), parse_element(r"\emptyset")) is False


@pytest.mark.parametrize(("text", "rows"), [
    ("(1, 2)^T", ((1,), (2,))),
    ("[1, 2]^{T}", ((1,), (2,))),
    (r"(1, 2)^\top", ((1,), (2,))),
    (r"\begin{pmatrix}1 & 2\end{pmatrix}^{\mathsf{T}}", ((1,), (2,))),
    (r"\begin{pmatrix}1 & 2\\3 & 4\end{pmatrix}^T", ((1, 3), (2, 4))),
    (r"\{1, 2\}^T", None),  # a set has no transpose
    ("A^T", None),
    ("(1, 2)^2", None),
])
def test_a_transpose_mark_transposes(text: str, rows) -> None:
    m = parse_matrix(text)
    got = None if m is None else tuple(tuple(int(x.value) for x in r) for r in m.rows)
    assert got == rows


@pytest.mark.parametrize(("text", "factors"), [
    ("3 cm by 5 cm", [(3, "centimeter"), (5, "centimeter")]),
    ("3 cm x 5 cm", [(3, "centimeter"), (5, "centimeter")]),
    (r"3 \times 5 cm", [(3, "centimeter"), (5, "centimeter")]),
    ("2 x 3 x 4 m", [(2, "meter"), (3, "meter"), (4, "meter")]),
    ("3 by 5", None),  # no unit: the factors of R3.3
    ("3 cm x 5", None),  # the second factor's unit is not written
    (r"3 \times 10^8 m", None),  # scientific notation
    ("3 kg x 5 m", None),  # different dimensions
    ("x by y cm", None),
])
def test_dimensions_with_a_unit_on_each_factor(text: str, factors) -> None:
    from verifier_runtime.toolkit.units import parse_dimensions

    d = parse_dimensions(text)
    assert (None if d is None else [(int(q.magnitude), q.unit) for q in d]) == factors


def test_dimensions_compare_in_any_order_after_conversion() -> None:
    from verifier_runtime.toolkit.units import dimensions_equal, parse_dimensions

    ref = parse_dimensions(r"3 \times 5 cm")
    assert dimensions_equal(parse_dimensions("50 mm by 3 cm"), ref) is True
    assert dimensions_equal(parse_dimensions("3 cm by 6 cm"), ref) is False
    assert dimensions_equal(parse_dimensions("3 cm by 5 cm by 1 cm"), ref) is False
