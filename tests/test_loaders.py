"""Loaders: each official format on small fixtures, error reporting, and the real shared files."""

from __future__ import annotations

import json
import warnings
from collections import Counter
from pathlib import Path

import pytest

from tasks.data.loaders import LoadError, LoadWarning, detect_format, infer_domain, load, load_benchmark

FIX = Path(__file__).parent / "fixtures" / "formats"


def _load_quiet(path: Path, **kw):
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        res = load(path, **kw)
    return res, [w for w in caught if issubclass(w.category, LoadWarning)]


@pytest.mark.parametrize(
    ("name", "fmt"),
    [
        ("autoverifier.jsonl", "autoverifier"),
        ("verifybench_official.jsonl", "verifybench"),
        ("reformatted.jsonl", "reformatted"),
        ("sci_verifybench_official.jsonl", "sci_verifybench"),
        ("verifierbench_official.jsonl", "verifierbench"),
        ("webinstruct_questions.jsonl", "webinstruct"),
        ("evouna_mini.json", "evouna"),
        ("gsm8k_solutions.jsonl", "gsm8k_solutions"),
    ],
)
def test_detect_format(name: str, fmt: str) -> None:
    assert detect_format(FIX / name) == fmt


def test_autoverifier_jsonl_reports_bad_lines() -> None:
    res, warned = _load_quiet(FIX / "autoverifier.jsonl")
    assert [e.question for e in res.examples] == ["What is 6 times 7?", "Capital of Peru?"]
    assert res.examples[0].meta["note"] == "a" and res.examples[0].domain == "math"
    errs = [str(e) for e in res.report.errors]
    assert len(errs) == 2
    assert "autoverifier.jsonl:line 3: invalid JSON" in errs[0]
    assert "line 4" in errs[1] and "'label' must be a boolean" in errs[1]
    assert len(warned) == 2 and "line 3" in str(warned[0].message)
    assert res.report.records == 4 and res.report.loaded == 2


def test_strict_raises_with_file_and_line() -> None:
    with pytest.raises(LoadError, match=r"autoverifier\.jsonl:line 3"):
        load(FIX / "autoverifier.jsonl", strict=True)


def test_parquet_round_trip(tmp_path: Path) -> None:
    import pyarrow as pa
    import pyarrow.parquet as pq

    rows = [json.loads(x) for x in (FIX / "autoverifier.jsonl").read_text().splitlines()[:2]]
    for r in rows:
        r["meta"] = json.dumps(r.get("meta", {}))
        r.setdefault("domain", "")
    pq.write_table(pa.Table.from_pylist(rows), tmp_path / "own.parquet")
    res = load(tmp_path / "own.parquet")
    assert res.report.format == "autoverifier" and res.report.loaded == 2 and not res.report.errors
    assert res.examples[0].meta["note"] == "a" and res.examples[0].meta["origin"] == "own.parquet:row 0"


def test_verifybench_official() -> None:
    res, _ = _load_quiet(FIX / "verifybench_official.jsonl")
    assert [e.label for e in res.examples] == [True, False]
    e = res.examples[0]
    assert (e.reference, e.response, e.domain, e.source) == ("9", "3^2 = 9", "math", "verifybench")
    assert e.meta["answer_type"] == "Numeric Values" and e.meta["question_id"] == 1
    assert len(res.report.errors) == 1 and "line 3" in str(res.report.errors[0])
    assert "gold_correct" in str(res.report.errors[0])


def test_reformatted_labels_and_bad_label() -> None:
    res, _ = _load_quiet(FIX / "reformatted.jsonl", source="verifybench")
    assert [e.label for e in res.examples] == [True, False]
    assert res.examples[1].domain == "physics" and res.examples[0].domain == "math"
    assert "line 2" in str(res.report.errors[0]) and "gold_ans" in str(res.report.errors[0])


def test_sci_official() -> None:
    res, _ = _load_quiet(FIX / "sci_verifybench_official.jsonl")
    assert [(e.response, e.label, e.domain) for e in res.examples] == [
        ("newton", True, "physics"),
        ("There are 23.", False, "biology"),  # empty extracted answer: the raw response is judged
    ]
    assert "line 2" in str(res.report.errors[0]) and "boolean" in str(res.report.errors[0])


def test_verifierbench_abc() -> None:
    res, _ = _load_quiet(FIX / "verifierbench_official.jsonl")
    assert [(e.label, e.meta["gold_judgment"]) for e in res.examples] == [(True, "A"), (False, "B"), (False, "C")]
    assert [e.domain for e in res.examples] == ["math", "knowledge", "science"]
    assert "line 4" in str(res.report.errors[0]) and "'D'" in str(res.report.errors[0])


def test_webinstruct_join() -> None:
    with pytest.raises(LoadError, match="responses"):
        load(FIX / "webinstruct_questions.jsonl")
    res, _ = _load_quiet(FIX / "webinstruct_questions.jsonl", responses=FIX / "webinstruct_responses.jsonl")
    assert [(e.reference, e.label) for e in res.examples] == [("cos(x)", True), ("18.015", False), ("cos(x)", False)]
    assert res.examples[1].domain == "chemistry" and res.examples[1].meta["category"] == "Chemistry"
    assert "webinstruct_responses.jsonl:line 4" in str(res.report.errors[0])


def test_evouna_fixture_counts() -> None:
    res, _ = _load_quiet(FIX / "evouna_mini.json")
    assert res.report.format == "evouna" and res.examples[0].source == "evouna_evouna_mini"
    # item 0: 5 judged (one with a missing answer -> empty response); item 2: 3 judged, 2 without judgment
    assert len(res.examples) == 8
    missing = [e for e in res.examples if e.meta.get("answer_missing")]
    assert len(missing) == 1 and missing[0].response == "" and missing[0].label is False
    assert res.report.skipped["no human judgment"] == 2
    assert res.report.skipped["improper item (judged answers)"] == 3
    assert "index 3" in str(res.report.errors[0]) and "judgment" in str(res.report.errors[0])
    oslo = [e for e in res.examples if "norway" in e.question][0]
    assert oslo.meta["reference_aliases"] == ["Oslo", "Christiania"] and oslo.domain == "open_qa"


def test_gsm8k_fixture() -> None:
    res, _ = _load_quiet(FIX / "gsm8k_solutions.jsonl")
    assert len(res.examples) == 4
    assert {e.meta["final_answer"] for e in res.examples} == {"12", "10"}
    assert res.examples[0].reference.endswith("A: 12")  # the whole worked solution is the reference
    assert "line 3" in str(res.report.errors[0]) and "final answer" in str(res.report.errors[0])


def test_ids_are_deterministic_and_unique() -> None:
    a, _ = _load_quiet(FIX / "evouna_mini.json")
    b, _ = _load_quiet(FIX / "evouna_mini.json")
    assert [e.id for e in a.examples] == [e.id for e in b.examples]
    assert len({e.id for e in a.examples}) == len(a.examples)
    assert a.report.duplicates >= 1  # "Oslo" answered by two systems: same triple, derived id


def test_unknown_format_and_missing_file(tmp_path: Path) -> None:
    with pytest.raises(FileNotFoundError):
        load(tmp_path / "nope.jsonl")
    f = tmp_path / "odd.jsonl"
    f.write_text('{"foo": 1}\n')
    with pytest.raises(LoadError, match="cannot detect"):
        load(f)
    with pytest.raises(ValueError, match="unknown format"):
        load(f, format="csv")


def test_infer_domain_heuristics() -> None:
    assert infer_domain(domain="General Reasoning") == "general_reasoning"
    assert infer_domain(source="chembench") == "chemistry"
    assert infer_domain(answer_type="Expressions") == "math"
    assert infer_domain(reference="\\frac{1}{2}") == "math"
    assert infer_domain(reference="Paris") == "general"


def test_load_benchmark_official_root(tmp_path: Path) -> None:
    (tmp_path / "VerifierBench.jsonl").write_text((FIX / "verifierbench_official.jsonl").read_text())
    with pytest.warns(LoadWarning):
        got = load_benchmark("verifierbench", root=tmp_path)
    assert len(got) == 3 and all(e.split == "evaluation" and e.meta["benchmark"] == "verifierbench" for e in got)
    with pytest.raises(FileNotFoundError, match="verifybench_hard"):
        load_benchmark("verifybench_hard", root=tmp_path)
    with pytest.raises(ValueError):
        load_benchmark("mmlu")


# ------------------------------------------------------------------ real shared files


def test_gsm8k_real_counts(shared_dir: Path) -> None:
    res = load(shared_dir / "construction" / "gsm8k_model_solutions" / "example_model_solutions.jsonl")
    labels = Counter(e.label for e in res.examples)
    assert len(res.examples) == 5276 and labels[True] == 2001 and labels[False] == 3275
    assert not res.report.errors
    assert all(e.meta["final_answer"] for e in res.examples)


@pytest.mark.parametrize(("name", "n_true", "n_false"), [("NQ", 11058, 4041), ("TQ", 8221, 1469)])
def test_evouna_real_counts(shared_dir: Path, name: str, n_true: int, n_false: int) -> None:
    res = load(shared_dir / "construction" / "evouna" / f"{name}.json")
    labels = Counter(e.label for e in res.examples)
    assert (labels[True], labels[False]) == (n_true, n_false)
    assert not res.report.errors and res.report.skipped["improper item (judged answers)"] > 0


def test_benchmark_samples(shared_dir: Path) -> None:
    sizes = {"verifybench": (148, 69), "verifybench_hard": (108, 29), "sci_verifybench": (853, 470)}
    for name, (n, n_correct) in sizes.items():
        got = load_benchmark(name, root=shared_dir / "benchmarks")
        assert len(got) == n and sum(e.label for e in got) == n_correct
        assert len({e.id for e in got}) == n
        assert all(e.split == "evaluation" and e.source == name for e in got)
        again = load_benchmark(name, root=shared_dir / "benchmarks")
        assert [e.id for e in got] == [e.id for e in again]
