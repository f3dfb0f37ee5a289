"""Shortcuts on the verifier's hot path give what the long way gives, on inputs written here."""

from __future__ import annotations

import itertools
import re
import time

import pytest

from verifier_runtime import sandbox
from verifier_runtime.cascade import Cascade, run_decide
from verifier_runtime.limits import budget, remaining, run_watched
from verifier_runtime.toolkit import extract
from verifier_runtime.toolkit.text import normalize_text
from verifier_runtime.triple import Triple, _as_text
from verifier_runtime.types import Decision

# --------------------------------------------------------------------------- the echo test's quick exit
_PIECES = ("the", "The", "a", "An", "x", "=", "5", "$", "$x$", "\\text{ab}", "\\mathrm{m}", "\\text{}", "_", "__",
           "(", ")", "[1]", "{", "}", ".", "!", "5!", "?", ",", ":", "\x01", "\x1f", "\x7f", "\t", "\n", " ", "  ",
           "km/h", "H_2O", "it's", "'", '"', "*", "**b**", "~", "\\", "\\,", "3.5", "-2", "ab_cd", "\x0b", "\r")


def _texts() -> list[str]:
    out = ["".join(p) for n in (1, 2, 3) for p in itertools.product(_PIECES[:18], repeat=n)][:6000]
    out += ["".join(p) for p in itertools.product(_PIECES, repeat=2)]
    out += ["What is 2 + 2?", "The answer", "A: x = 5", "\\text{the} \\text{blue} car", "$a$b$c$", "the the the",
            "(((x)))", "[[a b]]", "an apple a day", "x\x00y z w"]
    return out


def test_normalising_ascii_text_never_makes_more_words() -> None:
    """What the quick exit rests on: on ASCII text normalize_text makes no new ``\\w+`` run."""
    for t in _texts():
        assert len(re.findall(r"\w+", normalize_text(t))) <= len(re.findall(r"\w+", t)), repr(t)


@pytest.mark.parametrize("question", [
    "What is 2 + 2?", "Name the capital of France.", "x = 5", "the the the", "Solve $x^2 = 4$ for x.",
    "Quel est le résultat de 3 × 4 ?", "\\text{a b c d e}", "ab cd", "Compute 1, 2, 3, 4 and 5.",
])
def test_the_echo_test_with_its_quick_exit_is_the_long_way(question: str) -> None:
    texts = _texts() + [question, question.upper(), question + " ok", "Résumé café naïve élan", "ﬁ ﬂ ﬀ ①"]
    for t in texts:
        assert extract._is_echo(t, question) == (bool(t) and extract._echo_compared(t, question)), repr(t)
    if len(re.findall(r"\w+", question)) >= 4:
        assert extract._is_echo(question, question)  # an echo stays an echo


# --------------------------------------------------------------------------- the cascade's loop for sandboxed modules
class _Verdict(Decision):
    __slots__ = ()


def _plain_modules():
    def spin(x):
        end = time.monotonic() + 3
        while time.monotonic() < end:
            pass
        return Decision.abstain("never")

    def boom(x):
        raise ValueError("bad")

    def flag(x):
        return Decision.passed("in_module") if sandbox._IN_MODULE.get() else Decision.failed("outside")

    def left(x):  # what a module's cooperative checks see: its own turn's deadline, never a stale one
        t = remaining()
        return Decision.abstain("left:turn" if t is not None and 0 < t <= 0.2 else "left:other")

    def left_raise(x):
        assert 0 < remaining() <= 0.2
        raise ValueError("after reading")

    return {
        "abstain": lambda x: Decision.abstain("no_match"),
        "abstain2": lambda x: Decision.abstain("no_match"),
        "pass": lambda x: Decision.passed("equal:number"),
        "fail": lambda x: Decision.failed("differ:number"),
        "raise": boom,
        "none": lambda x: None,
        "label": lambda x: Decision("MAYBE", "x"),
        "spaced": lambda x: Decision("ABSTAIN", "has space"),
        "unhashable": lambda x: Decision("ABSTAIN", ["no"]),
        "subclass": lambda x: _Verdict("ABSTAIN", "no_match"),
        "subclass_pass": lambda x: _Verdict("PASS", "equal:number"),
        "flag": flag,
        "spin": spin,
        "left": left,
        "left_raise": left_raise,
    }


def _long_way(mods, x, budget_s, deadline):
    """The cascade's rules written out with run_decide, one module at a time."""
    trace = []
    for k, (mid, decide) in enumerate(mods):
        if time.monotonic() >= deadline:
            trace.append(("*", "ABSTAIN", "budget_exhausted"))
            return None, None, tuple(trace)
        d = run_decide(decide, x, budget_s, module_id=mid, call_deadline=deadline)
        trace.append((mid, d.label, d.reason))
        if d.direct:
            return k, d, tuple(trace)
    return None, None, tuple(trace)


def test_a_cascade_of_sandboxed_modules_runs_as_run_decide_would() -> None:
    plain = _plain_modules()
    orders = [
        ["abstain", "raise", "none", "label", "spaced", "unhashable", "subclass", "flag"],
        ["abstain", "abstain2", "subclass_pass", "fail"],
        ["unhashable", "none", "fail", "pass"],
        ["spaced", "label", "abstain", "pass"],
        ["abstain", "spin", "pass"],
        ["raise", "raise", "abstain"],
        ["left", "abstain", "left", "left_raise", "left", "spin", "left", "pass"],
        [],
    ]
    x = Triple("q", "r", "s")
    for names in orders:
        mods = [(n, sandbox._guarded(plain[n])) for n in names]
        fast = Cascade(mods, module_budget_s=0.2)
        assert fast._inner is not None or not names
        for _ in range(2):  # the second time round, every reason code is known
            run = fast.run(x, time.monotonic() + 5)
            decided, decision, trace = _long_way(mods, x, 0.2, time.monotonic() + 5)
            assert (run.decided, run.decision, run.trace) == (decided, decision, trace), names
            assert run.trace == fast.run(x, time.monotonic() + 5, exhaustive=True).trace
            assert sandbox._IN_MODULE.get() is False
            assert remaining() is None  # a returning turn leaves its deadline to the next: the run's end restores
            with budget(30):  # and under an enclosing budget, the enclosing one is back
                outer = remaining()
                assert fast.run(x, time.monotonic() + 5).trace == trace
                assert outer - 1 < remaining() <= outer
    # past the call's deadline, and a deadline met inside the loop
    mods = [(n, sandbox._guarded(plain[n])) for n in ("spin", "pass")]
    late = Cascade(mods, module_budget_s=1.0).run(x, time.monotonic() + 0.1)
    assert late.trace[0] == ("spin", "ABSTAIN", "budget_exhausted") and late.decided is None
    assert Cascade(mods, module_budget_s=1.0).run(x, time.monotonic() - 1).trace == (("*", "ABSTAIN", "budget_exhausted"),)


def test_module_code_runs_flagged_and_other_callables_as_they_are() -> None:
    plain = _plain_modules()
    guarded = Cascade([("flag", sandbox._guarded(plain["flag"]))], module_budget_s=1.0)
    assert guarded.run(Triple("q", "r", "s"), time.monotonic() + 5).decision == Decision.passed("in_module")
    mixed = Cascade([("a", sandbox._guarded(plain["abstain"])), ("flag", plain["flag"])], module_budget_s=1.0)
    assert mixed._inner is None  # not every module is sandboxed: each runs as given
    assert mixed.run(Triple("q", "r", "s"), time.monotonic() + 5).decision == Decision.failed("outside")
    # replacing the modules (a profiler wrapping them) takes the general path again
    guarded.modules = [("flag", plain["flag"])]
    assert guarded._inner is None and guarded.ids == ("flag",)
    assert guarded.run(Triple("q", "r", "s"), time.monotonic() + 5).decision == Decision.failed("outside")
    assert sandbox._IN_MODULE.get() is False


def test_in_sandbox_restores_the_flag_when_the_body_raises() -> None:
    def body():
        assert sandbox._IN_MODULE.get() is True
        raise KeyError("x")

    with pytest.raises(KeyError):
        sandbox.in_sandbox(body)
    assert sandbox._IN_MODULE.get() is False


# --------------------------------------------------------------------------- clean_answer's quick exit
_ANSWER_PIECES = ("42", "x", " ", "$", "$$", "\\(", "\\)", "\\[", "\\]", "**", "*", "__", "_", "`", ".", ",", ";", ":",
                  "\\text{", "\\boxed{", "\\mathrm{", "\\displaystyle", "}", "{", "(B)", "\\frac{1}{2}", "\n", "\t",
                  "!", "5!", "é", "\u00a0", "km", "=")


def test_clean_answer_with_its_quick_exit_is_the_long_way() -> None:
    texts = ["".join(p) for n in (1, 2, 3) for p in itertools.product(_ANSWER_PIECES, repeat=n)]
    texts += ["$\\boxed{\\text{(B)}}$.", "**C**", "The answer is 5", "  7  ", "", "x = \\frac{1}{2};", "`code`"]
    for t in texts:
        assert extract.clean_answer(t) == extract._cleaned(t.strip()), repr(t)


# --------------------------------------------------------------------------- a watch's turns and the context deadline
def test_a_turn_leaves_the_context_deadline_only_when_it_returns() -> None:
    """The long way put the enclosing deadline back after every turn; a turn that returns now
    leaves its own until the next turn or the watch's end. What code can read stays the same:
    inside a turn its own deadline; in a handler of a turn's exception, the enclosing one; after
    the watch, the enclosing one."""
    seen = []

    def body(watch, x):
        assert watch.call(0.5, lambda v: remaining(), x) <= 0.5
        try:
            watch.call(0.5, lambda v: 1 / 0, x)
        except ZeroDivisionError:
            seen.append(remaining())  # what _overran and the error handler read
        try:
            watch.call(0.05, _spin, x)
        except BaseException as e:  # noqa: BLE001 - the turn's own BudgetExceeded
            seen.append((type(e).__name__, remaining()))
        return watch.call(0.5, lambda v: v + 1, x)

    assert run_watched(body, 1) == 2 and remaining() is None
    assert seen == [None, ("BudgetExceeded", None)]
    with budget(30):
        outer = remaining()
        seen.clear()
        assert run_watched(body, 1) == 2
        assert seen[0] <= outer and seen[1][0] == "BudgetExceeded" and seen[1][1] <= outer
        assert outer - 1 < remaining() <= outer


def _spin(x):
    end = time.monotonic() + 3
    while time.monotonic() < end:
        pass


# --------------------------------------------------------------------------- the triple's own shortcuts
@pytest.mark.parametrize("texts", [("q", "r", "s"), ("q\x00", "\x00r\x00", "s" * 5000 + "\x00"), ("", "", ""),
                                   (None, 3, b"a\x00b"), ("\x00", "\x00\x00", "x")])
def test_triple_inputs_and_the_reference_view_are_the_long_way(texts) -> None:
    x = Triple(*texts)
    long_way = [_as_text(t).replace("\x00", "") for t in texts]
    assert [x.question, x.reference, x.response] == long_way
    info = x.reference_info
    assert x.ref == (None if info is None else info.answer) and x.ref == x.ref


# --------------------------------------------------------------------------- nested limit notes on one stack
class _LongWayNotes:
    """The collection as it was: one context variable set and reset per collection."""

    def __init__(self) -> None:
        import contextvars

        self.var = contextvars.ContextVar("long_way_notes", default=None)

    def start(self):
        return self.var.set([])

    def note(self, code: str) -> None:
        notes = self.var.get()
        if notes is not None and code not in notes and len(notes) < 8:
            notes.append(code)

    def end(self, token) -> list[str]:
        notes = self.var.get() or []
        self.var.reset(token)
        return notes


def _script(start, note, end, out: list) -> None:
    """Nested collections with repeats, more than eight codes, and codes replayed outwards."""
    note("limit:before")  # outside any collection: dropped
    t0 = start()
    note("limit:a")
    t1 = start()
    note("limit:a")
    note("limit:b")
    t2 = start()
    for k in range(12):
        note(f"limit:c{k % 10}")
    inner = end(t2)
    out.append(list(inner))
    for code in inner:
        note(code)
    out.append(list(end(t1)))
    note("limit:d")
    out.append(list(end(t0)))
    note("limit:after")


def test_nested_limit_notes_are_the_long_way() -> None:

    from verifier_runtime import limits

    long_way = _LongWayNotes()
    expected: list = []
    _script(long_way.start, long_way.note, long_way.end, expected)
    got: list = []
    _script(limits.start_limit_notes, limits.note_limit, limits.end_limit_notes, got)
    assert got == expected and limits._limit_notes.get() is None
    # collections begun in a context copied into another thread, while one is open here
    assert _threaded(limits.start_limit_notes, limits.note_limit, limits.end_limit_notes) == _threaded(
        long_way.start, long_way.note, long_way.end)
    assert limits._limit_notes.get() is None


def _threaded(start, note, end) -> tuple[list, list]:
    import contextvars
    import threading

    token = start()
    note("limit:main")
    seen: list = []
    ctx = contextvars.copy_context()
    worker = threading.Thread(target=lambda: ctx.run(_script, start, note, end, seen))
    worker.start()
    worker.join()
    return seen, list(end(token))


# --------------------------------------------------------------------------- prefixed relatives of a unit
def _in_other_unit_long_way(a, qr, nr):
    """``criterion._in_other_unit`` as it was: pint converts the reference to every relative."""
    import math

    from verifier_runtime.toolkit import criterion
    from verifier_runtime.toolkit.units import convert, convert_to_base

    if not math.isfinite(a) or not a or not float(qr.magnitude):
        return False
    units = set()
    if " " not in qr.unit:
        stem = criterion._PREFIX_RE.sub("", qr.unit)
        units.update(p + stem for p in criterion._OTHER_PREFIXES)
    units.discard(qr.unit)
    targets = [convert(qr, u) for u in sorted(units)] + [convert_to_base(qr)]
    return any(t is not None and float(t.magnitude) and t.unit != qr.unit
               and criterion._magnitudes(a, float(t.magnitude), nr, qr, t).correct for t in targets)


def test_linear_stems_convert_by_the_prefixes_power_of_ten() -> None:
    """What the shortcut rests on: pint converts each listed unit between any two prefixes by
    their power of ten, to well within the bound ``_may_match`` allows (1e-12)."""
    from verifier_runtime.toolkit import criterion
    from verifier_runtime.toolkit.units import Quantity, convert, parse_quantity

    for stem in sorted(criterion._LINEAR_STEMS):
        base = parse_quantity(f"7.25 {stem}")
        assert base is not None and base.unit == stem, stem
        for p0, p in itertools.product(criterion._PREFIX_EXPONENTS, criterion._OTHER_PREFIXES):
            q = Quantity(base.magnitude, p0 + stem, base.dimensionality)
            t = convert(q, p + stem)
            assert t is not None, (p0, p, stem)
            x = 7.25 * 10.0 ** (criterion._PREFIX_EXPONENTS[p0] - criterion._PREFIX_EXPONENTS[p])
            assert abs(float(t.magnitude) - x) <= 1e-13 * abs(x), (p0, p, stem, t.magnitude, x)


def test_in_other_unit_with_its_prefix_bound_is_the_long_way() -> None:
    """The bare number against a reference quantity, near and far from every prefixed relative,
    at the edges of the reference's precision, for listed and unlisted units."""
    import random

    from verifier_runtime.toolkit import criterion
    from verifier_runtime.toolkit.numbers import parse_number
    from verifier_runtime.toolkit.units import parse_quantity

    rng = random.Random(7)
    refs = ["3.3 GeV", "1861 K", "0.3 mm", "113 L", "654 nm", "2.50 kg", "8 \\times 10^{8} m", "1.1 \\times 10^{-9} s",
            "12 J", "4.0 kPa", "193 °F", "25 °C", "5 dB", "3 mi", "2 m/s", "100 mg", "0.05 mol", "7 MHz", "1.5 h"]
    seen_true = seen_false = 0
    for text in refs:
        qr = parse_quantity(text)
        assert qr is not None, text
        nr = parse_number(text.split(" ")[0]) if " " in text and "times" not in text else None
        m = float(qr.magnitude)
        tol = float(criterion.reference_tolerance(nr)) if nr is not None else 0.0
        answers = [0.0, float("inf"), m, -m, m * 1.5]
        for k in range(-12, 13):
            x = m * 10.0 ** k
            answers += [x, x * (1 + 1e-10), x * (1 + 2e-9), x * (1 - 1e-9), x + tol * 10.0 ** k, x - tol * 10.0 ** k,
                        x + tol * 10.0 ** k * (1 + 1e-8), x + tol * 10.0 ** k * 1.01, x * (1 + rng.uniform(-0.05, 0.05))]
        for a in answers:
            want = _in_other_unit_long_way(a, qr, nr)
            assert criterion._in_other_unit(a, qr, nr) == want, (text, a)
            seen_true += want
            seen_false += not want
    assert seen_true > 50 and seen_false > 50
