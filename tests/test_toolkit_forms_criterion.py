"""Form checks, the question's form cues, and the criterion procedure (docs/criterion.md)."""

from __future__ import annotations

import random

import pytest

from verifier_runtime.toolkit.compare import answers_equivalent, parse_answer
from verifier_runtime.toolkit.criterion import Judgment, judge, reference_aliases, statement_values
from verifier_runtime.toolkit.cues import question_cues
from verifier_runtime.toolkit.forms import (
    denominator_rationalized,
    form_violations,
    fully_factored,
    in_lowest_terms,
    is_expanded,
    is_factored,
    radicals_simplified,
)
from verifier_runtime.toolkit.structures import interval_sets_equal, parse_interval_set
from verifier_runtime.toolkit.units import parse_quantity


@pytest.mark.parametrize(
    ("question", "requirements"),
    [
        ("Give the answer in lowest terms.", ("simplest_form",)),
        ("What percent of 50 is 20?", ("percentage",)),
        ("Express 3/4 as a decimal.", ("decimal",)),
        ("Express your answer as a common fraction.", ("fraction",)),
        ("Express your answer as a mixed number.", ("mixed_number",)),
        ("Find the exact value of sin 60 degrees.", ("exact",)),
        ("Write your answer in interval notation.", ("interval_notation",)),
        ("Expand (x+1)^2.", ("expand",)),
        ("Factor completely: x^3 - x.", ("factor",)),
        ("Rationalize the denominator of 1/sqrt(2).", ("rationalize",)),
        ("Write 12000 in scientific notation.", ("scientific",)),
        ("Round to 2 decimal places.", ("decimal_places",)),
        ("Give your answer to 3 significant figures.", ("sig_figs",)),
        ("What is the speed, in km/h, of the car?", ("unit",)),
        ("Write the quotient in the form $a+bi$.", ("complex_form",)),
        ("Express $1+i$ in polar form.", ("complex_form",)),
        ("Let $z = a + bi$ with $|z| = 5$. Find $a$.", ()),
        ("What is 3 + 4?", ()),
    ],
)
def test_form_requirements_read_from_the_question(question: str, requirements: tuple[str, ...]) -> None:
    assert question_cues(question).form_requirements == requirements
    again = question_cues(question)
    before = (again.as_dict(), repr(again), hash(again))
    assert again.form_requirements == again.form_requirements == requirements  # kept once worked out
    assert (again.as_dict(), repr(again), hash(again)) == before  # and no field of the cues


def test_form_requirements_of_fixed_cues() -> None:
    from verifier_runtime.toolkit.cues import Cues

    fixed = Cues(decimal_places=2, percentage=True)
    assert fixed.form_requirements == fixed.form_requirements == ("percentage", "decimal_places")
    assert fixed == Cues(decimal_places=2, percentage=True) and Cues().form_requirements == ()


@pytest.mark.parametrize(
    ("question", "several", "ordered", "unknown"),
    [
        ("Find all real x such that x^2 = 4.", True, False, None),
        ("What are the roots of x^2 - 5x + 6?", True, False, None),
        ("Enter the solutions, separated by commas.", True, False, None),
        ("Which of the following numbers are prime? (A) 4 (B) 5", True, False, None),
        ("Give the coordinates of the vertex.", False, True, None),
        ("List them in increasing order.", False, True, None),
        ("Solve for x: 2x + 1 = 7.", False, False, "x"),
        ("Find the value of k.", False, False, "k"),
    ],
)
def test_what_the_question_asks_for(question: str, several: bool, ordered: bool, unknown: str | None) -> None:
    c = question_cues(question)
    assert (c.several, c.ordered, c.unknown) == (several, ordered, unknown)


def test_form_checks_read_the_written_form() -> None:
    assert not in_lowest_terms("\\frac{6}{8}") and in_lowest_terms("\\frac{3}{4}") and not in_lowest_terms("6x/8")
    assert is_expanded("x^2+2x+1") and not is_expanded("(x+1)^2") and not is_expanded("2(x+1)")
    assert is_factored("(x-1)(x+1)") and is_factored("x^2+1") and not is_factored("x^2-1")
    assert fully_factored("x(x-1)(x+1)") and not fully_factored("x(x^2-1)") and not fully_factored("(2x+2)(x-1)")
    assert denominator_rationalized("\\frac{\\sqrt{2}}{2}") and not denominator_rationalized("\\frac{1}{\\sqrt{2}}")
    assert radicals_simplified("2\\sqrt{2}") and not radicals_simplified("\\sqrt{8}")


@pytest.mark.parametrize(
    ("answer", "question", "code"),
    [
        ("\\frac{6}{8}", "Give the answer in lowest terms.", "form:not_lowest_terms"),
        ("3.14159", "Round pi to 2 decimal places.", "form:decimal_places"),
        ("0.2500", "Give your answer to 3 significant figures.", "form:sig_figs"),
        ("3/4", "Express as a decimal.", "form:decimal_required"),
        ("0.75", "Express as a common fraction.", "form:fraction_required"),
        ("\\frac{3}{2}", "Express your answer as a mixed number.", "form:mixed_number_required"),
        ("\\sqrt{8}", "Express in simplest radical form.", "form:radical_not_simplified"),
        ("1.414", "Find the exact value.", "form:exact_required"),
        ("x > 2", "Write your answer in interval notation.", "form:interval_notation_required"),
        ("(x+1)^2", "Expand (x+1)^2.", "form:not_expanded"),
        ("x^3-x", "Factor x^3 - x.", "form:not_factored"),
        ("x(x^2-1)", "Factor completely: x^3 - x.", "form:not_fully_factored"),
        ("\\frac{1}{\\sqrt{2}}", "Rationalize the denominator.", "form:denominator_not_rationalized"),
        ("12000", "Write 12000 in scientific notation.", "form:scientific_notation_required"),
        ("500 cm", "How long is it, in meters?", "form:unit_required"),
        ("\\sqrt{2}e^{i\\pi/4}", "Write it in the form a + bi.", "form:rectangular_required"),
        ("2(\\cos 30^\\circ + i\\sin 30^\\circ)", "Express in rectangular form.", "form:rectangular_required"),
        ("1 + i\\sqrt{3}", "Write z in exponential form.", "form:polar_required"),
    ],
)
def test_each_form_violation_has_its_code(answer: str, question: str, code: str) -> None:
    assert form_violations(answer, question_cues(question)) == (code,)


@pytest.mark.parametrize(
    ("answer", "question"),
    [("\\frac{3}{4}", "Give the answer in lowest terms."), ("3.14", "Round pi to 2 decimal places."),
     ("3.1", "Round to 2 decimal places."), ("x(x-1)(x+1)", "Factor completely: x^3 - x."),
     ("(2, \\infty)", "Write your answer in interval notation."), ("1.2 \\times 10^{4}", "In scientific notation."),
     ("5 m", "How long is it, in meters?"), ("5", "How long is it, in meters?"),
     ("3 - 4i", "Write it in the form a + bi."), ("\\frac{1 + i}{2}", "Write it in the form a + bi."),
     ("-2", "Write it in the form a + bi."), ("(1 + i)^2", "Write it in the form a + bi."),
     ("2e^{i\\pi/3}", "Write z in polar form."), ("2(\\cos 1 + i\\sin 1)", "Write z in polar form."),
     ("e^{2} + 1", "Write 7.39 + 1 in exponential form.")],
)
def test_allowed_forms_pass(answer: str, question: str) -> None:
    assert form_violations(answer, question_cues(question)) == ()


def test_form_checks_never_raise() -> None:
    rng = random.Random(3)
    pieces = ["\\frac{", "}{", "}", "\\sqrt", "(", ")", "x", "^", "2", "+", "-", "/", ",", "\x00", "\\", "{", "9" * 50]
    cues = question_cues("Factor completely, rationalize the denominator, in lowest terms, to 3 significant figures.")
    for _ in range(1500):
        s = "".join(rng.choice(pieces) for _ in range(rng.randint(0, 20)))
        assert isinstance(form_violations(s, cues), tuple)


@pytest.mark.parametrize(
    ("question", "reference", "response", "correct", "reason"),
    [
        ("What is 3+4?", "14", "It is either 12 or 14 or 16.", False, "hedge:alternatives"),
        ("What is 3+4?", "7", "\\boxed{6} or \\boxed{7}", False, "hedge:multiple_final_answers"),
        ("What is 9*9?", "81", "The answer is not 81.", False, "negation:reference_negated"),
        ("Solve y^2-5y+4=0.", "1, 4", "y = 1 or y = 4", True, "equal:set"),
        ("Find all x.", "\\{2, 9\\}", "\\boxed{2} and \\boxed{9}", True, "equal:set"),
        ("Solve 3 - y < 5.", "y > -2", "-y < 2", True, "equal:interval"),
        ("Solve -y < 2.", "y > -2", "-y < 2", False, "restatement:question_expression"),
        # the question's own 6/8 in another spelling: a restatement before it is a form violation (R2.6)
        ("Simplify 6/8 to lowest terms.", "\\frac{3}{4}", "\\frac{6}{8}", False, "restatement:question_expression"),
        ("What gas forms?", "CO", "Co", False, "differ:case"),
        ("Length?", "0.5 cm", "4.8 \\times 10^{-3} m", True, "equal:within_reference_precision"),
        ("Length?", "0.5 cm", "0.44 cm", False, "differ:quantity"),
        ("What is pi to five places?", "3.14159", "3.14", False, "differ:rounding"),
        # R5.3: a coarser rounding of a decimal reference, no precision asked: incorrect, but ambiguous
        ("What is pi?", "3.14159", "3.14", False, "ambiguous:coarser_rounding"),
        ("Find the acceleration.", "3.528 m/s^2", "3.53", False, "ambiguous:coarser_rounding"),
        ("Find the acceleration.", "3.528 m/s^2", "3.53 m/s^2", False, "ambiguous:coarser_rounding"),
        ("How long does it take?", "3.61 \\times 10^{3}", "3600", False, "ambiguous:coarser_rounding"),
        ("Give it to 2 significant figures.", "3.528", "3.5", True, "equal:rounded_as_asked"),
        ("What is the ratio?", "0.466", "0.47", False, "ambiguous:coarser_rounding"),
        ("What is the ratio?", "0.466", "0.5", False, "differ:number"),  # one significant figure left
        ("What is the ratio?", "0.466", "0.46", False, "differ:number"),  # not the rounding of 0.466
        ("What is the ratio?", "0.466", "0.4653", False, "ambiguous:near_value"),  # within 1%, finer
        ("What is the ratio?", "0.466", "0.4553", False, "differ:number"),  # 2.3% off
        ("What is the ratio?", "0.99", "0.9849", False, "differ:number"),  # within 1%, but a two-figure reference
        ("How long does it take?", "1.43 \\times 10^{6} s", "1.42 \\times 10^{6} s", False, "ambiguous:near_value"),
        ("How long does it take?", "1.43 \\times 10^{6} s", "1.42 \\times 10^{6}", False, "ambiguous:near_value"),
        ("How many are there?", "144", "140", False, "differ:number"),  # an integer is exact
        ("Enter all values, separated by commas.", "-10879,10879", "-10879", False, "differ:number"),
        # R5.2: a bare number equal to the reference in another unit of its dimension: ambiguous
        ("What energy does it need?", "3.3 GeV", "3300", False, "ambiguous:unstated_unit"),
        ("What diameter must it have?", "0.3 mm", "2.9 \\times 10^{-4}", False, "ambiguous:unstated_unit"),
        ("How far does it fall?", "19.6 m", "1960", False, "ambiguous:unstated_unit"),
        ("What is the work per kg?", "82.75 kJ/kg", "82750", False, "ambiguous:unstated_unit"),
        ("What energy does it need?", "3.3 GeV", "4300", False, "differ:number"),
        ("What energy does it need, in GeV?", "3.3 GeV", "3300", False, "differ:quantity"),
        ("A class has 12 boys and 8 girls. What is the ratio of boys to girls?", "3:2", "12:8", True, "equal:ratio"),
        ("How many tickets?", "12345", "12,345 tickets", True, "equal:number"),
        ("Evaluate $2^{10}$.", "1024", "$2^{10}$", False, "restatement:question_expression"),
        ("What is 12 x 12?", "144", "12 × 12 = 120 + 24 =", False, "invalid:truncated"),
    ],
)
def test_criterion_decisions_with_their_reasons(question: str, reference: str, response: str, correct: bool,
                                                reason: str) -> None:
    assert judge(question, reference, response) == Judgment(correct, reason)


def test_a_decimal_comma_is_read_from_the_text_around_it() -> None:
    assert judge("Se tiene x = 0,617. Calcule 2x.", "1,234", "2x = 1,234").correct
    assert judge("How many grams are in 1.234 kilograms?", "1234", "1,234 g").correct
    assert judge("Quanto fa 1,234 per 1? Rispondi.", "1234", "1,234").reason == "ambiguous:comma"


def test_aliases_split_text_not_mathematics() -> None:
    assert reference_aliases("Humble Pie/HUMBLE PIE") == ("Humble Pie", "HUMBLE PIE")
    assert reference_aliases("7/seven") == ("7", "seven")
    assert reference_aliases("1/2") == ("1/2",) and reference_aliases("90 km/h") == ("90 km/h",)


def test_statement_values() -> None:
    assert statement_values("12,345 tickets") == ["12,345"]
    assert statement_values("Water is H2O, so the ratio is 2 : 1.")[0] == "2 : 1"
    assert "16%" in statement_values("So 40 is 16% of 250.", percent=True)
    assert "0.5" not in statement_values("0.5 m")  # a unit is never dropped


def test_parsing_additions() -> None:
    assert parse_answer("12:8").kind == "ratio" and answers_equivalent("30:60:90", "1:2:3").equal
    assert parse_quantity("90 kilometres per hour").unit == "kilometer / hour"
    assert parse_quantity("12 square meters").unit == "meter ** 2"
    assert parse_quantity("3 \\mathrm{m\\,s^{-1}}").unit == "meter / second"
    a, b = parse_interval_set("2x+1 \\ge 5"), parse_interval_set("[2, \\infty)")
    assert a is not None and interval_sets_equal(a, b)
    assert parse_interval_set("All real numbers satisfy it.") is not None


def test_the_judge_never_raises() -> None:
    rng = random.Random(8)
    pieces = ["or ", "not ", "\\boxed{", "}", "$", "1,234", "x = ", "\\frac{1}{2}", "km/h", "(A) ", "%", "\\pm",
              "Actually no, ", "\x00", "\ud800", "=", ":", "\\{", "\\}", "e", "\\sqrt{", "9" * 30]
    for _ in range(1500):
        q, r, s = ("".join(rng.choice(pieces) for _ in range(rng.randint(0, 12))) for _ in range(3))
        j = judge(q, r, s)
        assert isinstance(j, Judgment) and (j.correct is None) == (j.reason == "no_reference_answer")


def test_a_bound_is_not_the_value_unless_an_extreme_is_asked() -> None:
    from verifier_runtime.toolkit.criterion import _bound_for_one_value as bound

    for a in ("at least 42", "no more than 42 marbles", "more than 42 m/s", "\\geq 42", "42 or more", "up to 42"):
        assert bound(a, "42", "Compute it."), a
    for a in ("42", "about 42", "exactly 42", "6 over 7 is less than 1, so 42", "at most 42, and 42 is attained, so 42"):
        assert not bound(a, "42", "Compute it."), a
    assert not bound("at least 13 guests", "13", "What is the smallest number of guests needed?")
    assert not bound("at least 42", "at least 42", "Compute it.")  # the reference is itself a bound
    assert bound("at least 12", "12", "What is the least common multiple of 4 and 6?")


def test_plus_minus_is_not_a_modulus_or_a_bold_symbol() -> None:
    from verifier_runtime.toolkit.structures import expand_plus_minus, has_plus_minus

    assert has_plus_minus("2 \\pm 1") and has_plus_minus("\u00b1 3") and has_plus_minus("x = 1 \\mp 2")
    assert not has_plus_minus("4 \\pmod 7") and not has_plus_minus("\\pmb{v}") and not has_plus_minus("\\begin{pmatrix}")
    assert expand_plus_minus("4 \\pmod{7}") is None and expand_plus_minus("2 \\pm 1") is not None


def test_a_nested_list_is_a_matrix_row_by_row() -> None:
    from verifier_runtime.toolkit.structures import parse_matrix

    m = parse_matrix("[[1, 2], [3, 4]]")
    assert m is not None and len(m.rows) == 2 and len(m.rows[0]) == 2
    assert parse_matrix("[[1, 2], [3]]") is None  # rows of unequal length
    assert parse_matrix("[1, 2]") is None  # a flat list is no matrix


def test_digits_answer_in_the_base_the_question_asks_for() -> None:
    from verifier_runtime.toolkit.criterion import compare_numbers
    from verifier_runtime.toolkit.numbers import parse_number
    from verifier_runtime.triple import Triple

    x = Triple("What is $45_{10}$ in base 6?", "113_6", "")
    assert compare_numbers(parse_number("113"), parse_number("113_6"), None, x).correct
    assert not compare_numbers(parse_number("45"), parse_number("113_6"), None, x).correct
    assert compare_numbers(parse_number("78"), parse_number("113_6"), None, x).reason == "differ:base"
    binary = Triple("Write 5 in binary.", "101_2", "")
    assert compare_numbers(parse_number("101"), parse_number("101_2"), None, binary).correct
    # without a base in the question, digits keep their decimal value
    plain = Triple("Compute it.", "101_2", "")
    assert compare_numbers(parse_number("5"), parse_number("101_2"), None, plain).correct


@pytest.mark.parametrize(
    ("answer", "phrase", "extended"),
    [
        ("Booker T. Washington", "Washington", True),  # an initial before it
        ("Washington, D.C.", "Washington", True),  # a comma and an abbreviation after it
        ("New Canberra", "Canberra", True),
        ("Canberra Park", "Canberra", True),
        ("In Canberra.", "Canberra", False),  # a word that starts a statement
        ("The answer is Canberra.", "Canberra", False),
        ("Canberra is the capital.", "Canberra", False),
        ("Paris, France", "Paris", False),  # an apposition names where, not another thing
        ("Connie is William's daughter", "daughter", False),  # a possessive, not a name
        ("Panama Canal (Panama)", "Panama Canal", False),
    ],
)
def test_name_extended_finds_a_phrase_inside_a_longer_name(answer: str, phrase: str, extended: bool) -> None:
    from verifier_runtime.toolkit.criterion import name_extended

    assert name_extended(answer, phrase) is extended


def test_a_reference_inside_a_longer_name_is_not_stated_but_another_alias_may_be() -> None:
    from verifier_runtime.toolkit.criterion import reference_stated
    from verifier_runtime.triple import Triple

    x = Triple("Who was the first president of the USA?", "George Washington/Washington", "Booker T. Washington")
    assert not reference_stated(x, "Washington")
    y = Triple("Who proposed the Virginia Plan?", "Madison/James Madison", "It was James Madison.")
    assert not reference_stated(y, "Madison") and reference_stated(y, "James Madison")


@pytest.mark.parametrize(
    ("text", "factors"),
    [
        ("3 \\times 4", {3: 1, 4: 1}),
        ("$2^3 \\cdot 3^2 \\cdot 5$", {2: 3, 3: 2, 5: 1}),
        ("4 by 3", {3: 1, 4: 1}),
        ("3x4", {3: 1, 4: 1}),
        ("2 \\times 2 \\times 3", {2: 2, 3: 1}),
        ("10 \\times 10", {10: 2}),
        ("3 \\times 10^8", None),  # scientific notation
        ("6 \\times 10^{3}", None),
        ("12", None),
        ("x \\times 4", None),
        ("written by Shakespeare", None),
    ],
)
def test_integer_factors_reads_a_product_of_whole_numbers_only(text: str, factors: dict | None) -> None:
    from verifier_runtime.toolkit.criterion import integer_factors

    assert integer_factors(text) == factors


def test_a_reference_kept_as_factors_is_guarded_against_its_product_and_other_factors() -> None:
    from verifier_runtime.toolkit.criterion import pass_guard
    from verifier_runtime.triple import Triple

    q = "What are the dimensions of the rectangle?"
    assert pass_guard(Triple(q, "3 \\times 4", "12")) == "form:product_expected"
    assert pass_guard(Triple(q, "3 \\times 4", "2 \\times 6")) == "differ:factors"
    assert pass_guard(Triple(q, "3 \\times 4", "4 \\times 3")) is None
    assert pass_guard(Triple("How fast is light?", "3 \\times 10^8", "300000000")) is None
    assert judge("Find the prime factorization of 12.", "2^2 \\cdot 3", "12") == Judgment(False, "form:product_expected")
    assert judge("Find the prime factorization of 12.", "2^2 \\cdot 3", "3 \\times 2^2") == Judgment(True, "equal:factors")


def test_a_number_with_its_own_operation_is_guarded_as_that_value() -> None:
    from verifier_runtime.toolkit.criterion import pass_guard
    from verifier_runtime.triple import Triple

    assert pass_guard(Triple("How many orders?", "5", "The count is $\\boxed{5}!$.")) is not None
    assert pass_guard(Triple("How many orders?", "120", "The count is $\\boxed{5}!$.")) is None
    assert pass_guard(Triple("How many?", "12", "$\\boxed{12}^2$")) is not None


@pytest.mark.parametrize(
    ("question", "answer", "bound"),
    [
        ("What is the minimum number?", "The minimum is at least 42.", True),
        ("What is the least possible value?", "The least possible value is at least 42.", True),
        ("What is the smallest number of guests?", "At least 42 guests.", False),
        ("How many guests came?", "At least 42 guests.", True),
    ],
)
def test_a_bound_on_the_asked_extreme_itself_is_still_a_bound(question: str, answer: str, bound: bool) -> None:
    from verifier_runtime.toolkit.criterion import pass_guard
    from verifier_runtime.triple import Triple

    assert (pass_guard(Triple(question, "42", answer)) == "hedge:bound") is bound


def test_an_option_judged_wrong_is_no_answer_unless_the_wrong_one_is_asked() -> None:
    from verifier_runtime.toolkit.criterion import pass_guard
    from verifier_runtime.triple import Triple

    q = "Which gas makes up most of the air? (A) oxygen (B) nitrogen (C) argon (D) neon"
    assert pass_guard(Triple(q, "B", "Option B is incorrect.")) == "negation:only_negated"
    assert judge(q, "B", "(B) is wrong.") == Judgment(False, "negation:only_negated")
    asked = "Which statement is false? (A) 2 is even (B) 3 is even (C) 4 is even (D) 6 is even"
    assert pass_guard(Triple(asked, "B", "Statement B is false.")) is None
    assert judge(asked, "B", "Statement B is false.").correct is True


def test_a_label_naming_another_unknown_is_guarded_and_a_prose_exclamation_is_no_factorial() -> None:
    from verifier_runtime.toolkit.criterion import pass_guard
    from verifier_runtime.triple import Triple

    assert pass_guard(Triple("Solve $x + 1 = 3$ for $x$.", "2", "y = 2")) == "differ:label"
    assert pass_guard(Triple("Solve $x + 1 = 3$ for $x$.", "2", "x = 2")) is None
    assert pass_guard(Triple("Compute 6 times 7.", "42", "Answer: 42!")) is None  # an exclamation
    assert pass_guard(Triple("Find x.", "42", "Work. <answer>42</answer>")) is None  # a tag, not a relation


@pytest.mark.parametrize(("answer", "math"), [
    ("The answer is 7 squared.", "7^2"), ("It is 4 cubed.", "4^3"), ("There are 5 factorial ways.", "5!"),
    ("The side is the square root of 7.", "\\sqrt{7}"), ("She swam half of 12.", "12/2"),
    ("The trip took 3 and a half hours.", "3+1/2"), ("The reading is 7 point 5.", "7.5"),
    ("The length is 8 times 3.", "(8)*(3)"), ("It is 2 to the power of 5.", "(2)^(5)"),
    ("The rope is the square root of 4 times 4.", ""), ("It is 12 divided by 3 plus 1.", ""),
    ("It rang 8 times.", None), ("10 minus 3 is 7.", None), ("The answer is 7.", None), ("half", None),
])
def test_operations_in_words_are_read_as_math(answer: str, math) -> None:
    from verifier_runtime.toolkit.criterion import word_operation

    assert word_operation(answer) == math


@pytest.mark.parametrize(("question", "reference", "response", "guard"), [
    # where no place is asked, two names are two peers whichever comes first (R2.3)
    ("Which planet is largest?", "Jupiter", "Saturn, Jupiter", "hedge:list_for_single_answer"),
    ("Which planet is largest?", "Jupiter", "Jupiter, Saturn", "hedge:list_for_single_answer"),
    ("Which planet is largest?", "Jupiter", "Jupiter, the fifth planet, is the largest.", None),
    ("In which state was he born?", "Virginia", "Norfolk, Virginia", "ambiguous:two_names"),
    ("What is the capital of France?", "Paris", "Paris, France", None),
    ("What is the capital of France?", "Paris, France", "Paris, France", None),
])
def test_no_module_passes_the_second_of_two_names(question: str, reference: str, response: str, guard) -> None:
    from verifier_runtime.toolkit.criterion import pass_guard
    from verifier_runtime.triple import Triple

    assert pass_guard(Triple(question, reference, response)) == guard
