"""Math and science sources: each loader on hand-made files in the source's format (good
records, a bad record reported with file and line), ZeroEval's replies, MMLU-Pro's stated
answers, one question key across sources, carriers located and written; the real files."""

from __future__ import annotations

import json
import warnings
from collections import Counter
from pathlib import Path

import pytest

from tasks.data.carriers import locate, truncate, write
from tasks.data.loaders import LoadError, detect_format, load, mmlu_stated_letter, read_reply
from tasks.data.schema import question_key

FIX = Path(__file__).parent / "fixtures" / "sources"


def _load(path: Path, **kw):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return load(path, **kw)


@pytest.mark.parametrize(("name", "fmt"), [("math/test.jsonl", "math"), ("olympiadbench.jsonl", "olympiadbench"),
                                           ("scibench/atkins.json", "scibench"), ("theoremqa.json", "theoremqa"),
                                           ("zeroeval/model-a.json", "zeroeval"),
                                           ("mmlu_pro/Model-X_5shots.json", "mmlu_pro")])
def test_detect_format(name: str, fmt: str) -> None:
    assert detect_format(FIX / name) == fmt


def test_math_joined_with_answer_types() -> None:
    res = _load(FIX / "math" / "test.jsonl")
    assert res.report.format == "math" and not res.examples
    refs = {q.reference: q for q in res.questions}
    assert set(refs) == {"9", "2, 3", "\\frac{3}{8}", "5\\sqrt{2}"}
    assert refs["9"].answer_object == "number" and refs["9"].meta["human_type"] == "Real"
    assert refs["2, 3"].answer_object == "set"  # the person's label; the annotation's list joined
    assert refs["5\\sqrt{2}"].meta["answer_object_from"] == "parsed"  # no annotation for it
    errs = [str(e) for e in res.report.errors]
    assert any("test.jsonl:line 3: invalid JSON" in e for e in errs)
    assert any("test.jsonl:line 4:" in e and "boxed" in e for e in errs)
    assert any("answer_types.json:index 2:" in e and "human_type" in e for e in errs)
    assert res.report.skipped["no answer annotation (object read from the answer)"] == 1
    # the worked solutions are response texts whose own answer is the annotated one
    sols = {r.answer for r in res.responses}
    assert sols == set(refs) and all(r.meta["kind"] == "solution" for r in res.responses)
    with pytest.raises(LoadError, match=r"answer_types\.json:index 2"):  # strict: the first bad record
        load(FIX / "math" / "test.jsonl", strict=True)


def test_math_without_annotations(tmp_path: Path) -> None:
    (tmp_path / "test.jsonl").write_text((FIX / "math" / "test.jsonl").read_text())
    res = _load(tmp_path / "test.jsonl")
    assert len(res.questions) == 4 and all(q.meta["answer_object_from"] == "parsed" for q in res.questions)
    assert "objects read from the answers" in res.report.notes[0]
    with pytest.raises(FileNotFoundError):
        load(tmp_path / "test.jsonl", annotations=tmp_path / "none.json")


def test_olympiadbench() -> None:
    res = _load(FIX / "olympiadbench.jsonl")
    got = {q.reference: q for q in res.questions}
    assert got["\\frac{41}{12} km"].answer_object == "quantity" and got["\\frac{41}{12} km"].answer == "\\frac{41}{12}"
    pairs = got["(1,2), (2,1)"]
    assert pairs.answer_object == "set" and pairs.question.startswith("Let $n$ be a positive integer.")
    pct = got["4.2\\%"]
    assert pct.answer_object == "number" and pct.meta["stated_tolerance"] == 0.1
    assert "olympiadbench.jsonl:line 3:" in str(res.report.errors[0]) and "final_answer" in str(res.report.errors[0])


def test_scibench_folder() -> None:
    res = _load(FIX / "scibench")
    got = {q.reference: q for q in res.questions}
    assert set(got) == {"50.7 \\mathrm{atm}", "3.52 \\times 10^{-19} \\mathrm{ J}", "0.4772"}
    assert got["50.7 \\mathrm{atm}"].answer_object == "quantity" and got["50.7 \\mathrm{atm}"].domain == "chemistry"
    assert got["0.4772"].answer_object == "number" and got["0.4772"].domain == "math"
    assert res.report.records == 4 and "atkins.json:index 2:" in str(res.report.errors[0])


def test_theoremqa() -> None:
    res = _load(FIX / "theoremqa.json")
    got = {q.reference: q.answer_object for q in res.questions}
    assert got == {"1.0": "number", "12": "number", "True": "bool", "[2, 3]": "tuple", "(b)": "choice"}
    assert "theoremqa.json:index 5:" in str(res.report.errors[0]) and "bool" in str(res.report.errors[0])


def test_zeroeval_replies() -> None:
    res = _load(FIX / "zeroeval")
    assert res.report.counts == {"reply read: json": 2, "reply read: lenient": 1, "reply read: raw": 1}
    assert res.report.skipped["empty reply"] == 1
    assert "model-a.json:index 3:" in str(res.report.errors[0]) and "output" in str(res.report.errors[0])
    by = {(r.model, r.answer) for r in res.responses}
    assert ("model-a", "\\frac{3}{8}") in by  # \frac in a JSON string is LaTeX, not a form feed
    raw = next(r for r in res.responses if r.meta["reply_parse"] == "raw")
    assert raw.text.startswith("I think it is forty-two") and raw.answer == ""  # kept as written
    good = next(r for r in res.responses if r.answer == "9")
    assert good.text.endswith("Answer: 9") and "raw_reply" in good.meta


def test_read_reply_repairs() -> None:
    assert read_reply('```json\n{"reasoning": "r", "answer": "7"}\n```') == ({"reasoning": "r", "answer": "7"}, "json")
    fields, how = read_reply('```json\n{"reasoning": "We get \\frac{1}{2} and x \\neq 0.\nSo", "answer": "\\frac{1}{2}"}')
    assert how == "lenient" and fields["answer"] == "\\frac{1}{2}" and "\\neq" in fields["reasoning"]
    fields, how = read_reply('{"reasoning": "He said "yes" loudly", "answer": "3"}')  # bare quotes inside
    assert how == "lenient" and fields == {"reasoning": 'He said "yes" loudly', "answer": "3"}
    assert read_reply("no JSON here") == (None, "raw")


def test_mmlu_pro_stated_answers() -> None:
    res = _load(FIX / "mmlu_pro")
    assert [(e.label, e.meta["pred"]) for e in res.examples] == [(True, "B"), (False, "C")]
    assert all(e.label_provenance == "official_auto" and e.reference == "B" for e in res.examples)
    assert res.examples[0].question.endswith("Options:\nA. 1 m/s\nB. 2 m/s\nC. 3 m/s\nD. 4 m/s")
    # no "answer is (X)" and "answer is (B) and (D)": response texts only, not labelled
    assert res.report.skipped["no single stated 'answer is (X)' (response text only)"] == 2
    assert len(res.responses) == 4
    assert "index 4" in str(res.report.errors[0]) and "answer_index" in str(res.report.errors[0])
    kinds = Counter((q.answer_object, q.meta.get("form", "choice")) for q in res.questions)
    assert kinds == {("choice", "choice"): 3, ("quantity", "open"): 1}  # "2 m/s" as an open question
    keys = {q.question_key for q in res.questions if q.meta["question_id"] == 1}
    assert keys == {question_key("A ball rolls 6 m in 3 s. What is its average speed?")}
    assert mmlu_stated_letter("so the answer is (C). Then the answer is (C).") == "C"
    assert mmlu_stated_letter("the answer is (A) ... wait, the answer is (C)") is None


def test_one_question_key_across_sources() -> None:
    math = _load(FIX / "math" / "test.jsonl")
    zero = _load(FIX / "zeroeval")
    q0 = next(q for q in math.questions if q.reference == "9")
    same = [r for r in zero.responses if r.question_key == q0.question_key]
    assert {r.model for r in same} == {"model-a", "model-b"}
    assert question_key("  HOW many positive divisors does $36$ have? ") == q0.question_key


def test_carriers_located_and_written() -> None:
    zero = _load(FIX / "zeroeval")
    r = next(r for r in zero.responses if r.answer == "9")
    c = locate(r)
    assert c is not None and c.method == "answer_colon" and c.text[c.start:c.end] == "9"
    assert write(c, "9.0").endswith("Answer: 9.0")
    out = write(c, "9", after="Actually no, it's 8.")
    assert out.endswith("Answer: 9. Actually no, it's 8.")
    wrong = next(r for r in zero.responses if r.answer == "8")
    wrong.answer = "7"  # the source says 7, the text says 8: not located
    assert locate(wrong) is None
    math = _load(FIX / "math" / "test.jsonl")
    sol = next(r for r in math.responses if r.answer == "\\frac{3}{8}")
    c = locate(sol)
    assert c.box is not None and c.text[c.start:c.end] == "\\frac{3}{8}"
    assert "\\boxed{0.375}" in write(c, "0.375")
    both = write(c, "", boxes=["\\frac{3}{8}", "\\frac{5}{8}"])
    assert "\\boxed{\\frac{3}{8}} \\text{ or } \\boxed{\\frac{5}{8}}" in both  # inside $..$: the "or" as text
    mmlu = _load(FIX / "mmlu_pro")
    c = locate(next(r for r in mmlu.responses if r.answer == "B" and "6 / 3" in r.text))
    assert write(c, "not $2 m/s$").endswith("The answer is not $2 m/s$.")
    twice = r.__class__(**{**{k: getattr(r, k) for k in r.__slots__}, "text": "We count 9.\nAnswer: 9\nAnswer: 9"})
    assert locate(twice) is None  # a new last line would leave a second, different final answer above it
    # a "final answer is" sentence followed by the rendered "Answer: <field>" line: the line goes with the
    # old answer (a variant written into the sentence would otherwise leave two final answers)
    said = r.__class__(**{**{k: getattr(r, k) for k in r.__slots__},
                          "text": "We count 9.\n\nSo our final answer is $9$.\n\nAnswer: 9"})
    c = locate(said)
    assert c is not None and c.method == "final_answer" and "Answer:" not in c.text
    assert write(c, "10").endswith("final answer is $10$.")
    other = r.__class__(**{**{k: getattr(r, k) for k in r.__slots__},
                           "text": "We count 9.\n\nSo our final answer is $9$.\n\nAnswer: 86"})
    assert locate(other) is None  # two final answers with different values: no clean carrier
    long = sol.__class__(**{**{k: getattr(sol, k) for k in sol.__slots__}, "text": (
        "First we count every marble in the jar one by one, carefully listing the colours of all of them. "
        "Then we divide the number of red marbles by the total number of marbles in the jar.\n"
        "So the probability is $\\boxed{\\frac{3}{8}}$.")})
    cut = truncate(locate(long), 0.6)
    assert cut is not None and "boxed" not in cut and cut[-1].isalpha()


# ------------------------------------------------------------------ real shared files


def test_real_sources(shared_dir: Path) -> None:
    c = shared_dir / "construction"
    m = _load(c / "math" / "test.jsonl")
    assert len(m.questions) == 5000 and not m.report.errors
    assert Counter(q.meta.get("human_type") for q in m.questions)["Real"] == 4414
    assert len(_load(c / "olympiadbench" / "test.jsonl").questions) == 675
    assert len(_load(c / "scibench").questions) == 580
    t = _load(c / "theoremqa" / "theoremqa_test.json")
    assert len(t.questions) == 800 and Counter(q.answer_object for q in t.questions)["bool"] == 115
    z = _load(c / "zeroeval_math_l5")
    assert z.report.records == 8652 and len(z.responses) + z.report.skipped["empty reply"] == 8652
    assert z.report.counts["reply read: raw"] < 0.1 * z.report.records
    keys = {q.question_key for q in m.questions}
    assert {r.question_key for r in z.responses} <= keys  # ZeroEval's problems are MATH problems


def test_real_mmlu_pro(shared_dir: Path) -> None:
    res = _load(shared_dir / "construction" / "mmlu_pro_outputs")
    assert res.report.records == 3 * 5878
    assert len(res.report.errors) == 1 and "answer_index" in str(res.report.errors[0])  # one real bad record
    # MMLU-Pro's regex found "answer is (X)" in 5025 / 4730 / 4125 responses; a single stated letter
    # that is also MMLU-Pro's pred is fewer
    assert 12_000 < len(res.examples) < 5025 + 4730 + 4125
    assert all(e.label_provenance == "official_auto" for e in res.examples)
    assert json.dumps(res.report.to_dict())
