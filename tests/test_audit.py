"""Module policy (static allow-list, restricted loader) and the sandboxed code audit."""

from __future__ import annotations

import subprocess
import sys
import threading
import types
import uuid
from pathlib import Path

import pytest

from tasks.construct.audit import HASH_SEEDS, audit_module
from verifier_runtime.sandbox import (
    ModulePolicyError,
    ModuleView,
    check_module_source,
    load_module_source,
    module_view,
)
from verifier_runtime.types import Decision

BENIGN = '''"""Compare the last number of the response with the reference as fractions."""

import re
from fractions import Fraction

from verifier_runtime.types import ABSTAIN, FAIL, PASS, Decision

MODULE = {"id": "last_fraction", "group": "numeric", "priority": 10, "card_id": "card-t1",
          "description": "last number equals the reference as a fraction"}
_NUM = re.compile(r"-?\\d+(?:/\\d+)?\\s*$", re.I | re.M)
TOL = Fraction(1, 1000)


def _last_number(text):
    m = _NUM.search(text.strip())
    return Fraction(m.group(0).strip()) if m else None


def decide(x):
    a, b = _last_number(x.response), _last_number(x.reference)
    if a is None or b is None:
        return Decision(ABSTAIN, "no number")
    return Decision(PASS, "equal") if abs(a - b) <= TOL else Decision(FAIL, "different")


SUPPORT = [{"question": "q", "reference": "1/2", "response": "so 2/4", "expected": "PASS"}]
COUNTEREXAMPLES = [{"question": "q", "reference": "1/2", "response": "so 3", "expected": "FAIL"}]
'''


def with_body(body: str, *, head: str = "") -> str:
    """The benign module with ``head`` after the imports and ``body`` at the top of ``decide``."""
    src = BENIGN.replace("MODULE = {", head + "\nMODULE = {", 1) if head else BENIGN
    lines = "".join(f"    {ln}\n" for ln in body.splitlines())
    return src.replace("def decide(x):\n", "def decide(x):\n" + lines, 1)


CASES = [
    {"question": "q", "reference": "3", "response": "it is 3", "expected": "PASS"},
    {"question": "q", "reference": "3", "response": "no idea", "expected": "ABSTAIN"},
]


# --- static policy ---------------------------------------------------------------------------


def test_benign_module_is_allowed_and_loads():
    assert check_module_source(BENIGN) == []
    ns = load_module_source(BENIGN, "r0001/last_fraction.py")
    assert ns.id == "last_fraction" and ns.MODULE["priority"] == 10
    assert len(ns.SUPPORT) == 1 and len(ns.COUNTEREXAMPLES) == 1
    x = types.SimpleNamespace(question="q", reference="1/2", response="so 2/4")
    assert ns.decide(x) == Decision("PASS", "equal")
    assert len(ns.sha256) == 64


@pytest.mark.parametrize(
    ("body", "expected"),
    [
        ("open('/tmp/x', 'w').write('1')", "forbidden name 'open'"),
        ("eval('1+1')", "forbidden name 'eval'"),
        ("exec('y = 1')", "forbidden name 'exec'"),
        ("__import__('os').system('true')", "dunder name '__import__'"),
        ("getattr(__builtins__, 'open')", "forbidden name 'getattr'"),
        ("().__class__.__bases__[0].__subclasses__()", "dunder attribute access '.__class__'"),
        ("(i for i in []).gi_frame.f_globals", "forbidden attribute '.gi_frame'"),
        ("'{0.__class__}'.format(x)", "forbidden attribute '.format'"),
        ("x._cache", "private attribute access '._cache'"),
        ("x.response = 'y'", "attribute assignment"),
        ("return hash(x.response) % 2", "forbidden name 'hash'"),
        ("id(x)", "forbidden name 'id'"),
        ("type(x)", "forbidden name 'type'"),
        ("print(x)", "forbidden name 'print'"),
        ("os.system('true')", "use of module 'os'"),
        ("undefined_helper(x)", "unknown name 'undefined_helper'"),
        ("global TOL", "'global' statements"),
        ("import socket", "imports are only allowed at module level"),
        ("try:\n    pass\nexcept:\n    pass", "bare 'except:'"),
        ("try:\n    pass\nfinally:\n    return Decision('PASS')", "'return' inside 'finally'"),
        ("class K:\n    pass", "class definitions are not allowed"),
    ],
)
def test_hostile_function_bodies_are_refused(body, expected):
    violations = check_module_source(with_body(body))
    assert any(expected in v for v in violations), violations
    assert all(v.startswith("line ") for v in violations if expected in v)


@pytest.mark.parametrize(
    ("head", "expected"),
    [
        ("import socket", "import of forbidden module 'socket'"),
        ("import subprocess", "import of forbidden module 'subprocess'"),
        ("import os", "import of forbidden module 'os'"),
        ("import importlib", "import of forbidden module 'importlib'"),
        ("from ctypes import CDLL", "import of forbidden module 'ctypes'"),
        ("import random", "import of forbidden module 'random'"),
        ("import numpy", "not on the allow-list"),
        ("from verifier_runtime.limits import budget", "only verifier_runtime.types and verifier_runtime.toolkit"),
        ("import verifier_runtime.toolkit", "binds a module object"),
        ("from verifier_runtime.toolkit import os", "import of forbidden module 'os' via"),
        ("from re import *", "import *"),
        ("from re import _compile", "private name '_compile'"),
        ("from typing import get_type_hints", "forbidden name 'get_type_hints'"),
        ("from . import sibling", "relative imports"),
        ("import collections.abc", "dotted import"),
        ("F = lambda y: y", "not a constant expression"),
        ("BOMB = 'a' * 10", "operator Mult"),
        ("lower_name = 1", "must be an UPPER_CASE constant"),
        ("COUNT = len('abc')", "call of something other than an imported name"),
        ("if True:\n    pass", "statement If is not allowed at module level"),
        ("async def g():\n    pass", "async code"),
        ("@staticmethod\ndef g(y):\n    return y", "has decorators"),
    ],
)
def test_hostile_module_level_code_is_refused(head, expected):
    violations = check_module_source(with_body("", head=head))
    assert any(expected in v for v in violations), violations


@pytest.mark.parametrize(
    ("source", "expected"),
    [
        (BENIGN.split("\n", 1)[1], "must start with a docstring"),
        (BENIGN.replace('MODULE = {"id": "last_fraction", ', 'MODULE = {'), "missing keys: id"),
        (BENIGN.replace('"priority": 10', '"priority": "high"'), "must be a number"),
        (BENIGN.replace("def decide(x):", "def decide(x, y):"), "exactly one positional parameter"),
        (BENIGN.replace("def decide(x):", "def decide_it(x):"), "missing top-level function 'decide(x)'"),
        (BENIGN.replace("MODULE = {", "META = {"), "missing 'MODULE = {...}'"),
        (BENIGN.replace('"expected": "PASS"', '"expected": "YES"'), "SUPPORT[0]: 'expected' must be one of"),
        (BENIGN + "\nTOL = 2\n", "assigned more than once"),
        ("def broken(:\n", "syntax error"),
        ("'''doc'''\n" + "x" * 1_000_001, "too long"),
    ],
)
def test_required_structure(source, expected):
    violations = check_module_source(source)
    assert any(expected in v for v in violations), violations


def test_non_string_source_is_reported_not_raised():
    assert check_module_source(b"abc") == ["module source must be a str, not bytes"]  # type: ignore[arg-type]


def test_loader_raises_policy_error_with_all_violations():
    src = with_body("open('/x')\neval('1')")
    with pytest.raises(ModulePolicyError) as err:
        load_module_source(src, "bad.py")
    assert len(err.value.violations) == 2
    assert "bad.py" in str(err.value)


def test_loader_uses_restricted_builtins():
    ns = load_module_source(BENIGN)
    g = ns.decide.__wrapped__.__globals__
    assert "open" not in g["__builtins__"] and "len" in g["__builtins__"]
    with pytest.raises(ImportError):
        g["__builtins__"]["__import__"]("os")


def test_imported_stdlib_modules_are_read_only_views_without_submodules():
    view = module_view("re")
    assert isinstance(view, ModuleView)
    assert callable(view.compile)
    with pytest.raises(AttributeError):
        view.enum  # noqa: B018 - re imports enum: the view must not hand it out
    with pytest.raises(AttributeError):
        view.compile = None
    # A from-import of a module object is refused when the module is loaded.
    with pytest.raises(ModulePolicyError, match="'re.enum' is not available"):
        load_module_source(with_body("", head="from re import enum"))


def test_toolkit_module_cannot_leak_os(monkeypatch):
    import os as os_module

    name = f"verifier_runtime.toolkit.leaky_{uuid.uuid4().hex[:8]}"
    fake = types.ModuleType(name)
    exec("import os\nrun = os.system\nalso_os = os\ndef helper(s):\n    return s.strip()\n", fake.__dict__)
    assert fake.run is os_module.system
    monkeypatch.setitem(sys.modules, name, fake)

    ok = load_module_source(with_body("x = x", head=f"from {name} import helper"))
    assert ok.decide is not None
    for leaked in ("run", "also_os"):
        src = with_body("", head=f"from {name} import {leaked}")
        assert check_module_source(src) == []  # not visible statically ...
        with pytest.raises(ModulePolicyError, match="not available to modules"):
            load_module_source(src)  # ... refused by the restricted import


def test_concurrent_loads_are_thread_safe():
    results: list[str] = []
    errors: list[BaseException] = []

    def work():
        try:
            ns = load_module_source(BENIGN)
            x = types.SimpleNamespace(question="q", reference="4", response="= 4")
            results.append(ns.decide(x).label)
        except BaseException as e:  # pragma: no cover - a failure is reported below
            errors.append(e)

    threads = [threading.Thread(target=work) for _ in range(8)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(10)
    assert not errors and results == ["PASS"] * 8


# --- the audit ---------------------------------------------------------------------------------


def test_benign_module_passes_every_stage():
    r = audit_module(BENIGN, cases=CASES)
    assert r.passed, r.reason
    assert r.stage == "determinism" and r.violations == []
    assert [(o["source"], o["label"]) for o in r.outputs] == [
        ("support", "PASS"),
        ("counterexample", "FAIL"),
        ("case", "PASS"),
        ("case", "ABSTAIN"),
    ]
    assert r.stats["cases"] == 4 and r.stats["errors"] == 0
    assert r.to_dict()["passed"] is True


def test_audit_refuses_file_io_statically_and_nothing_runs(tmp_path):
    target = Path("/tmp") / f"autoverifier-audit-{uuid.uuid4().hex}"
    src = with_body(f"open({str(target)!r}, 'w').write('pwned')")
    r = audit_module(src, cases=CASES)
    assert not r.passed and r.stage == "static"
    assert any("forbidden name 'open'" in v for v in r.violations)
    assert not target.exists()


@pytest.mark.parametrize(
    ("head", "body", "expected"),
    [
        ("import socket", "", "forbidden module 'socket'"),
        ("import subprocess", "", "forbidden module 'subprocess'"),
        ("", "os.system('touch /tmp/x')", "use of module 'os'"),
        ("", "__import__('os')", "dunder name '__import__'"),
        ("import importlib", "", "forbidden module 'importlib'"),
        ("", "getattr(__builtins__, 'open')", "forbidden name 'getattr'"),
        ("", "().__class__.__bases__[0].__subclasses__()", "dunder attribute access"),
    ],
)
def test_audit_refuses_hostile_code_at_the_static_stage(head, body, expected):
    r = audit_module(with_body(body, head=head), cases=CASES)
    assert not r.passed and r.stage == "static"
    assert expected in r.reason or any(expected in v for v in r.violations)


def test_audit_refuses_a_leaked_module_object_at_load():
    r = audit_module(with_body("", head="from re import enum"), cross_process=False)
    assert not r.passed and r.stage == "static"
    assert "not available to modules" in r.reason


def test_infinite_loop_is_killed_by_the_cpu_limit():
    r = audit_module(with_body("while True:\n    pass"), cpu_seconds=1, wall_seconds=20, cross_process=False)
    assert not r.passed and r.stage == "sandbox"
    assert "CPU time limit" in r.reason


def test_infinite_loop_is_killed_by_the_wall_clock():
    r = audit_module(with_body("while True:\n    pass"), cpu_seconds=30, wall_seconds=1.5, cross_process=False)
    assert not r.passed and r.stage == "sandbox"
    assert "wall-clock limit" in r.reason


@pytest.mark.parametrize(
    "body",
    ["y = [0] * 10**10", "y = []\nwhile True:\n    y.append([1] * 10000)"],
    ids=["one-allocation", "growing-list"],
)
def test_memory_bomb_is_stopped_by_the_address_space_limit(body):
    r = audit_module(with_body(body), memory_mb=256, cpu_seconds=10, cross_process=False)
    assert not r.passed and r.stage == "sandbox"
    assert "memory limit" in r.reason


def test_order_dependence_fails_the_determinism_stage():
    src = with_body(
        "SEEN.append(1)\nreturn Decision(PASS if len(SEEN) % 2 else FAIL, 'count')",
        head="SEEN = []",
    )
    assert check_module_source(src) == []  # mutable module state is not visible statically
    r = audit_module(src, cases=CASES, cross_process=False)
    assert not r.passed and r.stage == "determinism"
    assert "order-dependent" in r.reason


def test_set_order_dependence_fails_across_processes():
    src = with_body("first = next(iter({x.response, x.reference}))\nreturn Decision(PASS, first)")
    cases = [
        {"question": "q", "reference": f"ref{i}", "response": f"resp-{i}", "expected": "PASS"} for i in range(12)
    ]
    assert HASH_SEEDS[0] != HASH_SEEDS[1]
    r = audit_module(src, cases=cases)
    assert not r.passed and r.stage == "determinism"
    assert "differ between processes" in r.reason


def test_non_decision_return_fails_the_sandbox_stage():
    r = audit_module(with_body("return 'PASS'"), cross_process=False)
    assert not r.passed and r.stage == "sandbox"
    assert "instead of a Decision" in r.reason


def test_exceptions_in_decide_are_recorded_not_fatal():
    r = audit_module(with_body("return Decision(PASS, str(1 // len(x.question[5:])))"), cross_process=False)
    assert r.passed
    assert {o["label"] for o in r.outputs} == {"ERROR"}
    assert r.outputs[0]["reason"].startswith("ZeroDivisionError")
    assert r.stats["errors"] == 2


@pytest.mark.parametrize(
    ("cases", "error"),
    [
        ("nope", TypeError),
        ([{"question": "q", "reference": "r"}], ValueError),
        ([{"question": "q", "reference": "r", "response": "s", "expected": "MAYBE"}], ValueError),
    ],
)
def test_bad_cases_argument_is_a_clear_error(cases, error):
    with pytest.raises(error):
        audit_module(BENIGN, cases=cases)


def test_sandbox_guard_blocks_writes_sockets_and_processes_even_past_the_policy():
    target = Path("/tmp") / f"autoverifier-guard-{uuid.uuid4().hex}"
    root = Path(__file__).resolve().parents[1]
    script = (
        f"import sys; sys.path.insert(0, {str(root)!r})\n"
        "from tasks.construct.audit import _install_guard\n"
        "blocked = []\n"
        "_install_guard(blocked)\n"
        "open(sys.executable, 'rb').close()\n"  # reading stays possible
        "import numpy\n"  # import-time side effects of installed libraries (numpy calls putenv) are allowed
        "import os\n"
        "attempts = (lambda: open(sys.argv[1], 'w'), lambda: __import__('socket').socket(),\n"
        "            lambda: os.putenv('X', '1'), lambda: os.system('true'))\n"
        "for attempt in attempts:\n"
        "    try:\n"
        "        attempt()\n"
        "    except PermissionError:\n"
        "        pass\n"
        "print(len(blocked))\n"
    )
    proc = subprocess.run(
        [sys.executable, "-c", script, str(target)], capture_output=True, text=True, timeout=30, check=False
    )
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.strip() == "4"
    assert not target.exists()


def test_offline_drafter_templates_satisfy_the_policy():
    render = pytest.importorskip("tasks.construct.render")
    case = {"question": "What is 1/2 + 1/4?", "reference": "3/4", "response": "\\boxed{0.75}", "expected": "PASS"}
    for name in render.template_names():
        src = render.render_module(name, {}, module_id=f"t_{name}", priority=1, card_id="card-t", description=name,
                                   why="policy test", support=[case], counterexamples=[])
        assert check_module_source(src) == [], name
        load_module_source(src, f"{name}.py")
    src = render.render_module("numeric_match", {}, module_id="t", priority=1, card_id="c", description="d",
                               why="w", support=[case], counterexamples=[])
    r = audit_module(src, cross_process=False)
    assert r.passed and r.outputs[0]["label"] == "PASS", r.reason
