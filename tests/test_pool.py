"""Pool: config, split by question key, decontamination by question, the constructed variants'
balance and carriers, the composition report, determinism, the cache; seed and real pools."""

from __future__ import annotations

import json
import shutil
from collections import Counter
from pathlib import Path

import pytest

from tasks.data.decontam import normalize_text
from tasks.data.diagnostics import answer_form, generate_diagnostics, load_seed_examples
from tasks.data.pool import PoolConfig, build_pool, composition_markdown, split_by_question
from tasks.data.schema import Example, question_key, stable_id
from tasks.data.store import Store

REPO = Path(__file__).resolve().parent.parent
FIX = Path(__file__).parent / "fixtures"
THREE = {"construction": 0.6, "validation": 0.2, "holdout": 0.2}


def _ex(q: str, resp: str = "r", key: str | None = None) -> Example:
    return Example(stable_id(q, resp), q, "ref", resp, True, "t", meta={"question_key": key} if key else {})


def test_split_by_question_property() -> None:
    exs = [_ex(f"Question number {i % 400}?", f"resp {i}") for i in range(2000)]
    exs += [_ex(f"  QUESTION number {i}  ", "other") for i in range(50)]  # same questions, other surface
    out = split_by_question(exs, THREE, seed=3)
    sides = {name: {normalize_text(e.question) for e in xs} for name, xs in out.items()}
    assert set(out) == set(THREE)
    for a in THREE:
        for b in THREE:
            assert a == b or not sides[a] & sides[b]
    assert sum(len(v) for v in out.values()) == len(exs)
    assert 0.5 < len(sides["construction"]) / 400 < 0.7 and 0.12 < len(sides["validation"]) / 400 < 0.28
    again = split_by_question([_ex(e.question, e.response) for e in exs], THREE, 3)
    assert [e.id for e in again["validation"]] == [e.id for e in out["validation"]]
    assert {e.id for e in split_by_question(list(exs), THREE, 4)["holdout"]} != {e.id for e in out["holdout"]}
    with pytest.raises(ValueError):
        split_by_question(exs, {"a": 0.5, "b": 0.2})


def test_split_follows_the_question_key() -> None:
    # a variant whose question gained a cue sentence stays with its base question
    base = _ex("What is the probability of rain?")
    variant = _ex("What is the probability of rain? Express your answer as a decimal.", "x",
                  key=question_key(base.question))
    for seed in range(20):
        split_by_question([base, variant], THREE, seed)
        assert base.split == variant.split


def test_answer_form() -> None:
    cases = {"42": "integer", "1,234": "integer", "-3.5": "decimal", "3/4": "fraction", "\\frac{1}{2}": "fraction",
             "x^2 + 1": "latex", "(B)": "choice", "Paris": "short_text", "in the 1780s": "short_text",
             "Step one.\nA: 18": "integer", "The answer is \\boxed{\\sqrt{2}}": "latex",
             "a long free text answer that goes on and on about several things": "long_text"}
    assert {k: answer_form(k) for k in cases} == cases


def test_config_errors() -> None:
    with pytest.raises(ValueError, match="unknown keys"):
        PoolConfig.from_dict({"sorces": []})
    with pytest.raises(ValueError, match="unknown evaluation set"):
        PoolConfig.from_dict({"eval_sets": ["mmlu"]})
    with pytest.raises(ValueError, match="sum to 1"):
        PoolConfig.from_dict({"split": {"construction": 0.9, "holdout": 0.2}})
    with pytest.raises(ValueError, match="policy"):
        PoolConfig.from_dict({"decontamination": {"policy": "ignore"}})
    with pytest.raises(ValueError, match="unique"):
        PoolConfig.from_dict({"sources": [{"name": "a", "path": "x"}, {"name": "a", "path": "y"}]})
    cfg = PoolConfig.from_yaml(REPO / "configs" / "pool.yaml")
    assert cfg.target_size == 10000 and len(cfg.sources) == 9 and cfg.eval_sets
    assert set(cfg.split) == {"construction", "validation", "holdout"}


def test_builtin_seed_pool_without_shared(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.setenv("AUTOVERIFIER_SHARED", str(tmp_path / "absent"))
    cfg = PoolConfig.from_yaml(REPO / "configs" / "pool.yaml")
    cfg.cache = None
    res = build_pool(cfg)
    rep = res.report
    assert rep["data"] == "builtin_seed" and len(rep["missing_sources"]) == 9 and "eval_sets_missing" in rep
    assert {e.source for e in res} == {"seed", "constructed"}
    assert len(res.split("construction")) > 400 and res.split("validation") and res.split("holdout")
    assert all(e.label_provenance for e in res)
    assert rep["composition"]["by_label_provenance"]["constructed"] > 500
    assert [e.id for e in build_pool(cfg)] == [e.id for e in res]


def _fixture_shared(tmp_path: Path) -> Path:
    """A shared folder made of the hand-made fixtures, with a planted evaluation sample."""
    root = tmp_path / "shared"
    c = root / "construction"
    shutil.copytree(FIX / "sources", c)
    shutil.copy(FIX / "formats" / "evouna_mini.json", c / "NQ.json")
    shutil.copy(FIX / "formats" / "gsm8k_solutions.jsonl", c / "gsm8k.jsonl")
    bench = root / "benchmarks" / "verifybench"
    bench.mkdir(parents=True)
    # the MATH probability question (asked again by ZeroEval model-a) is in the evaluation sample
    q = json.loads((FIX / "sources" / "math" / "test.jsonl").read_text().splitlines()[4])["problem"]
    rows = [{"question": q.replace("at random", "at rnadom"), "answer": "3/8", "model_ans": "3/8",
             "gold_ans": "[Correct]", "question_type": "short_answer", "source": "math_reasoning/MATH"},
            {"question": "An unrelated evaluation question about rivers and mountains?", "answer": "x",
             "model_ans": "y", "gold_ans": "[Incorrect]", "question_type": "short_answer", "source": "simpleqa"}]
    (bench / "sample.jsonl").write_text("".join(json.dumps(r) + "\n" for r in rows))
    return root


def _fixture_config(root: Path, **kw) -> dict:
    c = root / "construction"
    cfg = {"target_size": 160, "seed": 5, "split": THREE, "diagnostics": {"count": 140},
           "eval_sets": ["verifybench"], "decontamination": {"eval_root": str(root / "benchmarks")},
           "sources": [{"name": "evouna_nq", "path": str(c / "NQ.json"), "format": "evouna"},
                       {"name": "gsm8k", "path": str(c / "gsm8k.jsonl"), "format": "gsm8k_solutions"},
                       {"name": "mmlu_pro", "path": str(c / "mmlu_pro"), "format": "mmlu_pro"},
                       {"name": "math", "path": str(c / "math" / "test.jsonl"), "format": "math"},
                       {"name": "olympiadbench", "path": str(c / "olympiadbench.jsonl")},
                       {"name": "scibench", "path": str(c / "scibench")},
                       {"name": "theoremqa", "path": str(c / "theoremqa.json")},
                       {"name": "zeroeval", "path": str(c / "zeroeval")}]}
    cfg.update(kw)
    return cfg


@pytest.fixture(scope="module")
def fixture_pool(tmp_path_factory: pytest.TempPathFactory):
    root = _fixture_shared(tmp_path_factory.mktemp("pool"))
    import warnings

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return root, build_pool(_fixture_config(root))


def test_fixture_pool_decontamination_drops_the_question_everywhere(fixture_pool) -> None:
    root, res = fixture_pool
    rep = res.report
    dec = rep["decontamination"]
    assert dec["contaminated_questions"] == 1 and dec["matches_by_kind"] == {"fuzzy_question": 1}
    assert dec["matches"][0]["pool_source"] in ("math", "zeroeval") and dec["matches"][0]["eval_set"] == "verifybench"
    # the MATH question and ZeroEval's response to it leave together
    assert rep["decontamination_dropped"] == {"math": {"questions": 1, "responses": 1}, "zeroeval": {"responses": 1}}
    assert not [e for e in res if "marble" in e.question]
    assert "contaminated" in composition_markdown(rep)


def test_fixture_pool_labels_and_splits(fixture_pool) -> None:
    _, res = fixture_pool
    assert all(e.label_provenance for e in res)
    prov = Counter(e.label_provenance.split(":")[0] for e in res)
    assert set(prov) == {"human", "official_auto", "constructed"}
    for e in res:
        if e.source == "constructed":
            assert e.label_provenance == f"constructed:{e.meta['variant']}" and e.meta["rule"].startswith("R")
        elif e.source.startswith("evouna"):
            assert e.label_provenance == "human"
        else:
            assert e.label_provenance == "official_auto"
    # one question, one split: whatever source or variant
    side: dict[str, set[str]] = {}
    for e in res:
        side.setdefault(e.question_key, set()).add(e.split)
    assert all(len(v) == 1 for v in side.values())
    # a variant written into a response to another question uses one of the same split
    keys = {e.meta["carrier"]["id"]: e for e in res if e.meta.get("carrier", {}).get("relation") == "similar_question"}
    assert keys  # some exist in this tiny pool


def test_fixture_pool_constructed_balance_and_carriers(fixture_pool) -> None:
    _, res = fixture_pool
    comp = res.report["composition"]
    assert comp["by_label_provenance"]["constructed"] == sum(1 for e in res if e.source == "constructed")
    per_type = Counter(e.meta["variant"] for e in res if e.source == "constructed")
    assert len(per_type) >= 30  # most types find a base in the fixtures
    assert max(per_type.values()) <= 4 * min(per_type.values()) + 4
    rel = Counter(e.meta["carrier"]["relation"] for e in res if e.source == "constructed")
    assert rel["same_question"] >= 20  # the fixtures hold few responses; the real pool far more
    sources = Counter(e.meta["base_source"] for e in res if e.source == "constructed")
    assert {"math", "olympiadbench", "scibench", "theoremqa", "mmlu_pro"} <= set(sources)
    for key in ("by_split", "by_base_source", "by_answer_object", "by_variant", "by_label_provenance", "table"):
        assert comp[key]
    md = composition_markdown(res.report)
    assert "| answer object |" in md and "| variant type |" in md and "| label provenance |" in md


def test_fixture_pool_is_deterministic_and_cached(fixture_pool, tmp_path: Path) -> None:
    root, res = fixture_pool
    import warnings

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        cfg = _fixture_config(root, cache=str(tmp_path / "cache"))
        a = build_pool(cfg)
        b = build_pool(cfg)
        other = build_pool(_fixture_config(root, seed=6))
    assert [e.id for e in a] == [e.id for e in res] == [e.id for e in b]
    assert "from_cache" not in a.report and b.report["from_cache"]
    assert [e.to_dict() for e in b] == [e.to_dict() for e in a]
    assert {e.id for e in other} != {e.id for e in a}
    a.write_report(tmp_path / "rep")
    assert json.loads((tmp_path / "rep" / "report.json").read_text())["composition"]["size"] == len(a)


def test_seed_diagnostics_deterministic() -> None:
    seeds = load_seed_examples()
    assert len(seeds) >= 150
    a = generate_diagnostics(seeds, 300, seed=1, carriers=[])
    b = generate_diagnostics(load_seed_examples(), 300, seed=1, carriers=[])
    assert [e.id for e in a] == [e.id for e in b] and len(a) == 300 and len({e.id for e in a}) == 300
    assert {e.meta["variant_family"] for e in a} >= {"equivalent", "near_miss", "commitment", "invalid", "choice"}


def test_real_pool(shared_dir: Path, tmp_path: Path) -> None:
    cfg = PoolConfig.from_yaml(REPO / "configs" / "pool.yaml")
    cfg.target_size, cfg.diagnostics, cfg.cache = 3000, 2000, None
    with Store(tmp_path / "pool.duckdb") as st:
        res = build_pool(cfg, store=st)
        assert st.count("examples") == len(res)
    rep = res.report
    assert rep["data"] == "sources" and len(res) == 3000 and len({e.id for e in res}) == len(res)
    comp = rep["composition"]
    assert set(comp["by_split"]) == {"construction", "validation", "holdout"}
    assert {"math", "olympiadbench", "scibench", "theoremqa", "mmlu_pro", "gsm8k_solutions"} <= set(comp["by_base_source"])
    assert comp["by_label_provenance"]["constructed"] == 2000
    assert rep["decontamination"]["contaminated_questions"] > 0  # MATH and MMLU-Pro items of the samples
    assert rep["decontamination_dropped"]["math"]["questions"] > 0
    sides = {n: {e.question_key for e in res.split(n)} for n in ("construction", "validation", "holdout")}
    assert not sides["construction"] & sides["validation"] and not sides["validation"] & sides["holdout"]


def test_a_template_response_never_nests_math_delimiters() -> None:
    import random as _random

    from tasks.data.diagnostics import _template
    from tasks.data.variants import Base, Made

    b = Base("b-t", "Solve $x^2 - 6x + 1 = 0$.", "3 \\pm 2 \\sqrt{2}", "3 \\pm 2 \\sqrt{2}", "set", "fixture", "math")
    for seed in range(6):
        text = _template(b, Made(False, "not $3 \\pm 2 \\sqrt{2}$", placement="prose"), _random.Random(seed))
        assert "$not" not in text and "$$" not in text, text
        text = _template(b, Made(True, "3 \\pm 2 \\sqrt{2}"), _random.Random(seed))
        assert "$3 \\pm 2 \\sqrt{2}$" in text, text


def test_pool_cache_survives_concurrent_writers(fixture_pool, tmp_path: Path) -> None:
    """Two processes building one pool at once (a demo beside a test run) each rename their own
    temporary file into place: no writer fails, and the cache reads back whole."""
    import threading

    from tasks.data.pool import _read_cache, _write_cache

    _, res = fixture_pool
    target = tmp_path / "cache" / "pool-0.jsonl.gz"
    errors: list[BaseException] = []

    def write() -> None:
        try:
            for _ in range(3):
                _write_cache(target, res)
        except BaseException as e:  # noqa: BLE001 - the test reports any failure
            errors.append(e)

    threads = [threading.Thread(target=write) for _ in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert not errors
    back = _read_cache(target)
    assert back is not None and [e.id for e in back.examples] == [e.id for e in res]
    assert not [p.name for p in target.parent.iterdir() if p.name.startswith(".tmp-")]


def test_pool_cache_write_failure_is_reported_not_raised(fixture_pool, tmp_path: Path) -> None:
    from tasks.data.pool import PoolResult, _write_cache

    _, res = fixture_pool
    blocker = tmp_path / "file"
    blocker.write_text("not a directory")
    copy = PoolResult(list(res.examples), dict(res.report))
    _write_cache(blocker / "pool-0.jsonl.gz", copy)  # its folder cannot be made
    assert "cache_write_error" in copy.report
