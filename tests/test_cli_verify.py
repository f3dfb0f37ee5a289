"""`autoverifier verify` and `verify-one` through typer's CliRunner."""

from __future__ import annotations

import json

import pytest
import typer
from typer.testing import CliRunner

from autoverifier import cmd_verify
from verifier_runtime.integrations.rewards import clear_verifier_cache

FACTORY = ["--factory", "tests.fake_verifier:make_fake_verifier"]


@pytest.fixture
def app():
    a = typer.Typer()
    cmd_verify.register(a)
    clear_verifier_cache()
    return a


def _runner() -> CliRunner:
    return CliRunner()


def _write(path, lines):
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")


def test_verify_jsonl_passes_fields_and_prints_summary(app, tmp_path):
    rows = [{"id": i, "q": f"q{i}", "gold": str(i), "output": f"answer {i if i != 2 else 9}", "extra": [i]}
            for i in range(5)]
    _write(tmp_path / "in.jsonl", [json.dumps(r) for r in rows])
    res = _runner().invoke(app, ["verify", "--input", str(tmp_path / "in.jsonl"), "--output",
                                 str(tmp_path / "out.jsonl"), "--question-field", "q", "--reference-field", "gold",
                                 "--response-field", "output", "--chunk-size", "2", *FACTORY])
    assert res.exit_code == 0, res.stderr
    out = [json.loads(x) for x in (tmp_path / "out.jsonl").read_text().splitlines()]
    assert [{k: o[k] for k in rows[0]} for o in out] == rows
    assert [o["correct"] for o in out] == [True, True, False, True, True]
    assert all(o["decided_by"] == "match.last_token" and o["fallback_called"] is False for o in out)
    assert "match.last_token" in res.stderr and "rows 5" in res.stderr and "correct 4" in res.stderr
    assert res.stdout == ""  # progress and summary go to stderr


def test_verify_stops_on_malformed_line_and_keeps_earlier_rows(app, tmp_path):
    good = [json.dumps({"reference": str(i), "response": str(i)}) for i in range(4)]
    _write(tmp_path / "in.jsonl", good[:3] + ["{oops"] + good[3:])
    res = _runner().invoke(app, ["verify", "-i", str(tmp_path / "in.jsonl"), "-o", str(tmp_path / "out.jsonl"),
                                 *FACTORY])
    assert res.exit_code == 1
    assert "line 4" in res.stderr and "--skip-bad" in res.stderr and "out.jsonl.partial" in res.stderr
    assert len((tmp_path / "out.jsonl.partial").read_text().splitlines()) == 3
    assert not (tmp_path / "out.jsonl").exists()

    res = _runner().invoke(app, ["verify", "-i", str(tmp_path / "in.jsonl"), "-o", str(tmp_path / "out.jsonl"),
                                 "--skip-bad", *FACTORY])
    assert res.exit_code == 0 and "skipped 1 malformed line(s)" in res.stderr and "4" in res.stderr
    assert len((tmp_path / "out.jsonl").read_text().splitlines()) == 4


def test_verify_usage_errors(app, tmp_path):
    _write(tmp_path / "in.jsonl", [json.dumps({"reference": "1", "response": "1"})])
    res = _runner().invoke(app, ["verify", "-i", str(tmp_path / "in.jsonl"), "-o", str(tmp_path / "out.txt"),
                                 *FACTORY])
    assert res.exit_code == 1 and "cannot tell the format" in res.stderr
    res = _runner().invoke(app, ["verify", "-i", str(tmp_path / "in.jsonl"), "-o", str(tmp_path / "o.jsonl"),
                                 "--fallback", "gpt"])
    assert res.exit_code == 2 and "none, offline" in res.stderr
    res = _runner().invoke(app, ["verify", "-i", str(tmp_path / "in.jsonl"), "-o", str(tmp_path / "o.jsonl"),
                                 "--artifact", str(tmp_path / "missing-release")])
    assert res.exit_code == 1 and "error" in res.stderr  # a bad artifact is one clear line, not a traceback


def test_verify_one_text_and_json(app):
    res = _runner().invoke(app, ["verify-one", "What is 2+2?", "4", "It is 4", *FACTORY])
    assert res.exit_code == 0 and res.stdout.startswith("CORRECT  decided by match.last_token: equal")
    res = _runner().invoke(app, ["verify-one", "", "5", "", "--json", *FACTORY])
    d = json.loads(res.stdout)
    assert d["correct"] is False and d["reason"] == "invalid:no_answer" and d["trace"]
    res = _runner().invoke(app, ["verify-one", "q", "?5", "5", "--fallback", "none", *FACTORY])
    assert res.stdout.startswith("ABSTAIN")


def test_wrong_field_names_get_a_hint_naming_the_options(app, tmp_path):
    rows = [{"prompt": "What is 2+2?", "answer": "4", "completion": "It is 4"} for _ in range(3)]
    _write(tmp_path / "in.jsonl", [json.dumps(r) for r in rows])
    res = _runner().invoke(app, ["verify", "-i", str(tmp_path / "in.jsonl"), "-o", str(tmp_path / "out.jsonl"),
                                 *FACTORY])
    assert res.exit_code == 1
    err = " ".join(res.stderr.split())
    assert "--question-field/--reference-field/--response-field" in err
    assert "--reference-field answer --response-field completion" in err and "--question-field prompt" in err


def test_skip_bad_when_every_line_is_bad_is_an_error(app, tmp_path):
    _write(tmp_path / "in.jsonl", ['{"q": 1}', "not json", '{"answer": "4"}'])
    out = tmp_path / "out.jsonl"
    res = _runner().invoke(app, ["verify", "-i", str(tmp_path / "in.jsonl"), "-o", str(out), "--skip-bad",
                                 *FACTORY])
    assert res.exit_code == 1, res.stderr
    err = " ".join(res.stderr.split())  # the console wraps long lines (a long temporary path) at spaces
    assert "every line" in err and "3 skipped" in err
    assert not out.exists()  # no empty output that reads as success


def test_utf8_error_column_counts_characters(app, tmp_path):
    line = '{"reference": "é", "response": "ü' .encode() + b"\xff" + b'"}'
    (tmp_path / "in.jsonl").write_bytes(line + b"\n")
    res = _runner().invoke(app, ["verify", "-i", str(tmp_path / "in.jsonl"), "-o", str(tmp_path / "o.jsonl"),
                                 *FACTORY])
    assert res.exit_code == 1
    col = len('{"reference": "é", "response": "ü') + 1  # in characters, not bytes
    assert f"at column {col}," in " ".join(res.stderr.split())


def test_summary_table_is_tab_separated_off_a_terminal(app, tmp_path):
    _write(tmp_path / "in.jsonl", [json.dumps({"reference": str(i), "response": str(i)}) for i in range(3)])
    res = _runner().invoke(app, ["verify", "-i", str(tmp_path / "in.jsonl"), "-o", str(tmp_path / "o.jsonl"),
                                 *FACTORY])
    assert res.exit_code == 0, res.stderr
    assert "decided_by\trows\n" in res.stderr and "match.last_token\t3\n" in res.stderr


def test_a_known_input_size_gives_an_eta():
    import tempfile
    from pathlib import Path

    with tempfile.TemporaryDirectory() as d:
        p = Path(d) / "x.jsonl"
        p.write_text('{"a": 1}\n\n{"a": 2}\n')
        assert cmd_verify.count_jsonl_lines(p) == 2
        assert cmd_verify.count_jsonl_lines(Path(d) / "x.parquet") is None
