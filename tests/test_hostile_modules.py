"""The hostile-module corpus: each is refused statically, or loads and never touches the host.

Every file in ``tests/hostile_modules/`` names, on its first line, the host effect it attempts.
For each: either the static check refuses it, or the runtime loader refuses it, or it loads
and runs (on ordinary inputs and on its trigger input) with the process-wide state unchanged
(:func:`process_snapshot`), no marker file written, and every call back within its budget.
"""

from __future__ import annotations

import builtins
import collections.abc
import decimal
import os
import sys
import threading
import time
from pathlib import Path

import pytest

from verifier_runtime.limits import BudgetExceeded, call_with_budget
from verifier_runtime.sandbox import ModulePolicyError, check_module_source, load_module_source
from verifier_runtime.triple import Triple
from verifier_runtime.verifier import run_decide

CORPUS = sorted((Path(__file__).parent / "hostile_modules").glob("h*.py"))
MARKER = Path("/tmp/autoverifier-hostile-marker")
INPUTS = [("What is 2+2?", "4", "The answer is 4"), ("Simplify.", "x+1", "The answer is $x+1$"),
          ("Q", "aaaa", "TRIGGER " + "a" * 40 + "!"), ("Q", "(a+)+$", "a" * 30 + "b")]


def process_snapshot() -> dict:
    """Process-wide state a code module must never change."""
    call_with_budget(1.0, len, "")  # the budget's watchdog thread is the runtime's own: start it first
    abcs = [getattr(collections.abc, n) for n in collections.abc.__all__]
    probes = (int, str, float, bytes, list, dict, tuple, set, type(None), bool)
    ctx = decimal.getcontext()
    import sympy

    return {
        "environ": dict(os.environ),
        "cwd": os.getcwd(),
        "decimal": (ctx.prec, ctx.rounding, ctx.Emax, ctx.Emin, ctx.capitals, ctx.clamp,
                    tuple(sorted((k.__name__, v) for k, v in ctx.traps.items()))),
        "decimal_default": (decimal.DefaultContext.prec, decimal.DefaultContext.rounding,
                            tuple(sorted((k.__name__, v) for k, v in decimal.DefaultContext.traps.items()))),
        "abc": tuple(issubclass(t, a) for a in abcs for t in probes),
        "recursion_limit": sys.getrecursionlimit(),
        "int_digits": sys.get_int_max_str_digits(),
        "threads": threading.active_count(),
        "stdout": (id(sys.stdout), id(sys.stderr)),
        "sympy_evaluate": sympy.core.parameters.global_parameters.evaluate,
        "builtins": tuple(sorted((k, id(v)) for k, v in vars(builtins).items() if k != "_")),
        "marker": MARKER.exists(),
    }


def _effect(path: Path) -> str:
    first = path.read_text(encoding="utf-8").splitlines()[0]
    assert first.startswith("# effect: "), f"{path.name}: the first line must name the attempted effect"
    return first.removeprefix("# effect: ")


def test_corpus_is_large_and_documented():
    assert len(CORPUS) >= 50
    assert all(_effect(p) for p in CORPUS)


@pytest.mark.parametrize("path", CORPUS, ids=[p.stem for p in CORPUS])
def test_hostile_module_never_acts_on_the_host(path: Path):
    MARKER.unlink(missing_ok=True)
    source = path.read_text(encoding="utf-8")
    if check_module_source(source):
        return  # refused statically
    before = process_snapshot()
    try:
        t0 = time.monotonic()
        ns = load_module_source(source, filename=path.name)
        assert time.monotonic() - t0 < 3.0, "loading ran unbudgeted"
    except ModulePolicyError:
        assert process_snapshot() == before
        return  # refused by the loader
    for q, r, s in INPUTS:
        t0 = time.monotonic()
        d = run_decide(ns.decide, Triple(q, r, s), 0.5)
        assert time.monotonic() - t0 < 1.5, f"{path.name} held the caller on {s[:20]!r}"
        assert len(d.reason) <= 80 and "\n" not in d.reason
    after = process_snapshot()
    assert after == before, {k: (before[k], after[k]) for k in before if before[k] != after[k]}
    assert not MARKER.exists()


def test_the_trigger_variants_pass_static_checks_and_are_bounded_at_run_time():
    """The stealth modules (clean on the audit's cases, hostile on a trigger) are the ones the
    static check cannot see: the runtime bounds must stop each of them."""
    runtime_only = [p for p in CORPUS if not check_module_source(p.read_text(encoding="utf-8"))]
    names = {p.stem.split("_", 1)[1] for p in runtime_only}
    assert {"pow_operator_huge", "string_repeat_memory", "nested_tuple_dict_key", "busy_loop_trigger",
            "sympy_match_string_eval", "range_sum_c_loop"} <= names
    for p in runtime_only:
        try:
            ns = load_module_source(p.read_text(encoding="utf-8"), filename=p.name)
        except ModulePolicyError:
            continue  # refused by the loader
        d = run_decide(ns.decide, Triple("Q", "x+1", "TRIGGER The answer is $x+1$"), 0.5)
        assert d.label in ("PASS", "FAIL", "ABSTAIN")


def test_string_evaluation_by_sympy_is_refused_inside_modules_only():
    import sympy

    x = sympy.Symbol("x")
    assert (x + 1).subs("x", "2") == 3  # outside module code sympy still parses strings
    src = next(p for p in CORPUS if "sympy_match_string_eval" in p.name).read_text(encoding="utf-8")
    ns = load_module_source(src)
    d = run_decide(ns.decide, Triple("Simplify.", "x+1", "The answer is $x+1$"), 1.0)
    assert d.reason == "module_error:ValueError" and not MARKER.exists()


def test_shipped_release_modules_leave_the_process_as_they_found_it():
    from verifier_runtime import load_verifier

    v = load_verifier(fallback="none")
    v.verify("warm", "1", "1")
    before = process_snapshot()
    for q, r, s in INPUTS:
        for _info, decide in v.module_callables():
            try:
                call_with_budget(1.0, decide, Triple(q, r, s))
            except (Exception, BudgetExceeded):
                pass
    assert process_snapshot() == before


def test_module_views_hand_out_no_mutable_shared_containers():
    from verifier_runtime.sandbox import module_view

    for name in ("verifier_runtime.toolkit", "verifier_runtime.toolkit.units", "verifier_runtime.toolkit.text",
                 "verifier_runtime.toolkit.numbers", "verifier_runtime.toolkit.choices"):
        view = module_view(name)
        for attr in dir(view):
            assert not isinstance(getattr(view, attr), dict | list | set | bytearray), f"{name}.{attr}"
