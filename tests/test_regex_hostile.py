"""No regular expression of the toolkit backtracks its way into a hang.

A pattern such as ``\\s*,?\\s*(?:or|and)`` is cubic on a run of blanks: 800 spaces took five
seconds, and a signal cannot stop the regex engine. Every pattern the toolkit compiles is run
over runs of its own characters and of blanks a few thousand long, just above the size the
parsers accept (``MAX_ANSWER_CHARS``); a quadratic pattern takes about a second there, a
linear one a millisecond. The bound is generous so a loaded machine does not fail the test;
what it catches is the super-linear pattern.
"""

from __future__ import annotations

import importlib
import pkgutil
import re

import verifier_runtime.toolkit as tk
from tests.timing import cpu_seconds
from verifier_runtime.limits import MAX_ANSWER_CHARS

N = 3 * MAX_ANSWER_CHARS
BOUND_S = 0.25


def _patterns() -> list[tuple[str, re.Pattern]]:
    out, seen = [], set()
    for info in pkgutil.walk_packages(tk.__path__, tk.__name__ + "."):
        mod = importlib.import_module(info.name)
        for name, value in vars(mod).items():
            if isinstance(value, re.Pattern) and isinstance(value.pattern, str) and id(value) not in seen:
                seen.add(id(value))
                out.append((f"{info.name}.{name}", value))
    return out


def _runs(pattern: str, n: int) -> list[str]:
    units = [" ", "\n", "\t", "\\ ", ", ", " ,", "1 ", "1,", "1.", "x=", "a_", "(", "{", "-1", "C", "7", "ab ", "{a", "$1"]
    units += sorted({c for c in pattern if c.isprintable() and c not in "\\()[]{}?*+|^$"})[:8]
    units += [f" {w} " for w in re.findall(r"[A-Za-z]{2,}", pattern)[:4]]
    return [(u * (n // len(u) + 1))[:n] + "!" for u in dict.fromkeys(units)]


def test_the_toolkit_compiles_patterns_to_check():
    assert len(_patterns()) > 150


def _slow(n: int) -> list[str]:
    slow = []
    for name, rx in _patterns():
        for text in _runs(rx.pattern, n):
            _, dt = cpu_seconds(lambda: sum(1 for _ in rx.finditer(text)))  # noqa: B023 - called at once
            if dt > BOUND_S:
                slow.append(f"{name} on {text[:12]!r}... ({n} chars): {dt:.2f} s")
    return slow


def test_no_toolkit_pattern_is_super_linear_on_long_runs():
    # short runs first: a cubic pattern fails here in seconds instead of running for minutes below
    slow = _slow(N // 5)
    assert not slow, slow
    slow = _slow(N)
    assert not slow, slow
