"""Hostile inputs: every primitive returns quickly (no huge integer work, no deep recursion), never raises."""

from __future__ import annotations

import threading
import time

import pytest

from tests.timing import cpu_seconds
from verifier_runtime.toolkit.compare import answers_equivalent, parse_answer
from verifier_runtime.toolkit.latex import (
    equations_equal,
    expressions_equal,
    parse_equation,
    parse_expression,
)
from verifier_runtime.toolkit.numbers import parse_number
from verifier_runtime.toolkit.structures import parse_collection, parse_interval_set, parse_matrix
from verifier_runtime.toolkit.units import parse_quantity, preload_units

HOSTILE = [
    "2^{2^{2^{2^{2}}}}",
    "9^{9^{9^{9}}}",
    "9^9^9^9",
    "2**2**2**2**2**2",
    "10^{10^{10}}",
    "(10^{10^{10}})!",
    "((1000)!)!",
    "1000!!",
    "10^{999999999}",
    "x^{10^{10}}",
    "e^{e^{e^{e^{10}}}}",
    "\\exp(\\exp(\\exp(100)))",
    "\\sin(10^{10^{5}})",
    "\\binom{10^{9}}{5 \\cdot 10^{8}}",
    "\\sqrt[10^{10}]{2}",
    "(1-0.999999)^{-10000}",
    "1e999999999",
    "1e-999999999",
    "-1e999999999 m/s",
    "9^{9^{9}} m",
    "(" * 5000 + "1" + ")" * 5000,
    "(" * 500 + ")" * 500,
    "\\sqrt{" * 300 + "2" + "}" * 300,
    "-" * 900 + "1",
    "\\frac{1}{" * 100,
    "1" * 1000,
    "1" * 10**6,
    "x+" * 500_000 + "x",
    "a" * 10**6,
    "1 " * 500,
    "1," * 499 + "1",
    "\\{" + ",".join(["1"] * 400) + "\\}",
    "(0, 9^{9^{9^{9}}})",
    "\\{2^{2^{2^{2^{2}}}}, 1\\}",
    "\\begin{pmatrix}" + "\\\\".join(["&".join(["1"] * 20)] * 20) + "\\end{pmatrix}",
    "\\begin{pmatrix}9^{9^{9^{9}}} & 1\\end{pmatrix}",
    "1\x002",
    "\x00" * 1000,
    "x = 9^{9^{9^{9}}}",
    "(x+1)^{10000}",
    "\\left(" * 200 + "x" + "\\right)" * 200,
    "|" * 999,
    "\\" * 999,
    "{" * 999,
    "$" * 999,
    "\u221e" * 500,
    # symbolic: numeric checks must not start unbounded argument reductions
    "\\sin(e^{x^{100}})",
    "\\cos(e^{e^{e^{x}}})",
    "x^{x^{x^{x}}}",
    "e^{e^{x^{50}}}",
    "\\tan(10^{50} x)",
    "\\sin(x^{10000})",
    "(x^{9999}+1)^{9999}",
    "\\Gamma(x)^{x!}",
]
IDS = [f"h{k:02d}" for k in range(len(HOSTILE))]
PRIMITIVES = [parse_number, parse_expression, parse_equation, parse_quantity, parse_interval_set, parse_collection,
              parse_matrix, parse_answer]
LIMIT_S = 0.5


@pytest.fixture(scope="module", autouse=True)
def _warm() -> None:
    preload_units()
    answers_equivalent("x^2", "x*x")


@pytest.mark.parametrize("text", HOSTILE, ids=IDS)
def test_each_primitive_returns_fast(text: str) -> None:
    for fn in PRIMITIVES:
        _, dt = cpu_seconds(fn, text)
        assert dt < LIMIT_S, f"{fn.__name__} took {dt:.3f}s"
    _, dt = cpu_seconds(lambda: (answers_equivalent(text, "1"), expressions_equal(text, "x"),
                                 equations_equal(text, "x = 1")))
    assert dt < LIMIT_S * 2


@pytest.mark.parametrize(
    "text",
    ["2^{2^{2^{2^{2}}}}", "9^{9^{9^{9}}}", "(10^{10^{10}})!", "10^{10^{10}}", "1e999999999", "(" * 5000 + ")" * 5000],
)
def test_hostile_values_are_refused(text: str) -> None:
    assert parse_number(text) is None
    assert parse_expression(text) is None
    c = answers_equivalent(text, "1")
    assert c.equal is None


def test_huge_but_bounded_power_is_exact() -> None:
    e = parse_expression("2^{10000}")
    assert e is not None and e == 2**10000


@pytest.mark.parametrize("value", [None, 0, 1.5, b"1", ["1"], {"a": 1}, object()])
def test_non_strings(value: object) -> None:
    for fn in PRIMITIVES:
        assert fn(value) is None
    assert answers_equivalent(value, "1").equal is None  # type: ignore[arg-type]


def test_eight_threads_at_once() -> None:
    errors: list[str] = []
    slow: list[float] = []

    def work(offset: int) -> None:
        try:
            for k in range(len(HOSTILE)):
                text = HOSTILE[(k + offset) % len(HOSTILE)]
                t0 = time.perf_counter()
                parse_answer(text)
                answers_equivalent(text, "(x+1)^2")
                slow.append(time.perf_counter() - t0)
            # ordinary work stays correct under contention
            if answers_equivalent("(x+1)^2", "x^2+2x+1").equal is not True:
                errors.append("expr")
            if answers_equivalent("1 km", "1000 m").equal is not True:
                errors.append("units")
            if answers_equivalent("\\{1,2\\}", "2, 1").equal is not True:
                errors.append("set")
        except BaseException as exc:  # noqa: BLE001 - report anything a thread raises
            errors.append(repr(exc))

    threads = [threading.Thread(target=work, args=(i * 5,)) for i in range(8)]
    t0 = time.perf_counter()
    for t in threads:
        t.start()
    for t in threads:
        t.join(timeout=60)
    assert not any(t.is_alive() for t in threads)
    assert not errors, errors
    assert time.perf_counter() - t0 < 30
    assert max(slow) < 2.0  # each call, under 8-way contention on 2 cores


def test_numeric_value_is_bounded() -> None:
    from verifier_runtime.toolkit.latex import numeric_value
    from verifier_runtime.toolkit.latex.numeric import _ctx

    e = parse_expression("\\sin(e^{x^{100}})")
    x = sorted(e.free_symbols, key=str)
    big = {x[0]: _ctx().mpf("1.8")}
    t0 = time.perf_counter()
    assert numeric_value(e, big) is None  # e^(1.8^100) has ~10^25 digits: refused, not reduced
    assert numeric_value(parse_expression("\\sin(\\pi/6)")) is not None
    assert time.perf_counter() - t0 < LIMIT_S
