"""Hard limits: hostile input gets an answer within 2 s, from several threads, and nothing raises."""

from __future__ import annotations

import random
import threading
import time

import pytest

from tests.timing import cpu_seconds
from verifier_runtime import load_verifier

HOSTILE = [
    ("power tower", "2^{2^{2^{2^{2^{2}}}}}", "What is it?"),
    ("huge factorial", "(10^{10^{10}})!", "Compute."),
    ("nine tower", "9^{9^{9^{9}}}", "Compute."),
    ("nested parens", "(" * 5000 + "1" + ")" * 5000, "Simplify."),
    ("nested braces", "\\frac{" * 3000 + "1" + "}" * 3000, "Simplify."),
    ("big exponent literal", "1e999999999", "Value?"),
    ("long digits", "9" * 200_000, "Value?"),
    ("one megabyte", "x" * 1_000_000 + " \\boxed{4}", "What is 2+2?"),
    ("over a megabyte", "y" * 1_500_000, "What is 2+2?"),
    ("nul bytes", "\x00" * 1000 + "\\boxed{4\x00}", "What is 2+2?"),
    ("empty", "", ""),
    ("unclosed box", "\\boxed{" * 2000, "What?"),
    ("many boxes", "\\boxed{1}" * 20_000, "What?"),
    ("deep sqrt", "\\sqrt{" * 2000 + "2" + "}" * 2000, "Simplify."),
]


@pytest.fixture(scope="module")
def verifier():
    return load_verifier(fallback="offline")


@pytest.mark.parametrize("name,text,question", HOSTILE, ids=[h[0] for h in HOSTILE])
def test_hostile_response_and_reference(verifier, name: str, text: str, question: str) -> None:
    for q, r, s in ((question, "4", text), (question, text, "The answer is 4"), (text, text, text)):
        t0 = time.monotonic()
        v = verifier.verify(q, r, s)
        took = time.monotonic() - t0
        assert took < 2.0, (name, took)
        assert v.correct in (True, False)
        assert v.decided_by


def test_hostile_from_many_threads(verifier) -> None:
    errors: list[BaseException] = []
    worst: list[float] = []

    def run(seed: int) -> None:
        rnd = random.Random(seed)
        try:
            for _ in range(6):
                _, text, q = rnd.choice(HOSTILE)
                t0 = time.monotonic()
                verifier.verify(q, "4", text)
                worst.append(time.monotonic() - t0)
        except BaseException as e:  # noqa: BLE001 - any escape is a failure
            errors.append(e)

    threads = [threading.Thread(target=run, args=(i,)) for i in range(8)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(60)
    assert not errors
    assert len(worst) == 48
    assert max(worst) < 2.0, max(worst)


def test_non_string_inputs_never_raise(verifier) -> None:
    for args in ((None, None, None), (1, 2, 3), (b"q", b"4", b"4"), ([], {}, object())):
        v = verifier.verify(*args)
        assert v.correct in (True, False)


# --- size estimation from the parse tree (the guard) ----------------------------------------

BLOWUPS = [
    ("long decimal exponent on a factorial", r"{\sqrt{(170)!/10000}}^{0." + "9" * 60 + "}", "limit:rational_power"),
    ("power tower over a binomial", r"{{\frac{x}{\binom{999}{3}}}^{9999}}^{713}", "limit:integer_size"),
    ("coefficient power", r"(2x)^{9999}", "limit:integer_size"),
    ("fourteen-digit exponent", r"6^{0." + "9" * 14 + "}", "limit:rational_power"),
    ("tower", "2^{2^{2^{2^{2}}}}", "limit:"),
    ("big root of a factorial", r"\sqrt[9999]{170!}", "limit:integer_size"),
    ("factorial", "3000!", "limit:factorial"),
    ("binomial", r"\binom{5000}{2500}", "limit:binomial"),
    ("long literal", "1" * 401, "limit:literal_digits"),
]


@pytest.mark.parametrize("name,text,code", BLOWUPS, ids=[b[0] for b in BLOWUPS])
def test_blowups_are_refused_from_the_parse_tree(name: str, text: str, code: str) -> None:
    from verifier_runtime.limits import end_limit_notes, start_limit_notes
    from verifier_runtime.toolkit.latex import parse_expression

    token = start_limit_notes()
    try:
        parsed, dt = cpu_seconds(parse_expression, text)
    finally:
        notes = end_limit_notes(token)
    assert parsed is None
    assert dt < 0.05, name  # refused before any symbolic work
    assert notes and notes[0].startswith(code), notes


@pytest.mark.parametrize("text", ["(3x)^{20}", "12^{1/12}", "1000!", r"\binom{100}{50}", "(2x+1)^{100}",
                                  r"x^{0.99999999999999999999999}", r"\left(\frac{3}{4}\right)^{20}", "10^{-30}",
                                  r"\sqrt[3]{27}", r"2^{\sqrt{2}}"])
def test_ordinary_expressions_still_parse(text: str) -> None:
    from verifier_runtime.toolkit.latex import parse_expression

    assert parse_expression(text) is not None


def test_verdict_names_the_limit(verifier) -> None:
    response = r"The answer is ${\sqrt{(170)!/10000}}^{0." + "9" * 60 + "}$"
    t0 = time.monotonic()
    v = verifier.verify("Compute it.", r"\sqrt{2}", response)
    assert time.monotonic() - t0 < 2.0
    assert v.reason.endswith(";limit:rational_power") and ("*", "ABSTAIN", "limit:rational_power") in v.trace


def test_a_4301_digit_integer_is_no_internal_error(verifier) -> None:
    big = "1" * 4301
    for q, r, s in (("Value?", big, f"The answer is {big}"), ("Value?", "12", f"$\\boxed{{{big}}}$"),
                    (big, big, big), ("Value?", f"{big}.5", f"The answer is {big}/3")):
        v = verifier.verify(q, r, s)
        assert not v.reason.startswith("internal_error"), v.reason
        assert v.decided_by != "error"


def test_a_cached_parse_still_names_its_limit(verifier) -> None:
    response = r"The answer is $(2x)^{9999}$"
    first = verifier.verify("Expand.", "x", response)
    again = verifier.verify("Expand.", "x", response)  # the parsers' caches answer this time
    assert first.reason.endswith(";limit:integer_size") and again.reason == first.reason
