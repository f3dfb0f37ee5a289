"""Answer forms and hedges read by the toolkit's primitives: a parenthetical restatement, ranges
in prose, a sentence cut off on a connective, a whether-clause, numbers as dozens, infinity in
words, sets without points and absolute-value bounds, momentum and mass units in eV/c."""

from __future__ import annotations

from fractions import Fraction

import pytest

from verifier_runtime.toolkit.commit import final_commitment, restated_other_value
from verifier_runtime.toolkit.compare import parse_answer
from verifier_runtime.toolkit.criterion import _range_around, is_restatement, judge
from verifier_runtime.toolkit.extract import extract_final_answer
from verifier_runtime.toolkit.numbers import parse_number_words
from verifier_runtime.toolkit.structures import interval_sets_equal, parse_interval_set
from verifier_runtime.toolkit.units import parse_quantity


@pytest.mark.parametrize("answer, expected", [
    ("42 (about 43)", ("42", "43")),
    ("7 (i.e., 8)", ("7", "8")),
    ("$\\frac{1}{3}$ (approximately 0.5)", ("\\frac{1}{3}", "0.5")),
    ("The polygon has 9 sides (about 10)", ("9", "10")),
    ("42 (roughly 42)", None),
    ("$\\frac{1}{3}$ (approximately 0.333)", None),  # rounded
    ("$\\frac{2}{3}$ (approximately 0.666)", None),  # cut at its last digit
    ("41.7 (about 42)", None),
    ("42 (6 times 7)", None),  # no approximation marker
    ("Paris (about 43)", None),  # no number before it
])
def test_restated_other_value(answer, expected):
    got = restated_other_value(answer)
    if expected is None:
        assert got is None
    else:
        assert got is not None and got[1] == expected[1] and expected[0] in got[0]


def test_a_restatement_with_another_value_is_two_candidates():
    c = final_commitment("The answer is 42 (about 43).")
    assert c.hedged and set(c.candidates) == {"42", "43"}
    assert not final_commitment("The answer is 42 (roughly 42).").hedged


@pytest.mark.parametrize("answer, ref, expected", [
    ("It is 42 to 43 m long.", "42", True),
    ("The answer is 42~43.", "42", True),
    ("It is $42\\sim 43$.", "43", True),
    ("The temperature rises from 20 to 42 degrees.", "42", False),  # a change, not a range
    ("84/2 to 42", "42", False),  # an operator before the first number
    ("There are 40 to 45 of them.", "42", False),  # the reference is no end of it
    ("It is 42 to 43 m long.", "42 to 43", False),  # the reference is itself a range
])
def test_range_around(answer, ref, expected):
    assert _range_around(answer, ref) is expected


@pytest.mark.parametrize("text, cut", [
    ("We have x^2 = 0 which implies th", True),
    ("We have x = 0 and therefore", True),
    ("The solution is x = 0 with", True),
    ("x = 0", False),
    ("It is Of Mice and Men", False),
    ("It was written by Mark Twain", False),
])
def test_a_sentence_stopping_on_a_connective_is_cut_off(text, cut):
    assert extract_final_answer(text).truncated is cut


def test_a_whether_clause_offers_no_candidates():
    assert judge("What is the remainder?", "2", "Whether n is 5 or 8, the remainder is 2.").correct is True
    assert judge("What is the remainder?", "2", "Whether n is 5 or 8, the remainder is 2 or 1.").correct is False
    assert judge("What is the remainder?", "2", "Whether it is 2 or 1, I can't tell.").correct is False


def test_turn_words_after_a_reported_belief():
    q = "Who painted the Mona Lisa?"
    assert judge(q, "Leonardo da Vinci", "Many think Raphael, but it was Leonardo da Vinci.").correct is True
    assert judge(q, "Leonardo da Vinci", "Many think Leonardo da Vinci, but it was Raphael.").correct is False
    assert judge(q, "Leonardo da Vinci", "Some say Raphael, but maybe Leonardo da Vinci.").correct is False


@pytest.mark.parametrize("text, value", [
    ("a dozen", 12), ("two dozen", 24), ("half a dozen", 6), ("one dozen", 12), ("dozen", None), ("half", Fraction(1, 2)), ("dozen half", None),
])
def test_dozens_in_words(text, value):
    n = parse_number_words(text)
    assert (n.value if n is not None else None) == value


@pytest.mark.parametrize("text, sign", [
    ("infinity", 1), ("\\text{infinity}", 1), ("Infinity", 1), ("negative infinity", -1), ("-infinity", -1),
    ("minus infinity", -1), ("infinite", None), ("infinity and beyond", None),
])
def test_infinity_in_words(text, sign):
    a = parse_answer(text)
    if sign is None:
        assert a is None or a.kind != "expression"
    else:
        assert a is not None and a.kind == "expression" and (a.value > 0) == (sign > 0) and a.value.is_infinite


@pytest.mark.parametrize("a, b, equal", [
    ("\\mathbb{R}\\setminus\\{0\\}", "(-\\infty,0)\\cup(0,\\infty)", True),
    ("\\mathbb{R}\\setminus\\{-1, 1\\}", "(-\\infty,-1)\\cup(-1,1)\\cup(1,\\infty)", True),
    ("[0,5]\\setminus\\{0\\}", "(0,5]", True),
    ("[0,5]\\setminus\\{5\\}", "[0,5)", True),
    ("[0,5]\\setminus\\{7\\}", "[0,5]", True),
    ("x \\neq 2", "(-\\infty,2)\\cup(2,\\infty)", True),
    ("|x| \\ge 1", "(-\\infty,-1]\\cup[1,\\infty)", True),
    ("|x| < 2", "(-2,2)", True),
    ("|x - 2| < 3", "(-1,5)", True),
    ("|x + 2| > 3", "(-\\infty,-5)\\cup(1,\\infty)", True),
    ("|x - 2| \\le 3", "(-1,5)", False),
    ("\\mathbb{R}\\setminus\\{1\\}", "(-\\infty,0)\\cup(0,\\infty)", False),
])
def test_sets_without_points_and_absolute_bounds(a, b, equal):
    pa, pb = parse_interval_set(a), parse_interval_set(b)
    assert pa is not None and pb is not None
    assert bool(interval_sets_equal(pa, pb)) is equal


def test_absolute_bound_below_zero_is_not_read():
    assert parse_interval_set("|x| < 0") is None
    assert parse_interval_set("\\mathbb{R}\\setminus\\{a\\}") is None  # a symbolic point: not read


def test_restatement_of_an_inequality_in_another_spelling():
    assert is_restatement("|x| \\ge 1", "(-\\infty,-1]\\cup[1,\\infty)", "Solve $|x| \\geq 1$.")
    assert not is_restatement("|x| \\ge 1", "(-\\infty,-1]\\cup[1,\\infty)", "Solve $x^2 \\geq 1$.")


def test_electronvolts_per_c():
    p, m, e = parse_quantity("3.3 GeV/c"), parse_quantity("938 MeV/c^2"), parse_quantity("3.3 GeV")
    assert p is not None and m is not None and e is not None
    assert m.dimensionality == "[mass]"
    assert p.dimensionality != e.dimensionality
    assert parse_quantity("2 eV/cm") is not None  # "c" only alone after eV/
    assert judge("What is the energy?", "3.3 GeV", "The energy is 3.3 GeV/c.").correct is False
    assert judge("What is the momentum?", "3.3 GeV/c", "p = 3300 MeV/c").correct is True


@pytest.mark.parametrize("response, hedged", [
    ("The answer is 12 if n is even, and 14 if n is odd.", True),
    ("12 when n is even; otherwise 14.", True),
    ("If n is even, the answer is 12.", False),
    ("My answer: 12. Backup: 14.", True),
    ("Final answer: 12. Second choice: 14.", True),
    ("12. (If the question meant inclusive, 14.)", True),
    ("**12** (though 14 is defensible)", True),
    ("**12** (though 12 is a lot)", False),
])
def test_conditional_and_conceded_values(response, hedged):
    assert final_commitment(response).hedged is hedged


def test_bar_and_labelled_lists_offer_peers():
    assert judge("How many?", "12", "12 | 14").correct is False
    assert judge("How many?", "12", "Top candidates: 12, 14.").correct is False
    assert judge("How many?", "12", "Top candidate: 12.").correct is True
    assert judge("What is |x| for x = -12?", "12", "|x| = 12").correct is True  # bars of an absolute value


def test_the_asked_labelled_line():
    text = "Remainder: 2\nQuotient: 14"
    assert extract_final_answer(text, "What is the remainder?").answer == "Remainder: 2"
    assert extract_final_answer(text, "What is the quotient?").answer == "Quotient: 14"
    assert extract_final_answer(text, "Find the quotient and the remainder.").answer == "Quotient: 14"  # both named
    work = "Speed = 400 m / 50 s = 8 m/s.\nConverting: 8 × 3.6 = 28.8 km/h."
    assert "28.8" in extract_final_answer(work, "What is the speed?").answer


@pytest.mark.parametrize("question, ref, response, correct", [
    ("What is it?", "\\frac{1}{3}", "$\\frac{1}{3} \\approx 0.333$", True),
    ("What is it?", "\\frac{1}{3}", "$\\frac{1}{3} \\approx 0.5$", False),
    ("What is it?", "0.333", "$\\frac{1}{3} \\approx 0.333$", True),
    ("What is it to three decimal places?", "0.333", "$\\frac{1}{3} \\approx 0.333$", True),
    ("What is it?", "\\sqrt{2}", "$x = \\sqrt{2} \\approx 1.414$", True),
    ("Find the exact value of $\\sin 60^\\circ$.", "\\frac{\\sqrt{3}}{2}", "$\\sin 60^\\circ \\approx 0.866$", False),
])
def test_exact_value_then_its_approximation(question, ref, response, correct):
    assert judge(question, ref, response).correct is correct


@pytest.mark.parametrize("response, correct", [
    ("It can't be 42.", False),
    ("It cannot be 43; it is 42.", True),
    ("42? I doubt it.", False),
    ("Answer: 42 or thereabouts", True),
    ("Answer: 42 or 43", False),
    ("\\boxed{42}\n\nNote: if the last term is excluded, the sum is 40.", False),
    ("\\boxed{42}\n\nNote: if we pair the terms, the sum is 42 as well.", True),
])
def test_doubt_cannot_and_conditions_after_the_answer(response, correct):
    assert judge("Compute the sum.", "42", response).correct is correct


def test_sequences_keep_their_case_only_under_a_sequence_question():
    assert judge("Give the mRNA sequence.", "AUGC", "augc").correct is False
    assert judge("Give the mRNA sequence.", "AUGC", "AUGC").correct is True
    assert judge("What animal chases mice?", "CAT", "cat").correct is True


@pytest.mark.parametrize("text, value", [
    ("\\frac{1}{2}", 0.5), ("-3", -3.0), ("2\\sqrt{2}", 2 * 2 ** 0.5), ("x + 1", None), ("2 + 3i", None), ("[0, 1]", None),
])
def test_real_value_of_numbers_and_constants_only(text, value):
    from verifier_runtime.toolkit.compare import real_value

    got = real_value(parse_answer(text))
    assert (got is None) if value is None else (got is not None and abs(got - value) < 1e-12)


@pytest.mark.parametrize("value, approx, expected", [
    ("\\frac{1}{3}", "0.333", True), ("\\frac{2}{3}", "0.666", True), ("\\frac{2}{3}", "0.667", True),
    ("\\frac{1}{3}", "0.34", False), ("42", "42", True), ("42", "43", False),
    ("\\sqrt{2} \\times 10^{4}", "1.41 \\times 10^{4}", True),  # sig figs of the approximation, as a reference's
    ("\\sqrt{2} \\times 10^{4}", "1.45 \\times 10^{4}", False), ("Paris", "0.5", None),
])
def test_an_approximation_is_rounded_or_cut_at_its_last_digit(value, approx, expected):
    from verifier_runtime.toolkit.commit import _approximates

    assert _approximates(value, approx) is expected


@pytest.mark.parametrize("answer, reason", [
    ("$x \\ne 3$", "negation:only_negated"), ("x != 3", "negation:only_negated"),
    ("x_1 \\neq 3", "negation:only_negated"), ("x \\notin \\{1, 2\\}", "negation:only_negated"),
])
def test_one_not_equal_pattern_negates_a_value(answer, reason):
    c = final_commitment(f"The answer is {answer}.")
    assert c.answer is None and c.reason == reason


def test_one_not_equal_pattern_reads_a_set_without_a_point():
    assert interval_sets_equal(parse_interval_set("x \\neq 2"), parse_interval_set("(-\\infty, 2) \\cup (2, \\infty)"))
    assert parse_interval_set("x \\notin \\{1, 2\\}") is None  # several points: not this reading
    assert parse_interval_set("x \\neq 1, 2") is None


@pytest.mark.parametrize("text, value", [
    ("3rd", 3), ("21st", 21), ("11th", 11), ("112th", 112), ("third", 3), ("twenty-first", 21), ("Second.", 2),
    ("one hundred and third", 103), ("3^{\\text{rd}}", 3), ("3th", None), ("12nd", None), ("three first", None),
    ("twenty", None), ("3", None),
])
def test_ordinals_in_words_and_numerals(text, value):
    from verifier_runtime.toolkit.numbers import parse_ordinal

    assert parse_ordinal(text) == value


def test_ordinals_stated_in_a_sentence_but_not_fractions():
    from verifier_runtime.toolkit.numbers import ordinals_in

    assert ordinals_in("She finished third.") == [3]
    assert ordinals_in("He came 2nd, she came 3rd.") == [2, 3]
    assert ordinals_in("one third of it") == [] and ordinals_in("a fifth") == []


@pytest.mark.parametrize("text, value", [
    ("minus 3", -3), ("Negative 2.5", -2.5), ("minus 1/2", -0.5), ("half", 0.5), ("Half.", 0.5),
    ("0.3 recurring", 1 / 3), ("0.66 repeating", 2 / 3), ("2.5 Recurring", 23 / 9),
    ("minus -3", None), ("minus x", None), ("0.16 recurring", None),
])
def test_signs_in_words_half_and_recurring_digits(text, value):
    from verifier_runtime.toolkit.numbers import parse_number

    n = parse_number(text)
    assert (n is None) if value is None else (n is not None and abs(float(n.value) - value) < 1e-12)


@pytest.mark.parametrize("response, answer", [
    ("The answer is 0.1666....", "0.1666..."), ("$0.333...$", "0.333..."),
    ("The answer is 3.14159...", "3.14159"), ("The answer is 12...", "12"),  # no repeating block: sentence dots
])
def test_extraction_keeps_the_dots_of_a_repeating_decimal(response, answer):
    assert extract_final_answer(response).answer == answer


@pytest.mark.parametrize("text, equal_to", [
    ("all real numbers except 2", "(-\\infty, 2) \\cup (2, \\infty)"),
    ("All real numbers except $x = -1$ and $x = 1$.", "(-\\infty, -1) \\cup (-1, 1) \\cup (1, \\infty)"),
    ("all real x with $x \\ne 2$", "(-\\infty, 2) \\cup (2, \\infty)"),
    ("all real numbers y such that y > 3", "(3, \\infty)"),
    ("$x \\in \\mathbb{R}, x \\neq 2$", "(-\\infty, 2) \\cup (2, \\infty)"),
])
def test_the_reals_under_an_exception_or_condition(text, equal_to):
    assert interval_sets_equal(parse_interval_set(text), parse_interval_set(equal_to))


def test_a_condition_on_another_variable_or_no_point_is_no_set():
    assert parse_interval_set("all real numbers y with x > 3") is None
    assert parse_interval_set("all real numbers except for x") is None


def test_a_set_with_a_comma_or_and_is_one_candidate():
    assert final_commitment("$x \\in \\mathbb{R}, x \\neq 2$").candidates == ("x \\in \\mathbb{R}, x \\neq 2",)
    c = final_commitment("The domain is all real numbers except $x = -3$ and $x = 3$.")
    assert len(c.candidates) == 1 and not c.hedged


@pytest.mark.parametrize("ref, response, correct", [
    ("1.2 \\times 10^{9}", "1.2 billion", True), ("1.2 \\times 10^{9}", "1.2 million", False), ("12", "12 million", False),
    ("2", "All real numbers except 2.", False), ("3rd", "She finished third.", True), ("3rd", "She finished fourth.", False),
])
def test_scale_words_sets_for_values_and_ordinals_judged(ref, response, correct):
    assert judge("What is it?", ref, response).correct is correct


@pytest.mark.parametrize("ref, question, aliases", [
    ("Na", "Which element is it?", ("sodium",)), ("Sodium", "Which metal is it?", ("Na",)),
    ("aluminium", "Which element?", ("Al", "aluminum")), ("$\\mathrm{Fe}$", "Which element?", ("iron",)),
    ("Mercury", "Which planet is closest to the Sun?", ()), ("No", "Is 9 prime?", ()), ("NA", "Which element?", ()),
])
def test_element_names_and_symbols_under_a_chemistry_question(ref, question, aliases):
    from verifier_runtime.toolkit.text import element_aliases

    assert element_aliases(ref, question) == aliases


def test_log_base_e_and_combinations_written_with_subscripts():
    from verifier_runtime.toolkit.compare import answers_equivalent

    assert answers_equivalent("\\log_e 5", "\\ln 5").equal is True
    assert answers_equivalent("{}_7C_3", "35").equal is True and answers_equivalent("^{7}C_{4}", "35").equal is True
    assert answers_equivalent("{}_7P_3", "210").equal is True
    assert answers_equivalent("C_5^2", "10").equal is not True  # a squared constant, not 5 choose 2
    assert answers_equivalent("x_5C_2", "x_5 C_2").equal is True  # a product after a subscript


def test_a_spread_is_no_value_for_the_containment_rule():
    assert judge("How long is it?", "3 m", "It is 3 m \u00b1 0.1 m.").correct is False
    assert judge("Find f.", "f(x) = x^2 + 1", "$\\boxed{x^2 + 1}$").correct is True


@pytest.mark.parametrize("response, answer", [
    ("The answer is 72. Wait, let me recount: 9 * 8 = 70. So 70.", "70"),
    ("The answer is 70. Wait, let me recount: 9 * 8 = 72. So 72.", "72"),
    ("x = 1/3. Wait: so \\frac{1}{2}.", "\\frac{1}{2}"),
    ("The answer is 42. Wait, that is right. So 42.", "42"),
])
def test_a_correction_lands_on_its_conclusion(response, answer):
    assert final_commitment(response).answer == answer


@pytest.mark.parametrize("response, hedged", [
    ("72? 70? I am not sure.", True), ("72? 70? Hard to say.", True), ("72? 70? It is 72.", False),
    ("Either way, it is 72.", False), ("In any case, 72.", False), ("Either way, 72 or 70.", True),
])
def test_doubt_after_asked_values_and_either_way(response, hedged):
    c = final_commitment(response)
    assert (c.hedged or c.several) is hedged


@pytest.mark.parametrize("response, answer, negated", [
    ("The answer is C (not D).", "C", ("D",)), ("72, definitely not 70.", "72", ("70",)),
    ("Not Sydney, not Melbourne: Canberra.", "Canberra", ("Sydney", "Melbourne")),
])
def test_values_negated_beside_the_answer(response, answer, negated):
    c = final_commitment(response)
    assert c.answer == answer and set(negated) <= set(c.negated)


def test_a_parenthetical_doubt_is_no_negation():
    c = final_commitment("Answer: 72 (not fully sure; could also be 70)")
    assert c.several and c.hedged


@pytest.mark.parametrize("answer, question, value", [
    ("11 is a prime number.", "Is 11 a prime number?", True), ("11 is not a prime number.", "Is 11 a prime number?", False),
    ("15 isn't a prime number", "Is 15 a prime number?", False), ("Indeed they are.", "Are the triangles congruent?", True),
    ("No, they are not.", "Are the triangles congruent?", False), ("No, they are.", "Are the triangles congruent?", None),
    ("13 is a prime number.", "Is 11 a prime number?", None), ("It is.", "What is 2 + 2?", None),
])
def test_a_yes_no_question_answered_by_a_statement(answer, question, value):
    from verifier_runtime.toolkit.criterion import statement_answers

    assert statement_answers(answer, question) is value


@pytest.mark.parametrize("response, answer", [
    ("70. Because 9 times 8 is 72.", "70"), ("3.5. Because 7/2 = 3.5.", "3.5"),
    ("I choose B.", "B"), ("I will go with (C).", "(C)"),
])
def test_a_value_before_its_reason_and_a_picked_option(response, answer):
    assert extract_final_answer(response).answer == answer


def test_a_long_first_sentence_before_because_is_no_value():
    r = "Jessica is a sheep, and sheep are afraid of cats. Because cats fear wolves, she fears cats and wolves."
    assert extract_final_answer(r).answer != "Jessica is a sheep, and sheep are afraid of cats"


@pytest.mark.parametrize("text, magnitude, unit", [
    ("1 hour 30 minutes", 90, "minute"), ("2 hours and 15 minutes", 135, "minute"), ("5 ft 6 in", 66, "inch"),
    ("3 lb 4 oz", 52, "ounce"), ("1 km 200 m", 1200, "meter"),
])
def test_one_quantity_in_several_units(text, magnitude, unit):
    q = parse_quantity(text)
    assert q is not None and q.magnitude == magnitude and q.unit == unit


@pytest.mark.parametrize("text", ["30 minutes 1 hour", "1 m 20 s", "3 m 2 m"])
def test_no_compound_out_of_order_or_of_two_dimensions(text):
    assert parse_quantity(text) is None


def test_the_generator_rewrites_no_compound_quantity():
    from tasks.data.answers import quantity

    assert quantity("1 hour 30 minutes") is None and quantity("12 cm") is not None


@pytest.mark.parametrize("ref, response, correct", [
    ("\\frac{1}{6}", "1 in 6", True), ("0.75", "3 out of 4", True), ("24", "24 out of 30", True),
    ("30", "24 out of 30", False), ("\\frac{1}{6}", "1 out of 7", False),
])
def test_k_in_n_is_a_share_or_a_count_by_the_reference(ref, response, correct):
    assert judge("What is it?", ref, response).correct is correct


@pytest.mark.parametrize("text, equal_to", [
    ("x > 1 and x < 3", "(1, 3)"), ("$x > 1$ and $x < 3$", "(1, 3)"), ("x \\ge 1 \\land x \\le 5", "[1, 5]"),
    ("x > 1 and x > 3", "(3, \\infty)"),
])
def test_two_bounds_joined_by_and(text, equal_to):
    assert interval_sets_equal(parse_interval_set(text), parse_interval_set(equal_to))


def test_no_interval_from_two_variables_or_an_empty_intersection():
    assert parse_interval_set("x > 1 and y < 2") is None and parse_interval_set("x < 1 and x > 2") is None
    assert final_commitment("$x > 1$ and $x < 3$").candidates == ("$x > 1$ and $x < 3$",)


@pytest.mark.parametrize("a, b, equal", [
    ("Fe3+", "Fe^{3+}", True), ("Fe2+", "Fe^{3+}", False), ("Cl-", "Cl^-", True), ("NH4+", "NH_4^+", True),
    ("NH4+", "NH_4^{2+}", False), ("OH-", "OH^-", True),
])
def test_ion_charges_written_without_a_caret(a, b, equal):
    from verifier_runtime.toolkit.text import identifiers_equal, parse_identifier

    assert identifiers_equal(parse_identifier(a), parse_identifier(b)) is equal


def test_an_ion_charge_is_no_dangling_operator():
    assert judge("Which ion?", "Fe^{3+}", "Fe3+").correct is True
    assert judge("What is 120 + 24?", "144", "120 + 24 +").correct is False


@pytest.mark.parametrize("ref, question, aliases", [
    ("H_2O", "What does the tap deliver?", ("water",)), ("carbon dioxide", "Which gas?", ("CO2",)),
    ("SO_4^{2-}", "Which ion?", ("sulfate", "sulphate")), ("Co", "Which element is it?", ("cobalt",)),
    ("Co", "What is it?", ()), ("Paris", "Which city?", ()),
])
def test_common_compounds_by_name_and_formula(ref, question, aliases):
    from verifier_runtime.toolkit.text import element_aliases

    assert element_aliases(ref, question) == aliases


def test_slashed_whole_numbers_are_alternatives_not_a_fraction():
    q = "How many episodes are there in the third series?"
    assert judge(q, "60/12", "5").correct is False
    assert judge(q, "60/12", "There are 12 episodes.").correct is True
    assert judge("What is 60 divided by 12?", "60/12", "5").correct is True  # mathematics: the quotient


def test_a_label_in_another_case_in_a_list():
    assert judge("Find every value of a.", "a=3, a=-1", "$A=3, a=-1$").correct is False
    assert judge("Find every value of a.", "a=3, a=-1", "$a=-1, a=3$").correct is True


def test_a_comma_after_no_digit_always_separates():
    from verifier_runtime.toolkit.commit import split_candidates

    assert split_candidates("30^\\circ,45^\\circ,105^\\circ")[0] == ("30^\\circ", "45^\\circ", "105^\\circ")
    assert split_candidates("1,234")[0] == ("1,234",) and split_candidates("12{,}345")[0] == ("12{,}345",)


def test_years_and_seasons_joined_by_slashes_are_alternatives():
    from verifier_runtime.toolkit.criterion import numeric_aliases

    assert numeric_aliases("2015,/2015/2014\u201315/2016", "when did he win the award") == ("2015", "2014\u201315", "2016")
    assert numeric_aliases("2015/2016", "What fraction is it?") == ()


@pytest.mark.parametrize("response, correct", [
    ("Final Answer: False. On second thought, it is True.", True), ("Answer: False. Wait, that is wrong: it is True.", True),
    ("Answer: True. Wait, that is wrong: it is False.", False), ("Final Answer: False. Wait, that is right.", False),
])
def test_a_correction_lands_on_a_boolean(response, correct):
    assert judge("True or false?", "True", response).correct is correct


def test_an_option_text_with_math_and_a_letter_text_mismatch():
    q = "Which maps it? (A) a rotation by $90^\\circ$ (B) a reflection about the line $y = x$ (C) a translation"
    assert judge(q, "B", "The answer is a reflection about the line $y = x$.").correct is True
    assert judge(q, "B", "The answer is (B) a rotation by $90^\\circ$.").correct is False
    q2 = "Two points: (a) $(1, 0.5)$, (b) $(2, 0.25)$, which one lies on the curve?"
    from verifier_runtime.toolkit.choices import parse_options

    assert parse_options(q2) == {"A": "$(1, 0.5)$", "B": "$(2, 0.25)$"}
    assert judge(q2, "a", "The answer is (a) $(2, 0.25)$.").correct is False


def test_a_value_ruled_out_is_negated():
    c = final_commitment("n = 5 is not a solution.")
    assert c.answer is None and c.negated == ("n = 5",)
    assert final_commitment("n = 5 is not a solution, so n = 6.").answer == "n = 6"


@pytest.mark.parametrize("question, ref, response, correct", [
    ("Find the antiderivative of $x^2$.", "\\frac{x^3}{3} + C", "$\\frac{1}{3}x^3 + K$", True),
    ("Evaluate $\\int 2x\\,dx$.", "x^2 + C", "$x^2 + c$", True),
    ("Find the sum with the constant K.", "2 + C", "2 + K", False),
    ("Compute the limit.", "\\text{DNE}", "The limit does not exist.", True),
    ("Compute the limit.", "\\infty", "The limit is infinite.", True),
    ("Compute the limit.", "-\\infty", "The limit is infinite.", False),
    ("How many solutions?", "0", "There are no solutions.", True),
    ("Solve the equation.", "0", "There are no solutions.", False),
])
def test_constants_of_integration_and_words_for_special_values(question, ref, response, correct):
    assert judge(question, ref, response).correct is correct


@pytest.mark.parametrize("text", ["19th century", "1920s", "1800's", "5th"])
def test_ordinals_and_decades_are_no_quantities(text):
    assert parse_quantity(text) is None


@pytest.mark.parametrize("a, b, same", [
    ("World War II", "World War 2", True), ("Henry VIII", "Henry the Eighth", True), ("Henry VIII", "Henry VII", False),
    ("Saint Petersburg", "St. Petersburg", True), ("Martin Luther King Jr.", "Dr. Martin Luther King, Jr.", True),
    ("World War I", "World War II", False),
])
def test_name_keys(a, b, same):
    from verifier_runtime.toolkit.criterion import _name_key_words

    assert (_name_key_words(a) == _name_key_words(b)) is same


def test_dates_in_other_orders_and_case_still_counts():
    assert judge("When?", "July 4, 1776", "1776-07-04").correct is True
    assert judge("When?", "July 4, 1776", "4 July 1776").correct is True
    assert judge("When?", "July 4, 1776", "July 5, 1776").correct is False
    assert judge("Which element?", "Co", "CO").correct is False  # the name key never overrides case


def test_j_as_the_imaginary_unit_only_where_it_is_the_only_letter():
    assert judge("Compute.", "4-2i", "$4 - 2j$").correct is True
    assert judge("Compute.", "4-2i", "$4 + 2j$").correct is False
    assert judge("Simplify.", "x+2i", "$x + 2j$").correct is False


@pytest.mark.parametrize("a, b, same", [
    ("United States", "USA", True), ("United States", "UK", False), ("World War II", "WWII", True),
    ("World War I", "the Second World War", False), ("gray", "Grey", True), ("New York City", "NYC", True),
])
def test_short_names_wars_and_spellings_in_the_name_key(a, b, same):
    from verifier_runtime.toolkit.criterion import _name_key_words

    assert (_name_key_words(a) == _name_key_words(b)) is same


@pytest.mark.parametrize("answer, ref, correct", [
    ("$i + 2j + 3k$", "\\langle 1, 2, 3 \\rangle", True), ("$\\hat{i} - 2\\hat{j}$", "(1, -2)", True),
    ("$i + 2j - 3k$", "\\langle 1, 2, 3 \\rangle", False), ("$ij + k$", "\\langle 1, 2, 3 \\rangle", False),
])
def test_vectors_written_with_unit_vectors(answer, ref, correct):
    assert judge("Find the vector.", ref, answer).correct is correct


@pytest.mark.parametrize("question, unit", [
    ("How many days will it take?", "days"), ("How many more minutes does Tom need?", "minutes"),
    ("How many square feet is the room?", "square feet"), ("How many apples are left?", None),
    ("How many units are sold?", None), ("How many degrees is angle A?", None),
    ("How many miles per hour does it go?", None), ("How long is it, in metres? How many days?", "metres"),
])
def test_how_many_of_a_unit_asks_that_unit(question, unit):
    from verifier_runtime.toolkit.cues import question_cues

    assert question_cues(question).unit == unit


@pytest.mark.parametrize("text, magnitude, unit", [
    ("It will take 6 weeks.", 6, "week"), ("He ran 5 km.", 5, "kilometer"), ("She is 12 years old.", 12, "year"),
    ("There are 6 apples.", None, None), ("There are 6 in total.", None, None), ("It is 6 or 7 days.", None, None),
])
def test_the_quantity_a_sentence_states(text, magnitude, unit):
    from verifier_runtime.toolkit.units import quantity_in_sentence

    q = quantity_in_sentence(text)
    assert (q.magnitude, q.unit) == (magnitude, unit) if magnitude is not None else q is None


@pytest.mark.parametrize("text, spread", [
    ("40, give or take 5", True), ("40 plus or minus 3", True), ("40 +/- 2", True), ("40 +- 2", True),
    ("It could be off by one.", True), ("x+-2", False), ("take 5 or give 3", False), ("the offset is 4", False),
])
def test_a_spread_in_words_is_a_plus_minus(text, spread):
    from verifier_runtime.toolkit.structures import has_plus_minus

    assert has_plus_minus(text) is spread


@pytest.mark.parametrize("response, answer", [
    ("The answer is 12. Hmm, or is it 14? I'll go with 14.", "14"), ("I'm going with $x = 3$.", "x = 3"),
    ("The answer is 12. I'll pick 3 balls from the urn to check.", "12"), ("I'll stick with 7.", "7"),
])
def test_a_value_picked_last_is_the_answer(response, answer):
    assert extract_final_answer(response).answer == answer


def test_an_a_before_and_is_an_option_letter():
    from verifier_runtime.toolkit.criterion import _letters_named

    options = {"A": "1", "B": "2", "C": "3"}
    assert _letters_named("Both A and B are correct.", options) == {"A", "B"}
    assert _letters_named("A reactive metal, so C.", options) == {"C"}


@pytest.mark.parametrize(
    ("question", "reference", "response", "verdict", "reason"),
    [
        ("What is 5 + 7?", "12", "$\\boxed{12}$ is wrong.", False, "negation:reference_negated"),
        ("What is 5 + 7?", "12", "$\\boxed{\\text{Not } 12}$", False, "negation:reference_negated"),
        ("What is 5 + 7?", "12", "$\\boxed{\\ne 12}$", False, "negation:reference_negated"),
        ("What is 5 + 7?", "12", "$\\boxed{11}$ is not the answer. The answer is $12$.", True, "equal:number"),
        ("What is 5 + 7?", "12", "The answer is 12, which is", False, "invalid:truncated"),
        ("Simplify (x^2-1)/(x-1).", "x+1", "$\\boxed{0 = x + 1}$", False, "differ:equation"),
        ("What is the name of the compound?", "water", "water = H2O", True, "equal:reference_in_answer"),
        ("What is the charge of a sulfide ion?", "2-", "-2", True, "equal:charge"),
        ("What is the charge of a sulfide ion?", "2-", "+2", False, "differ:charge"),
        ("What is 5 minus 2?", "3", "3+", False, "invalid:truncated"),  # no charge asked: a cut-off sum
        ("Which is the largest planet? (A) Mars (B) Jupiter (C) Venus", "B", "(B), namely Venus", False,
         "differ:choice_letter_text_disagree"),
    ],
)
def test_box_verdicts_equations_charges_and_restated_letters(question: str, reference: str, response: str,
                                                              verdict: bool, reason: str) -> None:
    j = judge(question, reference, response)
    assert (j.correct, j.reason) == (verdict, reason)


def test_a_number_then_an_exclamation_mark_in_prose_is_punctuation() -> None:
    """'The answer is 12!' in prose is 12; '$5!$' or a boxed '5!' is a factorial."""
    assert judge("What is 5 + 7?", "12", "The answer is 12!").correct is True
    assert judge("What is 5 + 7?", "12", "Answer: 12!").correct is True
    assert judge("In how many orders can 5 books stand?", "120", "The answer is $5!$.").correct is True
    assert judge("In how many orders can 5 books stand?", "5", "The answer is $5!$.").correct is False
    assert judge("In how many orders can 5 books stand?", "120", "$\\boxed{5!}$").correct is True
