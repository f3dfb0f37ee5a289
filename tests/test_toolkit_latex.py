"""LaTeX / plain math parsing, expression and equation equality."""

from __future__ import annotations

import pytest

from verifier_runtime.toolkit.latex import (
    equations_equal,
    expressions_equal,
    parse_ast,
    parse_equation,
    parse_expression,
    values_equal,
)
from verifier_runtime.toolkit.numbers import parse_number


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("2x+1", "2*x + 1"),
        ("\\frac{\\sqrt{3}}{2}", "sqrt(3)/2"),
        ("\\dfrac{1}{x}", "1/x"),
        ("\\sqrt[3]{27}", "3"),
        ("2\\pi r", "2*pi*r"),
        ("xy", "x*y"),
        ("\\sin(60^\\circ)", "sqrt(3)/2"),
        ("60\u00b0", "pi/3"),
        ("\\log_{2} 8", "3"),
        ("\\log_28", "3"),
        ("\\ln x", "log(x)"),
        ("e^{i\\pi}", "-1"),
        ("|x-1|", "Abs(x - 1)"),
        ("\\left|x\\right|", "Abs(x)"),
        ("\\left(x+1\\right)^2", "(x + 1)**2"),
        ("5!", "120"),
        ("\\binom{5}{2}", "10"),
        ("\\sin^2 x", "sin(x)**2"),
        ("\\sin^{-1} x", "asin(x)"),
        ("\\sin 2x", "sin(2*x)"),
        ("sin x cos x", "sin(x)*cos(x)"),
        ("x_1 + x_{12}", "x_1 + x_12"),
        ("\\alpha\\beta", "alpha*beta"),
        ("\\infty", "oo"),
        ("-\\infty", "-oo"),
        ("2^10", "1024"),
        ("2**3", "8"),
        ("x^-1", "1/x"),
        ("3 \\cdot 4", "12"),
        ("a \\times b", "a*b"),
        ("\\operatorname{tan} x", "tan(x)"),
        ("\\mathrm{e}^{2}", "exp(2)"),
        ("x_i + i", "i + x_i"),  # i is a symbol once it appears as a subscript
        ("0.25x", "x/4"),
        ("\\frac34", "3/4"),
        ("2^{2^3}", "256"),
    ],
)
def test_parse_expression(text: str, expected: str) -> None:
    e = parse_expression(text)
    assert e is not None, text
    assert str(e) == expected


@pytest.mark.parametrize(
    "text",
    ["hello", "yes", "the answer", "x = 1", "x < 2", "1, 2", "\\pm 2", "\\frac{1}{0}", "(x+1", "x+)", "\\unknowncmd x",
     "2^{2^{2^{2^{2}}}}", "9^{9^{9^{9}}}", "(10^{10^{10}})!", "10^{10^{10}}", "1001!", "\\exp(10^{5})",
     "\\sin(10^{100})", "\\binom{10^{400}}{10^{399}}", "(1-0.999)^{-10000}", "x^{100000}", "", None, 3, "\x00"],
)
def test_parse_expression_refuses(text: object) -> None:
    assert parse_expression(text) is None


def test_limits_depth_and_nodes() -> None:
    assert parse_expression("(" * 30 + "x" + ")" * 30) is not None
    assert parse_expression("(" * 60 + "x" + ")" * 60) is None
    assert parse_expression("+".join(["x"] * 150)) is not None
    assert parse_expression("+".join(["x"] * 450)) is None
    assert parse_expression("1" * 400) is not None
    assert parse_expression("1" * 401 + "x") is None


def test_parse_ast_reports_constant_size() -> None:
    parsed = parse_ast("2^{10}")
    assert parsed is not None
    _node, size, count = parsed
    assert size is not None and 2.9 < size < 3.2 and count == 3
    assert parse_ast("x^2")[1] is None


@pytest.mark.parametrize(
    ("a", "b", "expected"),
    [
        ("2\\sqrt{2}", "\\sqrt{8}", True),
        ("(x+1)^2", "x^2+2x+1", True),
        ("\\sin^2 x + \\cos^2 x", "1", True),
        ("\\frac{x^2-1}{x-1}", "x+1", True),
        ("x", "y", False),
        ("(x+1)^{50}", "(1+x)^{50}+1", False),
        ("\\pi", "3.14159", False),
        ("\\frac{1}{2}", "0.5", True),
        ("e^{x}e^{y}", "e^{x+y}", True),
        # equal where the unknowns are positive only: undecided (the question may or may not assume it)
        ("\\sqrt{x^2}", "x", None),
        ("\\ln(x^2)", "2\\ln x", None),
        ("\\sqrt{x^2}", "|x|", True),
        ("x^{1/3}", "\\sqrt[3]{x}", True),
    ],
)
def test_expressions_equal(a: str, b: str, expected: bool | None) -> None:
    assert expressions_equal(a, b) is expected


def test_expressions_equal_tolerance_applies_to_constants() -> None:
    assert expressions_equal("\\pi", "3.1416", rel_tol=0.0) is False
    assert expressions_equal("\\pi", "3.1416", rel_tol=1e-4) is True
    assert expressions_equal("\\pi", "3.2", rel_tol=1e-4) is False


def test_expressions_equal_undecidable_inputs() -> None:
    assert expressions_equal("2^{2^{2^{2^{2}}}}", "1") is None
    assert expressions_equal("hello", "x") is None
    assert expressions_equal(object(), "x") is None


def test_values_equal_number_vs_expression() -> None:
    n = parse_number("1.414")
    assert values_equal(n, parse_expression("\\sqrt{2}")) is False
    assert values_equal(n, parse_expression("\\sqrt{2}"), rel_tol=1e-3) is True
    assert values_equal(parse_number("0.75"), parse_expression("\\frac{3}{4}")) is True


@pytest.mark.parametrize(
    ("a", "b", "expected"),
    [
        ("y = 2x+1", "2x - y + 1 = 0", True),
        ("x = 3", "3 = x", True),
        ("y = 2x + 1", "2y = 4x + 2", True),
        ("x^2 = 1", "x = 1", False),
        ("x + y = 1", "x + y = 2", False),
    ],
)
def test_equations_equal(a: str, b: str, expected: bool) -> None:
    assert equations_equal(a, b) is expected


def test_parse_equation() -> None:
    eq = parse_equation("y = 2x + 1")
    assert eq is not None and str(eq[0]) == "y" and str(eq[1]) == "2*x + 1"
    assert parse_equation("x = y = 1") is None
    assert parse_equation("x \\le 1") is None
    assert parse_equation("no equation") is None


def test_capitals_side_by_side_are_a_name_not_a_product() -> None:
    """Read as commutative products, "CNC" (dimethylamine) would equal "CCN" (ethylamine) and
    the codon "ATG" would equal "GTA": capitals written side by side are not parsed as math."""
    from verifier_runtime.toolkit.compare import answers_equivalent, parse_answer

    for s in ("CNC", "CCN", "ATG", "AB", "2AB", "P(A)", "C(C)O"):
        assert parse_expression(s) is None, s
        assert parse_answer(s).kind == "text", s
    for a, b in (("CNC", "CCN"), ("ATG", "GTA"), ("COC", "CCO"), ("AB", "BA")):
        assert answers_equivalent(a, b).equal is not True, (a, b)
    # products a reader writes as math still parse: lower case, subscripts, powers, explicit operators
    for s in ("xy", "Ax", "R_1R_2", "\\frac{R_1 R_2}{R_1+R_2}", "AB^2", "A \\cdot B", "H_2O"):
        assert parse_expression(s) is not None, s
    assert answers_equivalent("xy", "yx").equal is True
    assert answers_equivalent("\\frac{R_1 R_2}{R_1+R_2}", "\\frac{R_2R_1}{R_2+R_1}").equal is True


# --- rigorous enclosures -------------------------------------------------------------------------

ENCLOSED = ["x^2 - 3x + 1", "\\frac{1}{x + 2}", "\\sqrt{x^2 + 1}", "e^{-x} \\sinh(2x)", "\\ln(x + 3)",
            "\\tan(x) + \\cos^2(x)", "x^{3/2} \\cosh(x)", "\\frac{\\pi}{4} \\tanh(x) - e", "\\sec(x) \\csc(x + 2)"]


@pytest.mark.parametrize("text", ENCLOSED)
def test_an_enclosure_holds_every_value_over_its_box(text: str) -> None:
    from verifier_runtime.toolkit.latex.numeric import _ctx, _iv_ctx, interval_value, numeric_value

    expr = parse_expression(text)
    (x,) = expr.free_symbols
    ctx = _iv_ctx()
    box = interval_value(expr, {x: ctx.mpf([0.25, 0.75])})
    assert box is not None, text
    for k in range(11):
        point = 0.25 + k * 0.05
        value = numeric_value(expr, {x: _ctx().mpf(point)})
        thin = interval_value(expr, {x: ctx.mpf(point)})
        assert value in box and value in thin, (text, point)
        assert thin.delta < 1e-30  # a point's enclosure is tight


@pytest.mark.parametrize(("text", "low", "high"), [
    ("\\frac{1}{x}", -1, 1), ("\\ln(x)", -1, 1), ("\\tan(x)", 1, 2), ("\\sqrt{x - 1}", 0.5, 1.5),
    ("x^{1/3}", -1, 1), ("|x|", 1, 2), ("\\lfloor x \\rfloor", 1, 2), ("e^{x}", 100, 101), ("x + i", 1, 2),
    ("\\arcsin(x)", 0, 0.5), ("2^{x}", 1, 2), ("\\sin(x)", 100, 101), ("x!", 1, 2),
])
def test_no_enclosure_where_the_expression_may_not_be_analytic(text: str, low: float, high: float) -> None:
    from verifier_runtime.toolkit.latex.numeric import _iv_ctx, interval_value

    expr = parse_expression(text)
    x = next(s for s in expr.free_symbols if s.name == "x")
    assert interval_value(expr, {x: _iv_ctx().mpf([low, high])}) is None, text


def test_kept_tolerance_constants_are_the_converted_ones() -> None:
    from verifier_runtime.toolkit.latex.numeric import NOISE, _close, _constant, _ctx

    ctx = _ctx()
    tolerances = [0.0, 1e-9, 1e-6, 0.05, NOISE, 1e-9, 0.0] + [k / 997 for k in range(100)]
    for x in tolerances:
        assert _constant(ctx, x) == ctx.mpf(repr(float(x))), x
    a, b = ctx.mpf(1), ctx.mpf(1) + ctx.mpf("1e-7")
    assert not _close(a, b, 1e-9, 0.0) and _close(a, b, 1e-6, 0.0) and _close(a, b, 0.0, 1e-6)
    assert not _close(a, b, 0.0, 0.0) and _close(a, a + ctx.mpf("1e-30"), 0.0, 0.0)


def test_an_enclosure_stops_at_the_time_budget() -> None:
    """The enclosure swallows every evaluation error (no enclosure proves nothing) but not the
    time budget, which is a BaseException."""
    import time

    import sympy as sp

    from verifier_runtime.limits import BudgetExceeded, budget
    from verifier_runtime.toolkit.latex.numeric import _iv_ctx, interval_value

    x = sp.Symbol("x")
    expr = sp.Add(*[sp.sin(x + k) for k in range(150)])  # more nodes than one deadline check apart
    with pytest.raises(BudgetExceeded), budget(0.001, hard=False):
        time.sleep(0.01)
        interval_value(expr, {x: _iv_ctx().mpf([0.5, 1.5])})


@pytest.mark.parametrize(("text", "value"), [
    (r"2\operatorname{cis}(\pi/3)", "1 + sqrt(3)*I"),
    (r"2\,\text{cis}\,60^\circ", "1 + sqrt(3)*I"),
    (r"2\mathrm{cis}\frac{\pi}{3}", "1 + sqrt(3)*I"),
    (r"\operatorname{cis}(\pi)", "-1"),
    (r"4\text{cis}(60^\circ) + 1", "3 + 2*sqrt(3)*I"),
])
def test_cis_form_is_r_cos_plus_i_sin(text: str, value: str) -> None:
    import sympy

    from verifier_runtime.toolkit.latex.convert import parse_expression

    e = parse_expression(text)
    assert e is not None and sympy.simplify(e - sympy.sympify(value)) == 0


@pytest.mark.parametrize("text", ["cis-2-butene", "the cis isomer", r"3\operatorname{cis}("])
def test_cis_as_a_word_is_not_read_as_cis_form(text: str) -> None:
    from verifier_runtime.toolkit.latex.convert import _cis

    assert _cis(text) == text
