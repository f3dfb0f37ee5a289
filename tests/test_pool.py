"""Pool: config parsing, split by question, constructed diagnostics, balanced deterministic build."""

from __future__ import annotations

from collections import Counter
from pathlib import Path

import pytest

from tasks.data.decontam import normalize_text
from tasks.data.diagnostics import Base, answer_form, generate_diagnostics, load_seed_examples, variants
from tasks.data.pool import PoolConfig, build_pool, split_by_question
from tasks.data.schema import Example, stable_id
from tasks.data.store import Store

REPO = Path(__file__).resolve().parent.parent


def _ex(q: str, resp: str = "r") -> Example:
    return Example(stable_id(q, resp), q, "ref", resp, True, "t")


def test_split_by_question_property() -> None:
    exs = [_ex(f"Question number {i % 400}?", f"resp {i}") for i in range(2000)]
    exs += [_ex(f"  QUESTION number {i}  ", "other") for i in range(50)]  # same questions, other surface
    out = split_by_question(exs, {"construction": 0.8, "holdout": 0.2}, seed=3)
    sides = {name: {normalize_text(e.question) for e in xs} for name, xs in out.items()}
    assert not sides["construction"] & sides["holdout"]
    assert sum(len(v) for v in out.values()) == len(exs)
    assert 0.7 < len(sides["construction"]) / 400 < 0.9
    again = split_by_question([_ex(e.question, e.response) for e in exs], {"construction": 0.8, "holdout": 0.2}, 3)
    assert [e.id for e in again["holdout"]] == [e.id for e in out["holdout"]]
    other_seed = split_by_question(list(exs), {"construction": 0.8, "holdout": 0.2}, 4)
    assert {e.id for e in other_seed["holdout"]} != {e.id for e in out["holdout"]}
    with pytest.raises(ValueError):
        split_by_question(exs, {"a": 0.5, "b": 0.2})


def test_answer_form() -> None:
    cases = {"42": "integer", "1,234": "integer", "-3.5": "decimal", "3/4": "fraction", "\\frac{1}{2}": "fraction",
             "x^2 + 1": "latex", "(B)": "choice", "Paris": "short_text", "in the 1780s": "short_text",
             "Step one.\nA: 18": "integer", "The answer is \\boxed{\\sqrt{2}}": "latex",
             "a long free text answer that goes on and on about several things": "long_text"}
    assert {k: answer_form(k) for k in cases} == cases


def test_variants_labels() -> None:
    b = Base("b1", "How many apples does Sam have?", "Sam has 3 + 4 = 7 apples.\n#### 1250", "1250", "math", "t")
    got = {e.meta["variant"]: e for e in variants(b)}
    assert got["numeric.thousands_sep"].label and "1,250" in got["numeric.thousands_sep"].response
    assert got["numeric.trailing_unit"].response.endswith("1250 apples.")
    assert not got["numeric.off_by_one"].label and "1251" in got["numeric.off_by_one"].response
    assert not got["numeric.wrong_sign"].label and not got["numeric.box_text_mismatch"].label
    assert not got["invalid.empty"].label and got["invalid.empty"].response == ""
    assert all(e.source == "constructed" and e.meta["made_from"] == "b1" for e in got.values())
    frac = {e.meta["variant"]: e for e in variants(Base("b2", "Give x.", "3/8", "3/8", "math", "t"))}
    assert frac["numeric.fraction_as_decimal"].response == "The answer is 0.375." and frac["numeric.fraction_as_decimal"].label
    mc = Base("b3", "Pick one:\n(A) red\n(B) blue\n(C) green", "B", "B", "choice", "t")
    mcv = {e.meta["variant"]: e for e in variants(mc)}
    assert mcv["choice.option_text"].response == "The answer is blue." and mcv["choice.option_text"].label
    assert not mcv["choice.wrong_letter"].label
    txt = {e.meta["variant"]: e for e in variants(Base("b4", "Capital of Italy?", "Rome", "Rome", "qa", "t"), "Milan")}
    assert txt["text.lowercase"].label and not txt["text.different_entity"].label


def test_seed_set_and_diagnostics_deterministic() -> None:
    seeds = load_seed_examples()
    assert len(seeds) >= 150
    assert {"math", "units", "choice", "open_qa"} <= {e.domain for e in seeds}
    a = generate_diagnostics(seeds, 300, seed=1)
    b = generate_diagnostics(load_seed_examples(), 300, seed=1)
    assert [e.id for e in a] == [e.id for e in b] and len(a) == 300
    kinds = Counter(e.meta["variant"].split(".")[0] for e in a)
    assert set(kinds) == {"numeric", "text", "choice", "invalid"}
    assert len({e.id for e in a}) == len(a)


def test_config_errors(tmp_path: Path) -> None:
    with pytest.raises(ValueError, match="unknown keys"):
        PoolConfig.from_dict({"sorces": []})
    with pytest.raises(ValueError, match="unknown evaluation set"):
        PoolConfig.from_dict({"eval_sets": ["mmlu"]})
    with pytest.raises(ValueError, match="sum to 1"):
        PoolConfig.from_dict({"split": {"construction": 0.9, "holdout": 0.2}})
    cfg = PoolConfig.from_yaml(REPO / "configs" / "pool.yaml")
    assert cfg.target_size == 6250 and len(cfg.sources) == 3 and cfg.eval_sets


def test_builtin_seed_pool_without_shared(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.setenv("AUTOVERIFIER_SHARED", str(tmp_path / "absent"))
    cfg = PoolConfig.from_yaml(REPO / "configs" / "pool.yaml")
    cfg.target_size = 800
    res = build_pool(cfg)
    assert res.report["data"] == "builtin_seed" and len(res.report["missing_sources"]) == 3
    assert "eval_sets_missing" in res.report
    assert len(res) == 800 and {e.source for e in res} == {"seed", "constructed"}
    again = build_pool(cfg)
    assert [e.id for e in again] == [e.id for e in res]


def test_demo_pool(shared_dir: Path, tmp_path: Path) -> None:
    with Store(tmp_path / "pool.duckdb") as st:
        res = build_pool(REPO / "configs" / "pool.yaml", store=st)
        assert st.count("examples") == len(res)
    rep = res.report
    assert rep["data"] == "sources" and len(res) == 6250
    assert 4800 <= len(res.split("construction")) <= 5200  # the ~5,000-example construction pool
    assert len({e.id for e in res}) == len(res)
    assert set(rep["pool"]["by_source"]) == {"evouna_nq", "evouna_tq", "gsm8k_solutions", "constructed"}
    assert rep["pool"]["by_source"]["constructed"] == 800
    sides = {name: {normalize_text(e.question) for e in res.split(name)} for name in ("construction", "holdout")}
    assert not sides["construction"] & sides["holdout"] and len(res.split("holdout")) > 500
    assert set(rep["decontamination"]["sets"]) == {"verifybench", "verifybench_hard", "sci_verifybench"}
    assert rep["seconds"] < 60


def test_pool_deterministic_small(shared_dir: Path) -> None:
    cfg = PoolConfig.from_yaml(REPO / "configs" / "pool.yaml")
    cfg.target_size, cfg.diagnostics, cfg.eval_sets = 1200, 200, []
    a, b = build_pool(cfg), build_pool(cfg)
    assert [e.id for e in a] == [e.id for e in b] and len(a) == 1200
    cfg.seed += 1
    assert {e.id for e in build_pool(cfg)} != {e.id for e in a}
