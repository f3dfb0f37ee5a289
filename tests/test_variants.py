"""Variant types: each type's label rule, on hand-made bases; what the makers refuse."""

from __future__ import annotations

import random
import re
from fractions import Fraction
from pathlib import Path

import pytest

from tasks.data import answers as A
from tasks.data.variants import VARIANT_TYPES, Base, cues, variant_type

REPO = Path(__file__).resolve().parent.parent


def _b(key: str, question: str, answer: str, obj: str, reference: str | None = None, **meta) -> Base:
    meta.setdefault("answer_object_from", "human_type")
    return Base(f"b-{key}", question, reference if reference is not None else answer, answer, obj, "fixture",
                "math", meta=meta)


BASES = {
    "int": _b("int", "A farmer has 1250 apples and sells none. How many apples are left?", "1250", "number"),
    "frac": _b("frac", "A jar holds 3 red and 5 blue marbles. What is the probability of drawing a red one?",
               "\\frac{3}{8}", "number"),
    "dec": _b("dec", "What is the mean mass of the sample in grams?", "0.123", "number"),
    "dec2": _b("dec2", "What is the measured ratio?", "3.14", "number"),
    "pct": _b("pct", "What share of the votes did she receive?", "45\\%", "number"),
    "mixed": _b("mixed", "How many pies are left after the party?", "2\\frac{1}{2}", "number"),
    "radical": _b("radical", "What is the length of the diagonal of a square with side 5?", "5\\sqrt{2}", "number"),
    "exact": _b("exact", "What is the length of the diagonal of a unit square?", "\\sqrt{2}", "number"),
    "qty": _b("qty", "What pressure does the compressed gas exert?", "50.7", "quantity", "50.7 \\mathrm{atm}"),
    "expanded": _b("expanded", "Find the polynomial $p(x)$ with roots $-1$ (double) and leading coefficient 1.",
                   "x^2+2x+1", "expression"),
    "factored": _b("factored", "Find the polynomial $q(x)$ with roots $-1$ and $-2$ and leading coefficient 1.",
                   "(x+1)(x+2)", "expression"),
    "eq": _b("eq", "Find the equation of the line through $(0, 1)$ with slope 2.", "y = 2x + 1", "equation"),
    "complex": _b("complex", "Simplify $(5-3i)(-4+3i)$.", "-11 + 27i", "complex"),
    "set": _b("set", "Find all odd primes less than 7 and the number 1.", "\\{1, 3, 5\\}", "set"),
    "tuple": _b("tuple", "Find the ordered triple $(a, b, c)$ with $a < b < c$ and $a+b+c=28$.", "(1, 8, 19)",
                "tuple"),
    "interval": _b("interval", "For what values of $x$ is $\\frac{x-1}{2-x} \\ge 0$?", "(1, 2]", "interval"),
    "matrix": _b("matrix", "Compute the inverse of the matrix $M$.", "\\begin{pmatrix} 1 & 2 \\\\ 3 & 4 \\end{pmatrix}",
                 "matrix"),
    "bool": _b("bool", "Is every group of prime order cyclic?", "True", "bool"),
    "choice": _b("choice", "Which gas is noble?\nOptions:\nA. Sodium\nB. Neon\nC. Chlorine\nD. Iron", "B", "choice",
                 options=["Sodium", "Neon", "Chlorine", "Iron"]),
    "text": _b("text", "Which city is the capital of Norway?", "Oslo", "text", "Oslo/Christiania",
               reference_aliases=["Oslo", "Christiania"]),
    "unknown": _b("unknown", "Solve for $x$: $2x + 3 = 25$.", "11", "number"),
}
CTX = {"other_answers": {("fixture", "text"): ["Bergen", "Stockholm", "Oslo Fjord", "Helsinki"]}}

#: the base each variant type is tested on
BASE_OF = {
    "equiv.number_form": "frac", "equiv.latex_spelling": "frac", "equiv.set_order": "set",
    "equiv.unit_conversion": "qty", "equiv.expression": "expanded", "equiv.within_tolerance": "dec",
    "equiv.unreduced_fraction": "frac", "equiv.unsimplified_radical": "radical", "equiv.interval_inequality": "interval",
    "equiv.labelled": "unknown", "equiv.text_form": "text", "equiv.bool_word": "bool", "case.ordinary_word": "text",
    "choice.option_text": "choice", "choice.letter_and_text": "choice", "form.fraction_required": "frac",
    "form.decimal_required": "dec", "form.lowest_terms": "frac", "form.decimal_places": "dec",
    "form.sig_figs": "dec", "form.percent_required": "pct", "form.interval_notation": "interval",
    "form.expand_factor": "expanded", "form.exact_required": "exact", "form.unit_required": "qty",
    "form.mixed_number": "mixed", "form.radical_form": "radical", "near.off_by_one": "int", "near.sign": "dec",
    "near.rounding": "dec", "near.approximation": "exact", "near.wrong_unit": "qty", "near.missing_element": "set",
    "near.extra_element": "set", "near.swapped_order": "tuple", "near.expression": "expanded",
    "near.interval_endpoint": "interval", "near.wrong_choice": "choice", "choice.letter_text_mismatch": "choice",
    "near.bool_flip": "bool", "case.symbol": "expanded", "near.other_entity": "text", "hedge.alternatives": "int",
    "hedge.multiple_boxes": "frac", "enumeration.list": "int", "enumeration.letters": "choice",
    "retraction.to_reference": "int", "retraction.from_reference": "frac", "retraction.no_answer_left": "text",
    "negation.reference": "qty", "restatement.question": "complex", "invalid.truncated": "int",
    "invalid.empty": "text", "invalid.echo": "int",
}


def _made(name: str, seed: int = 0):
    vt = variant_type(name)
    b = BASES[BASE_OF[name]]
    return vt, b, vt.make(b, random.Random(seed), CTX)


def test_every_type_is_tested_and_documented() -> None:
    assert set(BASE_OF) == {vt.name for vt in VARIANT_TYPES}
    doc = (REPO / "docs" / "criterion.md").read_text(encoding="utf-8")
    section = doc.split("## Constructed variants: the rule behind each label", 1)
    assert len(section) == 2, "docs/criterion.md lacks the constructed-variants section"
    for vt in VARIANT_TYPES:
        row = next((ln for ln in section[1].splitlines() if f"`{vt.name}`" in ln), None)
        assert row is not None, vt.name
        assert vt.rule in row and ("correct" if vt.label else "incorrect") in row, row
        assert f"**R{vt.rule[1:]}" in doc  # the rule it names exists in the criterion


@pytest.mark.parametrize("name", sorted(BASE_OF))
def test_label_follows_the_type_rule(name: str) -> None:
    vt, b, made = _made(name)
    assert made is not None, f"{name} made nothing from {b.answer!r}"
    assert made.label is vt.label
    ans = made.answer
    if vt.family == "equivalent" and b.answer_object not in ("text", "bool"):
        assert A.equivalent(b.reference, ans) and ans.strip() != b.answer.strip()  # equal value, other writing
    if vt.family == "near_miss" and b.answer_object not in ("text", "bool", "choice"):
        assert A.different(b.reference, ans, dimension_ok=True)
    if vt.family == "form":
        q = made.question or b.question
        assert cues(q).form_requirements  # the question states the form the rewrite breaks
        assert made.cue.startswith("added: ") and made.cue[7:] in q
        if name != "form.exact_required":
            assert A.equivalent(b.reference, ans)  # the same value: only the form is wrong


def test_rule_specifics() -> None:
    _, _, m = _made("near.off_by_one")
    assert abs(int(m.answer) - 1250) == 1
    _, _, m = _made("near.rounding")
    assert m.answer == "0.12"
    _, _, m = _made("equiv.within_tolerance")
    assert m.answer.startswith("0.123") and len(m.answer) == 6  # one more digit, rounds back to 0.123
    _, _, m = _made("form.lowest_terms")
    a, b = (int(x) for x in re.findall(r"\d+", m.answer))
    assert Fraction(a, b) == Fraction(3, 8) and b > 8 and "lowest terms" in m.question
    _, _, m = _made("form.decimal_places")
    assert "3 decimal places" in m.question and len(m.answer.split(".")[1]) == 4
    _, _, m = _made("form.sig_figs")
    assert "3 significant figures" in m.question
    _, _, m = _made("form.unit_required")
    assert "atm" in m.question and "atm" not in m.answer
    _, _, m = _made("equiv.unit_conversion")
    assert "atm" not in m.answer
    _, _, m = _made("near.swapped_order")
    assert sorted(A.items_of(m.answer)) == sorted(["1", "8", "19"]) and m.answer != "(1, 8, 19)"
    _, _, m = _made("equiv.set_order")
    assert sorted(A.items_of(m.answer)) == ["1", "3", "5"] and m.answer != "\\{1, 3, 5\\}"
    _, _, m = _made("near.missing_element")
    assert len(A.items_of(m.answer) or [m.answer]) == 2
    _, _, m = _made("near.extra_element")
    assert len(A.items_of(m.answer)) == 4
    _, _, m = _made("equiv.text_form")
    assert m.answer == "Christiania"  # another alias of the reference
    _, _, m = _made("near.other_entity")
    assert m.answer in ("Bergen", "Stockholm", "Helsinki")  # never "Oslo Fjord" (contains the reference)
    _, _, m = _made("choice.option_text")
    assert m.answer == "Neon"
    _, _, m = _made("choice.letter_text_mismatch")
    assert m.answer.startswith("(B) ") and "Neon" not in m.answer
    _, _, m = _made("equiv.labelled")
    assert m.answer == "x = 11"
    _, _, m = _made("equiv.bool_word")
    assert m.answer == "Yes"
    _, _, m = _made("case.symbol")
    assert m.answer != "x^2+2x+1" and m.answer.lower() == "x^2+2x+1"  # one variable's case flipped
    _, _, m = _made("hedge.alternatives")
    assert " or " in m.answer and "1250" in m.answer
    _, _, m = _made("hedge.multiple_boxes")
    assert m.placement == "boxes" and "\\frac{3}{8}" in m.boxes and len(set(m.boxes)) == 2
    _, _, m = _made("enumeration.list")
    assert m.answer.count(",") == 2 and "1250" in m.answer.split(", ")
    _, _, m = _made("retraction.to_reference")
    assert m.answer != "1250" and "1250" in m.after  # lands on the reference: correct
    _, _, m = _made("retraction.from_reference")
    last = re.search(r"\$(.+)\$", m.after).group(1)
    assert m.answer == "\\frac{3}{8}" and A.different("\\frac{3}{8}", last)  # the correction leaves it
    _, _, m = _made("retraction.no_answer_left")
    assert m.answer == "Oslo" and not re.search(r"\d|Oslo", m.after)
    _, _, m = _made("negation.reference")
    assert m.answer.startswith("not ") and "atm" in m.answer
    _, _, m = _made("restatement.question")
    assert m.answer in ("(5-3i)(-4+3i)",)
    _, _, m = _made("invalid.echo")
    assert m.response == BASES["int"].question


def test_makers_refuse_what_their_rule_does_not_cover() -> None:
    rng = random.Random(0)
    asks_fraction = _b("q", "What is the probability? Express your answer as a common fraction.", "\\frac{3}{8}",
                       "number")
    # an equivalent rewrite is not made where the question states a form
    assert variant_type("equiv.number_form").make(asks_fraction, rng, CTX) is None
    assert variant_type("equiv.unreduced_fraction").make(asks_fraction, rng, CTX) is None
    # the question's own cue is used as it is, nothing added
    m = variant_type("form.fraction_required").make(asks_fraction, rng, CTX)
    assert m is not None and m.cue == "question" and m.question is None and m.answer == "0.375"
    # a unit cue for another unit than the reference's: no form variant (the reference would break it)
    asks_kpa = _b("k", "What pressure does the gas exert? Express your answer in kPa.", "50.7", "quantity",
                  "50.7 \\mathrm{atm}")
    assert variant_type("form.unit_required").make(asks_kpa, rng, CTX) is None
    assert variant_type("equiv.unit_conversion").make(asks_kpa, rng, CTX) is None
    # one value is not hedged when several are asked; an ordered answer is not reordered
    assert variant_type("hedge.alternatives").make(BASES["set"], rng, CTX) is None
    assert variant_type("equiv.set_order").make(BASES["tuple"], rng, CTX) is None
    # a set read by this project (not labelled by the source) is not reordered: "2, 2, 4" may be a sequence
    parsed = _b("p", "Which could be the sides?", "2, 3, 4", "set", answer_object_from="parsed")
    assert variant_type("equiv.set_order").make(parsed, rng, CTX) is None
    # an integer reference has no "one more digit" within its tolerance
    assert variant_type("equiv.within_tolerance").make(BASES["int"], rng, CTX) is None
    # ordinary-word case only for ordinary words
    formula = _b("f", "What is the formula of carbon monoxide?", "CO", "text")
    assert variant_type("case.ordinary_word").make(formula, rng, CTX) is None


def test_degenerate_bases_make_no_variant_whose_label_would_be_wrong() -> None:
    # 0 % written as the decimal 0 is still 0 % under a percentage cue: no form violation to make
    zero = _b("z", "What is the probability that the child has type O blood?", "0\\%", "number")
    assert variant_type("form.percent_required").make(zero, random.Random(0), CTX) is None
    # a restatement copies one math span of the question, never the prose between two spans
    # (nor figure code): "$f(1,2)$ is 3 . Determine ... $f(2,5)$" offers f(1,2) and f(2,5) only
    q = ("For positive integers $a$ and $b$, define $f(a, b)=\\frac{a}{b}+\\frac{b}{a}+\\frac{1}{a b}$.\n\n"
         "For example, the value of $f(1,2)$ is 3 .\nDetermine the value of $f(2,5)$.\n"
         "[asy]\nlabel(\"$W$\",(0,0),W); label(\"$X$\",(1,0),S);\n[/asy]")
    base = _b("r", q, "\\frac{17}{5}", "number")
    seen = set()
    for seed in range(40):
        m = variant_type("restatement.question").make(base, random.Random(seed), CTX)
        assert m is not None
        seen.add(m.answer)
    assert seen <= {"f(a, b)=\\frac{a}{b}+\\frac{b}{a}+\\frac{1}{a b}", "f(1,2)", "f(2,5)"}, seen
    assert len(seen) >= 2


def test_makers_are_deterministic() -> None:
    for name in BASE_OF:
        a = _made(name, seed=3)[2]
        b = _made(name, seed=3)[2]
        assert (a.answer, a.question, a.after, a.boxes) == (b.answer, b.question, b.after, b.boxes), name


def test_number_forms_avoid_ambiguous_commas() -> None:
    forms = dict((k, v) for v, k in A.number_forms("1004"))
    assert forms["thousands"] == "1\\,004"  # a lone comma group also reads as a decimal comma (R4.1)
    assert dict((k, v) for v, k in A.number_forms("2500000"))["thousands"] == "2,500,000"
    assert dict((k, v) for v, k in A.number_forms("\\frac{7}{4}")) == {"fraction_as_decimal": "1.75",
                                                                      "mixed_number": "1\\frac{3}{4}"}


def test_expand_factor_only_for_polynomials_in_one_of_their_forms() -> None:
    rng = random.Random(0)
    for ans in ("\\frac{11x + 5}{x - 2}", "(n-2) 2^{n}+1", "3x+3"):
        assert variant_type("form.expand_factor").make(_b("p", "Find $p$.", ans, "expression"), rng, CTX) is None
    m = variant_type("form.expand_factor").make(_b("p", "Find $p$.", "(x+1)(x+2)", "expression"), rng, CTX)
    assert m is not None and "factored form" in m.question and A.equivalent("(x+1)(x+2)", m.answer)
