"""The typed comparator, driven by the golden cases in tests/golden/math_cases.json."""

from __future__ import annotations

import json
import time
from pathlib import Path

import pytest

from verifier_runtime.toolkit.compare import (
    ANSWER_KINDS,
    Answer,
    Comparison,
    answers_equivalent,
    compare_answers,
    interpretations,
    parse_answer,
)
from verifier_runtime.toolkit.units import preload_units

GOLDEN = json.loads((Path(__file__).parent / "golden" / "math_cases.json").read_text(encoding="utf-8"))


@pytest.fixture(scope="module", autouse=True)
def _units_loaded() -> None:
    preload_units()


def test_golden_file_is_well_formed() -> None:
    ids = [c["id"] for c in GOLDEN]
    assert len(ids) == len(set(ids)) >= 120
    assert all(c.get("source") for c in GOLDEN)
    assert {True, False, None} <= {c["expected"] for c in GOLDEN}


@pytest.mark.parametrize("case", GOLDEN, ids=[c["id"] for c in GOLDEN])
def test_golden(case: dict) -> None:
    tol = {"rel_tol": case.get("rel_tol", 0.0), "abs_tol": case.get("abs_tol", 0.0)}
    forward = answers_equivalent(case["a"], case["b"], **tol)
    backward = answers_equivalent(case["b"], case["a"], **tol)
    assert forward.equal is case["expected"], forward
    assert backward.equal is case["expected"], backward  # comparison is symmetric


@pytest.mark.parametrize(
    ("text", "kind"),
    [
        ("42", "number"),
        ("x = 5", "number"),
        ("12 cm", "quantity"),
        ("x^2 + 1", "expression"),
        ("y = 2x + 1", "equation"),
        ("[0, 1)", "interval"),
        ("x > 3", "interval"),
        ("(1, \\infty) \\cup (-\\infty, 0)", "interval"),
        ("\\{1, 2\\}", "set"),
        ("1, 2, 3", "set"),
        ("(1, 2)", "tuple"),
        ("\\langle 1, 2 \\rangle", "tuple"),
        ("\\begin{pmatrix}1 & 0\\\\ 0 & 1\\end{pmatrix}", "matrix"),
        ("Paris", "text"),
        ("no solution", "text"),
    ],
)
def test_parse_answer_kinds(text: str, kind: str) -> None:
    a = parse_answer(text)
    assert a is not None and a.kind == kind and a.kind in ANSWER_KINDS and a.text == text


@pytest.mark.parametrize("text", ["", "   ", "1/0", "+-*", None, 5, "x" * 1001, "a\x00b"])
def test_parse_answer_none(text: object) -> None:
    assert parse_answer(text) is None


def test_ambiguous_pair_exposed() -> None:
    assert interpretations(parse_answer("(0, 1)")) == ("tuple", "interval")
    assert interpretations(parse_answer("(1, 2, 3)")) == ("tuple",)
    assert interpretations(parse_answer("[0, 1)")) == ("interval",)


def test_comparison_details() -> None:
    assert answers_equivalent("0.5", "1/2") == Comparison(True, "number", "number:exact")
    assert answers_equivalent("0.5", "0.50001", rel_tol=1e-3).detail == "number:rel_tol"
    assert answers_equivalent("\\sqrt{2}", "1.414").detail == "number_expr:exact"
    assert answers_equivalent("x+1", "(0, 1]").detail == "kind_mismatch"
    assert answers_equivalent("", "1").detail == "unparsed"
    assert answers_equivalent("5 N", "5 kg").detail == "quantity:dimension_mismatch"
    assert answers_equivalent("(x+1)^2", "x^2+2x+1").detail == "expr:numeric"
    assert answers_equivalent("2\\sqrt2", "\\sqrt{8}").detail == "expr:structural"


def test_compare_answers_never_raises_on_odd_values() -> None:
    odd = Answer("number", "not a Number", "?")
    assert compare_answers(odd, parse_answer("1")).equal is None
    assert compare_answers(None, None).equal is None  # type: ignore[arg-type]


def test_plain_number_speed() -> None:
    """Parse + compare of plain numbers stays in tens of microseconds (asserted generously)."""
    answers_equivalent("12", "12.0")
    n = 3000
    t0 = time.perf_counter()
    for _ in range(n):
        answers_equivalent("1234", "1234.0")
        answers_equivalent("0.75", "\\frac{3}{4}")
    per = (time.perf_counter() - t0) / (2 * n)
    assert per < 5e-4, per


def test_importing_the_comparator_loads_neither_sympy_nor_pint() -> None:
    import subprocess
    import sys

    code = (
        "import sys; import verifier_runtime.toolkit.compare as c;"
        "c.answers_equivalent('1,234', '1234'); c.answers_equivalent('yes', 'Yes');"
        "print('sympy' in sys.modules, 'pint' in sys.modules)"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60)
    assert out.stdout.strip() == "False False", out.stderr


@pytest.mark.parametrize("text", ["1977/in 1977", "born in 1950", "the end of 1945", "10 of them"])
def test_a_function_word_makes_text_not_an_expression(text: str) -> None:
    # "in" is no product i*n (nor the imaginary unit): an alias list with words stays text
    a = parse_answer(text)
    assert a is not None and a.kind == "text", a


def test_letters_without_function_words_are_still_expressions() -> None:
    assert parse_answer("a/b").kind == "expression"
    assert parse_answer("\\sin x").kind == "expression"
