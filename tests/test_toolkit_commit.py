"""The final commitment: retractions, negations, alternatives, lists and several boxes."""

from __future__ import annotations

import random

import pytest

from verifier_runtime.toolkit.commit import (
    Commitment,
    final_commitment,
    final_statement,
    split_candidates,
    strip_label,
    working_result,
)


@pytest.mark.parametrize(
    ("response", "answer", "reason"),
    [
        ("The answer is 7. Actually no, it's 6.", "6", "retraction:last_answer"),
        ("The answer is 6. Wait, that's wrong: it is 7.", "7", "retraction:last_answer"),
        ("The answer is D, no wait, C.", "C", "retraction:last_answer"),
        ("Sydney. On second thought, the capital is Canberra.", "Canberra", "retraction:last_answer"),
        ("The sum is 360°. Sorry, 180°.", "180°", "retraction:last_answer"),
        ("We get $\\boxed{7}$. Wait, let me double-check: 3 + 4 = 7. Yes.", "7", ""),
        ("The answer is \\boxed{7}.\n\nActually, it is interesting to note that this generalises.", "7", ""),
    ],
)
def test_corrections_land_on_the_last_committed_answer(response: str, answer: str, reason: str) -> None:
    c = final_commitment(response)
    assert (c.answer, c.reason) == (answer, reason)


def test_a_retraction_with_nothing_after_it_leaves_no_answer() -> None:
    c = final_commitment("The answer is 12. Hmm, no, that can't be right.")
    assert c.answer is None and c.reason == "retraction:no_answer_left" and c.retracted == ("12",)


@pytest.mark.parametrize(
    ("response", "affirmed", "negated"),
    [
        ("The answer is not 81.", None, ("81",)),
        ("It is not Paris; it is Lyon.", "Lyon", ("Paris",)),
        ("It's not 12, it's 14.", "14", ("12",)),
        ("The precipitate is not NaCl but AgCl.", "AgCl", ("NaCl",)),
        ("$x \\neq 3$", None, ("3",)),
    ],
)
def test_negations(response: str, affirmed: str | None, negated: tuple[str, ...]) -> None:
    c = final_commitment(response)
    assert c.answer == affirmed and c.negated == negated


def test_a_reason_with_not_is_not_a_negated_answer() -> None:
    c = final_commitment("Since 5 is not prime, the answer is 7.")
    assert c.answer == "7" and c.negated == ()


@pytest.mark.parametrize(
    ("response", "candidates", "joiner"),
    [
        ("It is either 12 or 14 or 16.", ("12", "14", "16"), "or"),
        ("Fe or Cu", ("Fe", "Cu"), "or"),
        ("2.71 or 2.72", ("2.71", "2.72"), "or"),
        ("The answer is B, C, D.", ("B", "C", "D"), "and"),
        ("\\boxed{6} or \\boxed{7}", ("6", "7"), "or"),
        ("\\boxed{6}, or maybe \\boxed{7}", ("6", "7"), "or"),
        ("\\boxed{2} and \\boxed{9}", ("2", "9"), "and"),
        ("$x = \\boxed{3}$ and $x = \\boxed{-3}$.", ("3", "-3"), "and"),
        ("y = 1 or y = 4", ("1", "4"), "or"),
        ("The answer is 12 (or possibly 13).", ("12", "13"), "or"),
        ("A/B", ("A", "B"), "or"),
        ("The possible answers are 7 and 8.", ("7", "8"), "and"),
    ],
)
def test_several_candidates(response: str, candidates: tuple[str, ...], joiner: str) -> None:
    c = final_commitment(response)
    assert (c.candidates, c.joiner) == (candidates, joiner)


@pytest.mark.parametrize(
    "response",
    ["Paris, France", "December 14, 2016", "Simon and Garfunkel", "km/h", "\\boxed{12,\\!345}", "1,234",
     "one thousand six hundred and twenty-five", "3,75", "x \\le 1"],
)
def test_one_answer_stays_one(response: str) -> None:
    assert len(final_commitment(response).candidates) == 1


def test_a_later_box_after_working_replaces_an_earlier_one() -> None:
    c = final_commitment("So the area is \\boxed{12}. Then the perimeter is 2(3 + 4), so \\boxed{14}.")
    assert c.candidates == ("14",)


def test_the_same_value_boxed_twice_is_one_answer() -> None:
    assert final_commitment("\\boxed{5} ... indeed \\boxed{5}").candidates == ("5",)


def test_tentative_single_answer_is_its_value() -> None:
    c = final_commitment("The answer is probably 12.")
    assert c.answer == "12" and c.hedged


def test_repeats_are_kept_in_items() -> None:
    c = final_commitment("C, C, B")
    assert c.candidates == ("C", "B") and c.items == ("C", "C", "B")


@pytest.mark.parametrize(
    ("text", "value"),
    [
        ("$(x + 3)(x - 2) = 0$, so $x = -3$ or $x = 2$.", "x = -3 or x = 2"),
        ("Subtract 3: $-y < 2$.", "-y < 2"),
        ("Since $2^5 = 32$, $\\log_2 32 = 5$.", "\\log_2 32 = 5"),
        ("$3.0 \\times 10^8$ km/s", "3.0 \\times 10^8 km/s"),
        ("so $\\sqrt{50}$ is closest to 7.", "so $\\sqrt{50}$ is closest to 7."),
        ("The value is $5$ because $2+3=5$.", "The value is $5$ because $2+3=5$."),
    ],
)
def test_final_statement_of_prose(text: str, value: str) -> None:
    assert final_statement(text) == value


def test_labels() -> None:
    assert strip_label("x = 11") == ("x", "11")
    assert strip_label("f(x) = x^2") == ("f(x)", "x^2")
    assert strip_label("2x + 1 = 7") == (None, "2x + 1 = 7")


def test_split_candidates_keep_repeats_for_references() -> None:
    assert split_candidates("C, C, B", keep_repeats=True)[0] == ("C", "C", "B")


def test_total_on_hostile_input() -> None:
    rng = random.Random(5)
    pieces = ["or ", "and ", "not ", ", ", "\\boxed{", "}", "wait, no ", "actually ", "$", "\\neq ", "x = ", "7",
              "either ", "(", ")", "/", ";", "\x00", "\ud800", "é", "\\text{or}", "maybe ", "sorry, "]
    for _ in range(3000):
        text = "".join(rng.choice(pieces) for _ in range(rng.randint(0, 25)))
        c = final_commitment(text)
        assert isinstance(c, Commitment)
    assert final_commitment("x" * 200_000 + " or y").candidates is not None


@pytest.mark.parametrize("response, negated, affirmed", [
    ("Answer: not $\\frac{32}{9}$", "\\frac{32}{9}", None),
    ("The answer is not $4.16 \\times 10^{-4}$.", "4.16 \\times 10^{-4}", None),
    ("The answer is not $\\frac{1}{3}$ but $\\frac{1}{2}$.", "\\frac{1}{3}", "\\frac{1}{2}"),
    ("Final answer: it is not $\\{1,\\;2\\}$; it is $\\{1,\\;3\\}$.", "\\{1,\\ 2\\}", "\\{1,\\ 3\\}"),
])
def test_a_negated_latex_value_is_not_committed(response: str, negated: str, affirmed: str | None) -> None:
    c = final_commitment(response)
    assert c.negated and c.negated[0].strip("$ ") == negated
    assert (c.answer.strip("$ ") if c.answer else None) == affirmed


@pytest.mark.parametrize(
    ("response", "candidates"),
    [
        ("The answer is:\n(B): Nitrogen\n(D): Argon", ("(B): Nitrogen", "(D): Argon")),
        ("The answer is:\n(B): Nitrogen.\n(D): Argon.\n(E): Neon.", ("(B): Nitrogen", "(D): Argon", "(E): Neon")),
        ("The answer is: (B): Nitrogen. (D): Argon.", ("(B): Nitrogen", "(D): Argon")),
        ("The answer is: (B): Nitrogen (D): Argon", ("(B): Nitrogen", "(D): Argon")),
        ("The answer is:\nB. Nitrogen\n\nC. Argon", ("B. Nitrogen", "C. Argon")),
    ],
)
def test_several_marked_options_are_several_candidates(response: str, candidates: tuple[str, ...]) -> None:
    c = final_commitment(response)
    assert c.candidates == candidates
    assert c.joiner == "and" and c.several


@pytest.mark.parametrize(
    "response",
    [
        "The answer is:\n(B): Nitrogen\n\nNitrogen is inert, so it accumulates.",  # prose after one option
        "The answer is:\n(B): Nitrogen\n(B): Nitrogen",  # the same option twice is one option
        "The answer is (B): Nitrogen, as (D) is a noble gas.",  # another letter in prose, not a listing
        "The answer is 12.\nB. The next step checks it.",  # the answer has no marker
    ],
)
def test_one_marked_option_stays_one_answer(response: str) -> None:
    c = final_commitment(response)
    assert not c.several, c


def test_an_option_listing_is_bounded() -> None:
    lines = "\n".join(f"({chr(65 + k % 10)}): text {k}" for k in range(60))  # letters A-J, then repeats
    c = final_commitment("The answer is:\n" + lines)
    assert len(c.candidates) == 10  # a repeated letter ends the listing


@pytest.mark.parametrize(
    ("response", "alternative"),
    [
        ("Answer: 3. Alternatively, 4.", "4"),
        ("The answer is B. A is also plausible.", "A"),
        ("The answer is 4. If we exclude zero, it would be 3.", "3"),
        ("Likely 12; 13 also possible.", "13"),
        ("Paris. Lyon is also a possibility.", "Lyon"),
        ("The answer is \\boxed{3}. If zero is allowed, \\boxed{4}.", None),  # two boxes: read as boxes
        ("The answer is 4. Alternatively, we can verify this by substitution.", None),
        ("The answer is 5, which is also the median.", None),
        ("The answer is 3, which could also be written as 3.0", None),
        ("The answer is 12. 12 is also correct as a check.", None),
    ],
)
def test_an_alternative_offered_beside_the_answer_makes_two_candidates(response: str, alternative: str | None) -> None:
    c = final_commitment(response)
    if alternative is None:
        assert c.joiner != "or" or not c.hedged, c
    else:
        assert c.joiner == "or" and c.hedged and c.candidates[-1] == alternative, c


@pytest.mark.parametrize(
    ("text", "answer", "reason"),
    [
        ("12 apples? No.", None, "retraction:no_answer_left"),  # a candidate asked, then turned down
        ("12? No, 13.", "13", "retraction:last_answer"),
        ("Is 91 prime? No.", "Is 91 prime? No", ""),  # a question asked and answered
        ("The answer is not A. tennyson.", None, "negation:only_negated"),  # an initial ends no clause
        ("Not A. The answer is B.", "B", ""),
        ("Not A. B.", "B", "negation:affirmed_after"),
        ("It is not DNA. it is RNA.", "RNA", "negation:affirmed_after"),  # an acronym still ends a clause
        ("Not A, so B.", "B", "negation:affirmed_after"),
        ("Not A, not C, hence D.", "D", "negation:affirmed_after"),
    ],
)
def test_questions_turned_down_initials_and_conclusions_in_commitments(text: str, answer: str | None, reason: str) -> None:
    from verifier_runtime.triple import Triple

    c = Triple("Which one? (A) 1 (B) 2 (C) 3 (D) 4", "B", text).commitment
    assert (c.answer, c.reason) == (answer, reason)


def test_value_lines_under_a_marker() -> None:
    from verifier_runtime.toolkit.commit import final_commitment

    c = final_commitment("Answer:\n42\n43")
    assert c.candidates == ("42", "43") and c.joiner == "and"
    assert final_commitment("The answer is:\n1. 42\n2. 43").candidates == ("42", "43")
    assert final_commitment("Answer:\n42\n\nBecause 6*7 = 42.").candidates == ("42",)  # a blank line ends it
    assert final_commitment("Answer: 42\nSix sevens make it.").candidates == ("42",)  # prose is no value
    assert final_commitment("\\boxed{42}\n43").candidates == ("42",)  # a box is read by its own rules


@pytest.mark.parametrize(
    ("response", "answer", "reason"),
    [
        # one answer asked back commits to nothing (R2.1)
        ("The final answer is 72?", None, "hedge:asked"),
        ("So the count is $\\boxed{72}$?", None, "hedge:asked"),
        ("The answer is no? I'm not sure.", None, "hedge:asked"),
        ("6 x 7 = 42. Right?", "6 x 7 = 42. Right?", ""),  # a remark after the stated answer
        ("$\\boxed{42}$\n\nLet me know if you have any other questions?", "42", ""),
        # a later mark with another value: two final answers (R2.2)
        ("The final answer is 7.\n\nAnswer: 6", "7 or 6", ""),
        ("We get $\\boxed{7}$.\n\nThe final answer is 7.\n\nAnswer: 6", "7 or 6", ""),
        ("The final answer is 7.\n\nAnswer: 7", "7", ""),
        ("The answer is 6. Actually no, it's 7.\n\nAnswer: 8", None, "hedge:multiple_final_answers"),
        ("The answer is 6. Actually no, it's 7.\n\nAnswer: 7", "7", "retraction:last_answer"),
        ("The answer is 7 (not 6).\n\nAnswer: 8", None, "hedge:multiple_final_answers"),
        ("The answer is D, no wait, C. Or maybe it is B.", None, "hedge:alternatives"),
        ("$\\boxed{1, 4}$\n\nAnswer: 5", None, "hedge:multiple_final_answers"),
        ("$\\boxed{1, 4}$\n\nAnswer: 1 and 4", "1, 4", ""),
        ("$\\boxed{1, 4}$ Or maybe 5.", None, "hedge:alternatives"),
        # a sentence offering another value as a possibility (R2.1)
        ("The answer is 72. Perhaps 74.", "72 or 74", ""),
        ("So $\\boxed{72}$. Or maybe it is 74.", "72 or 74", ""),
        ("The answer is 72. Maybe it is easier to count by rows.", "72", ""),
        # the value first, its reason after: a correction there counts
        ("72. Because 9 eights are 72. Actually no, it's 74.", "74", "retraction:last_answer"),
    ],
)
def test_asked_answers_later_marks_and_offered_possibilities(response: str, answer: str | None, reason: str) -> None:
    c = final_commitment(response)
    assert (c.answer, c.reason) == (answer, reason)


@pytest.mark.parametrize(("response", "answer", "reason"), [
    ("The answer is 6. Actually no, it's 7?", None, "hedge:asked"),
    ("The answer is 6. Actually, 7?", None, "hedge:asked"),
    ("Answer: 6. No wait, 7?  I am not sure.", None, "hedge:asked"),
    ("The answer is 6. Actually no, it's 7? Yes, 7.", "7", "retraction:last_answer"),
    ("The answer is 6. Actually no, it's 7.", "7", "retraction:last_answer"),
    ("The answer is 64. No wait, is it 72? Yes, 72.", "72", "retraction:last_answer"),
    ("Is it 7? Yes, 7.", "7", ""),
])
def test_a_correction_landing_on_an_asked_value_commits_to_nothing(response: str, answer, reason: str) -> None:
    c = final_commitment(response)
    assert (c.answer, c.reason) == (answer, reason)


@pytest.mark.parametrize(("response", "result"), [
    ("We get 12, then add 2 to reach 14.", "14"),
    ("12 minus 3 leaves 9", "9"),
    ("Start with 5, double it to get 10, so 10", "10"),
    ("Take 20, halve it and you get 10.", "10"),
    ("She starts with 12, then buys 2 more to reach 14.", "14"),
    ("12 + 2, which gives 14.", "14"),
    ("We get $12$, then add $2$ to reach $14$ cm.", "14 cm"),
    ("We get 12, then add 2 to reach 14, or maybe 15.", None),  # an alternative: R2.1 reads it
    ("We get 12, then 14.", None),  # no step between the values
    ("Adding 2 to 12 does not give 14.", None),  # a negation
    ("Double it to get 10.", None),  # one value: nothing to read
    ("She eats 3 of the 12, leaving 9.", None),  # no operation named in the last step
    ("x" * 500, None),
    ("", None),
])
def test_a_chain_of_working_answers_its_last_result(response: str, result: str | None) -> None:
    assert working_result(response) == result


def test_the_commitment_of_a_chain_is_its_last_result() -> None:
    assert final_commitment("We get 12, then add 2 to reach 14.").answer == "14"
    assert final_commitment("It is 12, or maybe 14.").candidates == ("12", "14")
@pytest.mark.parametrize(
    ("response", "answer", "negated"),
    [
        ("The hall does not seat 300 people.", None, "300"),
        ("The hall doesn\u2019t seat 1,200 people.", None, "1,200"),
        ("The hall hasn't 300 seats.", None, "300"),
        ("The hall has no 300 seats.", None, "300"),
        ("The hall will never seat 300 people.", None, "300"),
        ("The hall no longer seats 300 people.", None, "300"),
        ("The lift cannot carry 600 kg.", None, "600"),
        ("\"Don't Stop Now\" did not sell 300 copies.", None, "300"),
        ("The hall didn't seat 300 people, it seated 250.", "it seated 250", "300"),
        ("The hall doesn't seat 300; it seats 250.", "it seats 250", "300"),
    ],
)
def test_a_negated_verb_denies_the_value_of_its_clause(response: str, answer: str | None, negated: str) -> None:
    c = final_commitment(response)
    assert c.answer == answer and c.reason.startswith("negation:") and negated in c.negated


@pytest.mark.parametrize(
    "response",
    [
        "\"Don't Stop Now\" sold 300 copies.",
        "\u201cNever Say Never\u201d sold 300 copies.",
        "Do Not Enter sold 300 copies.",
        "Not counting the staff, 300 people came.",
        "300 people came, not including the staff.",
        "The hall wasn't full until 300 people came.",
        "The seats that do not fold number 300.",
        "300 people came, which did not surprise us.",
    ],
)
def test_negation_words_elsewhere_deny_no_value(response: str) -> None:
    c = final_commitment(response)
    assert c.answer is not None and "300" in c.answer and "300" not in c.negated, c


def test_a_reason_after_a_negated_clause_is_no_answer_of_its_own() -> None:
    c = final_commitment("221 is not prime, since 221 = 13 * 17.")
    assert c.answer is None and c.reason == "negation:only_negated"


def test_the_verb_negation_can_be_turned_off_for_a_negated_question() -> None:
    from verifier_runtime.toolkit.commit import commitment_of
    from verifier_runtime.toolkit.extract import extract_final_answer

    ex = extract_final_answer("12 pupils did not pass.")
    assert commitment_of(ex).answer is None
    assert commitment_of(ex, verb_negations=False).answer == "12 pupils did not pass"
