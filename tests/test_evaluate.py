"""The evaluation runner end to end on a tiny hand-made set."""

from __future__ import annotations

import json
import threading
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

import pytest

from tasks.data.schema import Example
from tasks.evaluate.baselines import MathVerifyBaseline
from tasks.evaluate.runner import (
    EvalConfig,
    EvalError,
    evaluate,
    load_eval_config,
    load_results,
    load_rounds,
    run_verifier,
    summarize,
)
from verifier_runtime.types import FallbackResult

REPO = Path(__file__).resolve().parent.parent


def _ex(i: int, ref: str, resp: str, label: bool, atype: str = "short_answer", domain: str = "math") -> Example:
    return Example(
        id=f"t{i}", question=f"Question {i}?", reference=ref, response=resp, label=label, source="fixture",
        domain=domain, split="evaluation", meta={"answer_type": atype},
    )


SETS = {
    "verifybench": [
        _ex(0, "4", "So the answer is \\boxed{4}.", True),
        _ex(1, "4", "So the answer is \\boxed{5}.", False),
        _ex(2, "\\frac{1}{2}", "The result is \\boxed{0.5}.", True),
        _ex(3, "B", "I pick option B.", True, atype="multi_choice"),
        _ex(4, "12", "It is 13. Final answer: 13", False),
    ],
    "verifybench_hard": [
        _ex(10, "3", "Thus \\boxed{3}", True, domain="physics"),
        _ex(11, "7", "Thus \\boxed{8}", False, domain="physics"),
        _ex(12, "x^2", "We get \\boxed{x \\cdot x}", True),
    ],
}


@dataclass(frozen=True)
class _Info:
    id: str
    group: str


@dataclass(frozen=True)
class _V:
    correct: bool | None
    decided_by: str
    reason: str
    fallback_called: bool
    elapsed_ms: float = 0.1


class _TailMatchFallbackVerifier:
    """A fake verifier: a 'boxed' module decides boxed answers, else a substring-in-tail fallback."""

    def __init__(self, with_modules: bool) -> None:
        self.with_modules = with_modules
        self.modules = (_Info("boxed_eq", "extraction"),) if with_modules else ()
        self.artifact_version = "r0000"
        self.fallback_name = "tail"

    def verify_batch(self, rows, workers=1):
        out = []
        for r in rows:
            resp, ref = r["response"], r["reference"]
            if self.with_modules and "\\boxed{" in resp:
                inner = resp.split("\\boxed{", 1)[1].rsplit("}", 1)[0]
                out.append(_V(inner == ref, "boxed_eq", "boxed_compare", False))
            else:
                out.append(_V(ref in resp[-20:], "fallback:tail", "tail_match", True))
        return out


def _cfg(tmp_path: Path, **kw) -> EvalConfig:
    base = dict(benchmarks=list(SETS), db=str(tmp_path / "eval.duckdb"), json_path=str(tmp_path / "eval.json"),
                decontamination=False)
    base.update(kw)
    return EvalConfig(**base)


def test_config_file_and_overrides(tmp_path):
    cfg = load_eval_config(REPO / "configs" / "eval.yaml", benchmark="verifybench", limit=3, fallback="none")
    assert cfg.benchmarks == ["verifybench"] and cfg.limit == 3 and cfg.fallback == "none"
    assert "autoverifier" in cfg.verifiers
    bad = tmp_path / "bad.yaml"
    bad.write_text("benchmarks: [nope]\n")
    with pytest.raises(EvalError, match="unknown benchmark"):
        load_eval_config(bad)
    bad.write_text("wrkers: 3\n")
    with pytest.raises(EvalError, match="unknown eval config keys"):
        load_eval_config(bad)
    with pytest.raises(EvalError, match="not found"):
        load_eval_config(tmp_path / "missing.yaml")


def test_math_verify_baseline_main_thread_and_worker_thread():
    mv = MathVerifyBaseline({"parsing_timeout": 5, "timeout_seconds": 5})
    rows = [{"question": "q", "reference": e.reference, "response": e.response} for e in SETS["verifybench"][:3]]
    main = [v.correct for v in mv.verify_batch(rows)]
    assert main == [True, False, True]
    got: list = []
    t = threading.Thread(target=lambda: got.extend(mv.verify_batch(rows)))
    t.start()
    t.join(120)
    assert [v.correct for v in got] == main  # off the main thread it runs in a child process
    bad = mv.verify_batch([{"reference": None, "response": "\\boxed{"}])
    assert bad[0].correct is False and bad[0].decided_by == "math_verify"


def test_end_to_end_json_shape_store_and_reload(tmp_path):
    cfg = _cfg(tmp_path, verifiers=["autoverifier", "fallback_only", "math_verify"])
    verifiers = {
        "autoverifier": _TailMatchFallbackVerifier(True),
        "fallback_only": _TailMatchFallbackVerifier(False),
        "math_verify": MathVerifyBaseline(),
    }
    run = evaluate(cfg, sets=SETS, verifiers=verifiers, run_id="test-run")
    data = json.loads((tmp_path / "eval.json").read_text())
    assert set(data) >= {"benchmarks", "macro"}
    assert set(data["benchmarks"]) == set(SETS)
    for bench, per in data["benchmarks"].items():
        assert set(per) == {"autoverifier", "fallback_only", "math_verify"}
        for fig in per.values():
            assert {"n", "accuracy", "accuracy_ci", "direct_coverage", "direct_precision", "fallback_calls"} <= set(fig)
            assert fig["n"] == len(SETS[bench])
            lo, hi = fig["accuracy_ci"]
            assert lo <= fig["accuracy"] <= hi
    vb = data["benchmarks"]["verifybench"]
    # boxed module decides t0,t1,t2: right, right, wrong ("0.5" != "\frac{1}{2}"); fallback t3 right, t4 right
    assert vb["autoverifier"]["accuracy"] == pytest.approx(4 / 5)
    assert vb["autoverifier"]["direct_coverage"] == pytest.approx(3 / 5)
    assert vb["autoverifier"]["direct_precision"] == pytest.approx(2 / 3)
    assert vb["autoverifier"]["fallback_calls"] == 2
    # fallback only: t0 right, t1 right ("4" not in tail), t2 wrong, t3 right, t4 right
    assert vb["fallback_only"]["fallback_calls"] == 5
    assert vb["fallback_only"]["direct_coverage"] == 0.0
    assert vb["fallback_only"]["direct_precision"] is None
    hard = data["benchmarks"]["verifybench_hard"]
    # module: t10 right, t11 right, t12 wrong -> 2/3
    assert hard["autoverifier"]["accuracy"] == pytest.approx(2 / 3)
    assert data["macro"]["autoverifier"] == pytest.approx((4 / 5 + 2 / 3) / 2)
    assert data["micro"]["autoverifier"] == pytest.approx(6 / 8)
    assert "autoverifier_vs_fallback_only" in data["paired"]["all"]
    assert data["ablations"]["all"][0]["group"] == "extraction"
    assert data["corrections"]["all"]["fallback_calls_avoided"] == pytest.approx(1 - 2 / 8)
    assert data["breakdowns"]["verifybench"]["autoverifier"]["answer_type"]["multi_choice"]["n"] == 1
    assert data["disagreements"][0]["direct"] is True and data["disagreements"][0]["question"]
    assert data["decontamination"]["status"] == "skipped"
    assert data["data"]["verifybench"]["kind"] == "sample"
    assert data["notes"]
    # stored rows read back to the same figures
    run_id, rows = load_results(tmp_path / "eval.duckdb")
    assert run_id == "test-run" and len(rows) == len(run.results) == 3 * 8
    again = summarize(rows)
    assert again["benchmarks"]["verifybench"]["autoverifier"] == data["benchmarks"]["verifybench"]["autoverifier"]
    assert load_rounds(tmp_path / "eval.duckdb") == []
    assert load_rounds(tmp_path / "nothing.duckdb") == []


def test_runner_rejects_short_verdict_lists():
    class Short:
        def verify_batch(self, rows, workers=1):
            return []

    with pytest.raises(EvalError):
        run_verifier("x", Short(), "verifybench", SETS["verifybench"])


class _ScriptedFallback:
    """A fallback judge for tests: correct iff the reference appears in the response's tail."""

    name = "scripted"

    def judge(self, question: str, reference: str, response: str, *, guidance: str = "") -> FallbackResult:
        return FallbackResult(reference.strip() in response[-30:], "scripted_tail")

    def judge_batch(self, rows: Sequence[tuple[str, str, str]], *, guidance: str = "", workers: int = 4):
        return [self.judge(*r, guidance=guidance) for r in rows]


def test_real_runtime_over_empty_release(tmp_path):
    """The real runtime over an empty-library release: autoverifier == fallback_only."""
    from verifier_runtime import load_verifier
    from verifier_runtime.artifact import ReleaseSpec, write_release

    rel = write_release(ReleaseSpec(version="r0001"), tmp_path / "releases" / "r0001")
    fb = _ScriptedFallback()
    verifiers = {
        "autoverifier": load_verifier(rel, fallback=fb),
        "fallback_only": load_verifier(rel, fallback=fb, exclude_groups=set()),
    }
    cfg = _cfg(tmp_path, verifiers=["autoverifier", "fallback_only"], artifact=str(rel))
    data = evaluate(cfg, sets=SETS, verifiers=verifiers).report
    vb = data["benchmarks"]["verifybench"]
    assert vb["autoverifier"] == vb["fallback_only"]
    assert vb["autoverifier"]["direct_coverage"] == 0.0
    assert data["artifact"]["version"] == "r0001"
    assert data["paired"]["all"]["autoverifier_vs_fallback_only"]["mean_diff"] == 0.0


def _write_sample(path: Path, examples: list[Example]) -> None:
    """Fixture examples in the shared samples' JSONL format."""
    with path.open("w", encoding="utf-8") as f:
        for e in examples:
            f.write(json.dumps({"question": e.question, "answer": e.reference, "model_ans": e.response,
                                "gold_ans": "[Correct]" if e.label else "[Incorrect]",
                                "question_type": e.meta["answer_type"], "source": "fixture"}) + "\n")


def test_evaluate_flow_publishes_artifacts(prefect_harness, tmp_path):
    import asyncio

    from prefect.client.orchestration import get_client
    from prefect.client.schemas.filters import ArtifactFilter, ArtifactFilterKey

    from flows.evaluate import evaluate as evaluate_flow

    roots = {}
    for name, exs in SETS.items():
        _write_sample(tmp_path / f"{name}.jsonl", exs)
        roots[name] = str(tmp_path / f"{name}.jsonl")
    cfg = tmp_path / "eval.yaml"
    cfg.write_text(json.dumps({
        "benchmarks": list(SETS), "benchmark_roots": roots, "artifact": None, "fallback": "offline",
        "verifiers": ["autoverifier", "fallback_only", "math_verify"], "decontamination": False,
        "db": str(tmp_path / "flow.duckdb"), "json": str(tmp_path / "flow.json"), "workers": 2,
    }))
    report = evaluate_flow(config_path=str(cfg), run_id="flow-run")
    assert set(report["benchmarks"]) == set(SETS)
    for per in report["benchmarks"].values():
        assert set(per) == {"autoverifier", "fallback_only", "math_verify"}
    assert report["data"]["verifybench"]["kind"] == "full release" and report["run"]["rows_stored"] == 3 * 8
    assert json.loads((tmp_path / "flow.json").read_text())["macro"] == report["macro"]
    # the flow's figures equal the pure runner's on the same examples
    direct = summarize(run_verifier("math_verify", MathVerifyBaseline(), "verifybench_hard", SETS["verifybench_hard"]))
    assert report["benchmarks"]["verifybench_hard"]["math_verify"] == direct["benchmarks"]["verifybench_hard"][
        "math_verify"]
    _, rows = load_results(tmp_path / "flow.duckdb", "flow-run")
    assert len(rows) == 24

    async def artifacts():
        async with get_client() as client:
            return await client.read_artifacts(
                artifact_filter=ArtifactFilter(key=ArtifactFilterKey(any_=["evaluation-summary",
                                                                           "evaluation-accuracy"]))
            )

    arts = asyncio.run(artifacts())
    by_key = {a.key: a for a in arts}
    assert set(by_key) == {"evaluation-summary", "evaluation-accuracy"}
    assert "verifybench_hard" in by_key["evaluation-summary"].data
    table = by_key["evaluation-accuracy"].data
    table = json.loads(table) if isinstance(table, str) else table
    assert len(table) == 2 * 3


_BOXED_MODULE = '''"""Test module: compare the last boxed answer with the reference."""
from verifier_runtime.types import Decision

MODULE = {"id": "boxed_eq", "group": "extraction", "priority": 10, "card_id": "c_boxed", "description": "boxed"}


def decide(x):
    if "\\\\boxed{" not in x.response:
        return Decision.abstain("no_boxed")
    inner = x.response.split("\\\\boxed{", 1)[1].rsplit("}", 1)[0]
    if inner.strip() == x.reference.strip():
        return Decision.passed("boxed_equal")
    return Decision.failed("boxed_differs")
'''

_FINAL_MODULE = '''"""Test module: 'Final answer:' equal to the reference."""
from verifier_runtime.types import Decision

MODULE = {"id": "final_eq", "group": "verdict_matching", "priority": 20, "card_id": "c_final",
          "description": "final"}


def decide(x):
    if "Final answer:" not in x.response:
        return Decision.abstain("no_final")
    ans = x.response.rsplit("Final answer:", 1)[1].strip()
    return Decision.passed("final_equal") if ans == x.reference.strip() else Decision.failed("final_differs")
'''


def test_real_runtime_with_modules_build_verifiers_and_ablations(tmp_path):
    """A two-module release through build_verifiers: fallback_only excludes every group."""
    from verifier_runtime.artifact import ModuleEntry, ReleaseSpec, write_release

    spec = ReleaseSpec(version="r0002", modules=[
        (ModuleEntry(id="boxed_eq", group="extraction", priority=10, card_id="c_boxed", description="boxed"),
         _BOXED_MODULE),
        (ModuleEntry(id="final_eq", group="verdict_matching", priority=20, card_id="c_final", description="final"),
         _FINAL_MODULE),
    ])
    rel = write_release(spec, tmp_path / "releases" / "r0002")
    cfg = _cfg(tmp_path, verifiers=["autoverifier", "fallback_only"], artifact=str(rel), fallback="none")
    from tasks.evaluate.runner import build_verifiers

    verifiers = build_verifiers(cfg)
    assert [m.id for m in verifiers["autoverifier"].modules] == ["boxed_eq", "final_eq"]
    assert verifiers["fallback_only"].modules == ()
    data = evaluate(cfg, sets=SETS, verifiers=verifiers).report
    vb = data["benchmarks"]["verifybench"]
    # boxed_eq: t0 PASS (right), t1 FAIL (right), t2 FAIL (wrong: 0.5 vs \frac{1}{2}); final_eq: t4 FAIL (right);
    # t3 abstains everywhere -> None with fallback "none" (counted wrong)
    assert vb["autoverifier"]["direct_coverage"] == pytest.approx(4 / 5)
    assert vb["autoverifier"]["direct_precision"] == pytest.approx(3 / 4)
    assert vb["autoverifier"]["abstentions"] == 1 and vb["autoverifier"]["accuracy"] == pytest.approx(3 / 5)
    assert vb["fallback_only"]["accuracy"] == 0.0 and vb["fallback_only"]["abstentions"] == 5
    abl = {a["group"]: a for a in data["ablations"]["verifybench"]}
    assert abl["extraction"]["replaced"] == 3 and abl["extraction"]["delta"] == pytest.approx(-2 / 5)
    assert abl["verdict_matching"]["replaced"] == 1 and abl["verdict_matching"]["delta"] == pytest.approx(-1 / 5)
    assert data["disagreements"][0]["decided_by"] == "boxed_eq" and data["disagreements"][0]["direct"]
