"""Question cues, multiple choice and text primitives: golden cases, junk input, speed."""

from __future__ import annotations

import json
import random
from dataclasses import asdict
from pathlib import Path
from typing import Any

import pytest

from tests.timing import cpu_seconds
from verifier_runtime.toolkit import choices, cues, text

GOLDEN = Path(__file__).parent / "golden" / "extract_cases.json"
FUNCTIONS = {
    "question_cues": cues.question_cues,
    "parse_options": choices.parse_options,
    "parse_choice": choices.parse_choice,
    "choice_matches": choices.choice_matches,
    "normalize_text": text.normalize_text,
    "text_match": text.text_match,
    "contains_answer": text.contains_answer,
    "parse_bool": text.parse_bool,
    "parse_identifier": text.parse_identifier,
}


def expand(value: Any) -> Any:
    """Build generated arguments: ``{"$repeat": s, "times": n, "prefix": p, "suffix": q}``."""
    if isinstance(value, dict) and "$repeat" in value:
        return value.get("prefix", "") + value["$repeat"] * value["times"] + value.get("suffix", "")
    return value


def load_cases() -> list[Any]:
    cases = json.loads(GOLDEN.read_text(encoding="utf-8"))
    wanted = set(FUNCTIONS) | {"identifiers_equal"}
    return [pytest.param(c, id=c["id"]) for c in cases if c["fn"] in wanted]


def call(case: dict[str, Any]) -> Any:
    args = [expand(a) for a in case["args"]]
    kwargs = {k: expand(v) for k, v in case.get("kwargs", {}).items()}
    if case["fn"] == "identifiers_equal":  # golden args are strings: parse them first
        a, b = (text.parse_identifier(x) for x in args)
        assert a is not None and b is not None, case["id"]
        return text.identifiers_equal(a, b)
    return FUNCTIONS[case["fn"]](*args, **kwargs)


@pytest.mark.parametrize("case", load_cases())
def test_golden(case: dict[str, Any]) -> None:
    result, elapsed = cpu_seconds(call, case)
    expect = case["expect"]
    if isinstance(expect, dict) and (hasattr(result, "__dataclass_fields__") or hasattr(result, "as_dict")):
        got = result.as_dict() if hasattr(result, "as_dict") else asdict(result)
        for key, want in expect.items():
            assert got[key] == want, f"{case['id']}: {key} = {got[key]!r}, expected {want!r}"
    else:
        assert result == expect, f"{case['id']}: got {result!r}, expected {expect!r}"
    assert elapsed < 0.25, f"{case['id']} took {elapsed:.3f}s"


def test_cues_defaults_on_junk() -> None:
    assert cues.question_cues(None) == cues.Cues()
    assert cues.question_cues("") == cues.Cues()
    assert cues.question_cues("\x00\x01\x02") == cues.Cues()


def test_cues_combined_question() -> None:
    c = cues.question_cues("A tank holds 3.2 L. How many litres leak per hour? Round to the nearest tenth.")
    assert c.integer and c.decimal_places == 1 and not c.boolean and not c.multiple_choice


def test_options_prefer_longest_latest_run() -> None:
    q = "Recall (A) and (B) from before.\nNow pick:\n(A) 1\n(B) 2\n(C) 3\n(D) 4"
    assert choices.parse_options(q) == {"A": "1", "B": "2", "C": "3", "D": "4"}


def test_choice_with_options_from_question() -> None:
    opts = choices.parse_options("Which gas do plants absorb?\nA. Oxygen\nB. Carbon dioxide\nC. Nitrogen")
    assert choices.parse_choice("carbon dioxide", opts) == "B"
    assert choices.choice_matches("The answer is (B).", "Carbon dioxide", opts) is True
    assert choices.choice_matches("\\boxed{A}", "B", opts) is False


def test_identifiers_equal_rejects_non_identifiers() -> None:
    assert text.identifiers_equal("H2O", "H2O") is None  # type: ignore[arg-type]
    a = text.parse_identifier("H2O")
    assert a is not None and text.identifiers_equal(a, a) is True


def test_identifier_kinds() -> None:
    for s, kind in [("Fe^{3+}", "chemical_formula"), ("NH4^+", "chemical_formula"), ("He", "chemical_formula"),
                    ("mRNA", "word"), ("HER2", "identifier"), ("Bin", "word")]:
        ident = text.parse_identifier(s)
        assert ident is not None and ident.kind == kind, (s, ident)


JUNK_ALPHABET = list("(){}[]\\$*_^.,:;!? \n\tABCDEJabcdexyz0123456789-+/=<>#'\"") + [
    "\x00", "é", "İ", "ß", "\u200b", "Ω", "°", "\\text{", "\\boxed{", "(A)", "B.", "yes", "no", "round to 2 decimal places",
    "in cm?", "H_{2}O", "^{2-}", "Options:", "**",
]


def test_random_junk_never_raises() -> None:
    rng = random.Random(20261130)
    for _ in range(500):
        s = "".join(rng.choice(JUNK_ALPHABET) for _ in range(rng.randint(0, 120)))
        t = "".join(rng.choice(JUNK_ALPHABET) for _ in range(rng.randint(0, 20)))
        c = cues.question_cues(s)
        assert isinstance(c, cues.Cues)
        assert c.decimal_places is None or 0 <= c.decimal_places <= 99
        opts = choices.parse_options(s)
        assert all(k in choices.LETTERS for k in opts)
        assert list(opts) == list(choices.LETTERS[: len(opts)])
        assert choices.parse_choice(t, opts or None) in (None, *choices.LETTERS)
        assert choices.choice_matches(t, s, opts) in (None, True, False)
        assert isinstance(text.normalize_text(s), str)
        assert text.parse_bool(t) in (None, True, False)
        ident = text.parse_identifier(t)
        assert ident is None or (ident.kind in ("chemical_formula", "identifier", "word") and len(ident.text) <= 64)
        assert text.text_match(s, s) == bool(text.normalize_text(s))
        assert text.contains_answer(s, t) in (True, False)


@pytest.mark.parametrize("junk", [None, 0, 12.5, b"yes", ["A"], {"A": "x"}, object()])
def test_non_string_inputs(junk: Any) -> None:
    assert cues.question_cues(junk) == cues.Cues()
    assert choices.parse_options(junk) == {}
    assert choices.parse_choice(junk) is None
    if not isinstance(junk, dict):
        assert choices.parse_choice("B", junk) == "B"  # unusable options are ignored, not fatal
    assert choices.choice_matches(junk, "A", {"A": "1", "B": "2"}) is None
    assert text.normalize_text(junk) == ""
    assert text.parse_bool(junk) is None
    assert text.parse_identifier(junk) is None
    assert text.text_match(junk, junk) is False
    assert text.contains_answer(junk, "a") is False


ADVERSARIAL = ["a" * 1_000_000, " " * 1_000_000, "(A) " * 250_000, "A. x\n" * 200_000, "\\text{" * 140_000,
               "yes " * 250_000, "in cm? " * 140_000, "{" * 1_000_000, "\x00" * 1_000_000, "ab " * 333_333]


@pytest.mark.parametrize("s", ADVERSARIAL, ids=[f"adversarial-{i}" for i in range(len(ADVERSARIAL))])
def test_one_megabyte_inputs_are_fast(s: str) -> None:
    calls = [
        lambda: cues.question_cues(s),
        lambda: choices.parse_options(s),
        lambda: choices.parse_choice(s),
        lambda: text.normalize_text(s),
        lambda: text.parse_bool(s),
        lambda: text.parse_identifier(s),
        lambda: text.text_match(s, s),
        lambda: text.contains_answer(s, s[:900] + "q"),
    ]
    for i, fn in enumerate(calls):
        _, elapsed = cpu_seconds(fn)
        assert elapsed < 0.15, f"call {i} took {elapsed:.3f}s"  # 50 ms target, slack for a loaded machine


@pytest.mark.parametrize("module", ["extract", "cues", "choices", "text"])
def test_docstring_examples(module: str) -> None:
    import doctest
    import importlib

    mod = importlib.import_module(f"verifier_runtime.toolkit.{module}")
    result = doctest.testmod(mod)
    assert result.attempted > 0 and result.failed == 0


def test_first_marker_prefilter_never_changes_a_result(monkeypatch) -> None:
    """The cheap "is there an A marker at all" test only skips texts that list no options."""
    pieces = ["(A)", "(B)", "(C)", "[a]", "(b)", "A.", "B.", "C.", "A)", "b)", "a)", "A:", "B:", "A\uff1a", "**A.**",
              "**B.**", "A **.**", "Options:", "choices", "Answer Choices:", " foo", " 7", " x^2", "\n", "\n", ", or",
              " and", " A", " a", ".", ")", "**", "\t", "B ", "Which one?", "data", "ya"]
    rng = random.Random(7)
    texts = ["".join(rng.choice(pieces) for _ in range(rng.randint(1, 14))) for _ in range(3000)]
    styles = ["({})", "[{}]", "{}.", "{})", "{}:", "**{}.**", "{} :", "{}\uff1a"]
    for _ in range(3000):  # ordered runs in one layout, with noise: most of these are option lists
        style, lower = rng.choice(styles), rng.random() < 0.3
        sep = rng.choice([" ", "\n", ", ", "\n  "])
        run = [style.format("abcde"[k] if lower else "ABCDE"[k]) + rng.choice(pieces[20:]) for k in range(rng.randint(1, 5))]
        lead = rng.choice(["Q? ", "Options: ", "", "Pick one.\n", "(B) first\nthen ", "B. x\n", "see (C)\n\n"])
        texts.append(lead + sep.join(run) + rng.choice(pieces))
    fast = [choices._parse_options(t) for t in texts]
    # matches everywhere, at once: nothing skipped, and every scan starts at the top
    monkeypatch.setattr(choices, "_first_marker", lambda text: 0)
    slow = [choices._parse_options(t) for t in texts]
    assert fast == slow
    assert sum(1 for r in slow if r) > 300  # the corpus does exercise option lists


def test_contains_answer_agrees_with_a_word_boundary_regex() -> None:
    """The str.find search gives what ``(?<!\\w)needle(?!\\w)`` gives, on random texts."""
    import re

    words = ["art", "party", "_x", "x", "é", "Röntgen", "1901", "a b", "-", " ", ".", "art.", "(art)", "ß", "٣", "art_"]
    rng = random.Random(5)
    for _ in range(4000):
        hay = "".join(rng.choice(words) for _ in range(rng.randint(0, 9)))
        ndl = "".join(rng.choice(words) for _ in range(rng.randint(1, 3)))
        h, n = text.normalize_text(hay), text.normalize_text(ndl)
        want = False
        if h and n and n in h:
            left = r"(?<!\w)" if re.match(r"\w", n[0]) else ""
            right = r"(?!\w)" if re.match(r"\w", n[-1]) else ""
            want = re.search(left + re.escape(n) + right, h) is not None
        assert text.contains_answer(hay, ndl) is want, (hay, ndl)


def test_two_word_prefilter_never_changes_an_identifier(monkeypatch) -> None:
    """``parse_identifier`` skips texts of two words; reading them in full gives None too."""
    pieces = ["H2O", "CuSO4", " ", "  ", "\u00a0", "\t", "$", "**", ".", ",", ":", "\\,", "\\ ", "\\cdot", "\u00b7",
              "\u2022", "\u22c5", "_{2}", "_{ 2 }", "_2", "5H2O", "\\mathrm{", "\\text{", "}", "{", "^{2-}", "^{2 -}",
              "m/s", "BRCA1", "x", "Na", "+", "-", "(", ")", "\u2082", "word", "E. coli"]
    rng = random.Random(3)
    texts = ["".join(rng.choice(pieces) for _ in range(rng.randint(1, 7))) for _ in range(6000)]
    # spaces that the full reading removes: hydrate dots, LaTeX spaces, braced subscripts, ends
    texts += ["CuSO4 \u00b7 5H2O", "CuSO4 \u2022 5H2O", "CuSO4 \u22c5 5H2O", "CuSO4 \\cdot 5H2O", "H_{ 2 }O",
              "Na\\ Cl", "$ H2O $", "H2O .", "** NaCl **", "\\text{Na Cl}", "CuSO_4 \u00b7 5 H_2O"]
    fast = [text.parse_identifier.__wrapped__(t) for t in texts]
    skipped = sum(1 for t in texts if text._two_words(t))
    monkeypatch.setattr(text, "_two_words", lambda _t: False)
    slow = [text.parse_identifier.__wrapped__(t) for t in texts]
    assert fast == slow
    assert skipped > 200 and sum(1 for f in fast if f is not None) > 500  # both paths are exercised


def test_letter_and_text_of_an_answer() -> None:
    assert choices.letter_and_text("(C) The rationals under addition") == ("C", "The rationals under addition")
    assert choices.letter_and_text("(b) {0, 10, 11}") == ("B", "{0, 10, 11}")
    assert choices.letter_and_text("B: 42") == ("B", "42")
    assert choices.letter_and_text("C") is None and choices.letter_and_text("The answer is 7") is None
    # a bracketed lower-case letter names an inline option, so "(c) or possibly (a)" offers two
    assert choices.parse_choice("(c) or possibly (a)", {"A": "1", "B": "2", "C": "3"}) is None


@pytest.mark.parametrize(
    ("question", "unknown"),
    [
        ("Solve $x + 1 = 3$ for $x$.", "x"),  # "solve ... for x" names the unknown as "solve for x" does
        ("Solve the equation $2y = 4$ in $y$.", "y"),
        ("Solve for y.", "y"),
        ("Solve this for a friend.", None),
    ],
)
def test_the_unknown_of_solve_for(question: str, unknown: str | None) -> None:
    from verifier_runtime.toolkit.cues import question_cues

    assert question_cues(question).unknown == unknown


def test_quantity_cue() -> None:
    assert cues.question_cues("What is the pOH of the solution?").quantity == "pOH"
    assert cues.question_cues("Calculate the pH of 0.01 M HCl.").quantity == "pH"
    assert cues.question_cues("What is the value of $K_{sp}$ for AgCl?").quantity == "Ksp"
    assert cues.question_cues("Find the pKa of the acid.").quantity == "pKa"
    for q in ("What is the phase of the moon?", "Graph the function.", "What is the KE of the ball?", ""):
        assert cues.question_cues(q).quantity is None


def test_the_part_of_an_option_that_sets_it_apart_chooses_it() -> None:
    from verifier_runtime.toolkit.choices import parse_choice

    bays = {"A": "bay 1", "B": "bay 2", "C": "bay 3", "D": "bay 4"}
    assert parse_choice("3", bays) == "C" and parse_choice("bay 3", bays) == "C"
    assert parse_choice("5", bays) is None
    miles = {"A": "2 miles", "B": "3 miles", "C": "4 miles"}
    assert parse_choice("4", miles) == "C"
    mixed = {"A": "2 apples", "B": "3 apples", "C": "2 pears"}
    assert parse_choice("2", mixed) is None  # no words every option shares
    same = {"A": "bay 1", "B": "bay 1", "C": "bay 2"}
    assert parse_choice("1", same) is None  # the parts left are not all different
