"""Streaming batch verification: formats, pass-through, bad records, the Dask backend."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from verifier_runtime.batch import BadRecord, BatchError, Fields, VerifierSpec, run_batch
from verifier_runtime.integrations.rewards import clear_verifier_cache

SPEC = VerifierSpec.make("rulebank/releases/r-test", "offline", factory="tests.fake_verifier:make_fake_verifier")


@pytest.fixture(autouse=True)
def _fresh_cache():
    clear_verifier_cache()
    yield
    clear_verifier_cache()


def _rows(n: int) -> list[dict]:
    out = []
    for i in range(n):
        ref = "?7" if i % 5 == 4 else str(i)
        resp = "" if i % 7 == 6 else f"the answer is {i if i % 3 else i + 1}"
        out.append({"id": i, "question": f"q{i}", "reference": ref, "response": resp, "meta": {"k": [i, i + 1], "tag": "x"}})
    return out


def _write_jsonl(path: Path, rows: list[dict]) -> None:
    path.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")


def _read_jsonl(path: Path) -> list[dict]:
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]


def _expected(row: dict) -> bool:
    ref = row["reference"].lstrip("?")
    resp = row["response"].split()
    return bool(resp) and resp[-1] == ref


def test_jsonl_roundtrip_passes_fields_through(tmp_path):
    rows = _rows(23)
    _write_jsonl(tmp_path / "in.jsonl", rows)
    summary = run_batch(tmp_path / "in.jsonl", tmp_path / "out.jsonl", spec=SPEC, chunk_size=5)
    out = _read_jsonl(tmp_path / "out.jsonl")
    assert [o["id"] for o in out] == list(range(23))
    for src, got in zip(rows, out, strict=True):
        assert {k: got[k] for k in src} == src  # every input field unchanged
        assert got["correct"] is _expected(src)
        assert set(got) == set(src) | {"correct", "decided_by", "reason", "fallback_called"}
    assert summary.rows == 23 and summary.correct + summary.incorrect == 23
    assert summary.by_decider["fallback:offline"] == sum(1 for r in rows if r["reference"].startswith("?"))
    assert summary.fallback_calls == summary.by_decider["fallback:offline"]


def test_custom_field_names(tmp_path):
    _write_jsonl(tmp_path / "in.jsonl", [{"problem": "p", "gold": "3", "output": "x 3"}])
    run_batch(tmp_path / "in.jsonl", tmp_path / "out.jsonl", spec=SPEC,
              fields=Fields(question="problem", reference="gold", response="output"))
    assert _read_jsonl(tmp_path / "out.jsonl")[0]["correct"] is True


def test_malformed_line_stops_with_line_number_and_keeps_earlier_rows(tmp_path):
    rows = _rows(12)
    lines = [json.dumps(r) for r in rows]
    lines.insert(8, '{"id": 99, "reference": "1", "response": ')  # line 9 is broken
    (tmp_path / "in.jsonl").write_text("\n".join(lines) + "\n", encoding="utf-8")
    with pytest.raises(BadRecord) as exc:
        run_batch(tmp_path / "in.jsonl", tmp_path / "out.jsonl", spec=SPEC, chunk_size=5)
    assert exc.value.line == 9 and "line 9" in str(exc.value) and "invalid JSON" in str(exc.value)
    assert exc.value.summary.rows == 8
    assert not (tmp_path / "out.jsonl").exists()  # only a successful run writes the output
    partial = tmp_path / "out.jsonl.partial"
    assert exc.value.summary.partial_output == str(partial)
    assert [o["id"] for o in _read_jsonl(partial)] == list(range(8))  # incl. the partial chunk


def test_skip_bad_continues_and_reports(tmp_path):
    rows = _rows(6)
    lines = [json.dumps(r) for r in rows]
    lines[2] = "[1, 2]"
    lines[4] = json.dumps({"question": "no reference", "response": "x"})
    (tmp_path / "in.jsonl").write_text("\n".join(lines) + "\n\n", encoding="utf-8")
    summary = run_batch(tmp_path / "in.jsonl", tmp_path / "out.jsonl", spec=SPEC, chunk_size=2, skip_bad=True)
    assert [b.line for b in summary.bad] == [3, 5]
    assert "expected a JSON object" in summary.bad[0].message and "reference" in summary.bad[1].message
    assert [o["id"] for o in _read_jsonl(tmp_path / "out.jsonl")] == [0, 1, 3, 5]


def test_parquet_roundtrip_in_record_batches(tmp_path):
    pa = pytest.importorskip("pyarrow")
    pq = pytest.importorskip("pyarrow.parquet")
    rows = _rows(17)
    pq.write_table(pa.Table.from_pylist(rows), tmp_path / "in.parquet")
    run_batch(tmp_path / "in.parquet", tmp_path / "out.parquet", spec=SPEC, chunk_size=4)
    f = pq.ParquetFile(tmp_path / "out.parquet")
    assert f.metadata.num_row_groups == 5  # one per chunk
    out = f.read().to_pylist()
    assert [o["meta"] for o in out] == [r["meta"] for r in rows]
    assert [o["correct"] for o in out] == [_expected(r) for r in rows]
    assert f.schema_arrow.field("id").type == pa.int64() and f.schema_arrow.field("correct").type == pa.bool_()


def test_jsonl_to_parquet_schema_rules(tmp_path):
    pq = pytest.importorskip("pyarrow.parquet")
    rows = [{"reference": "1", "response": "1", "note": None}, {"reference": "2", "response": "2", "note": None},
            {"reference": "3", "response": "3", "note": "late text"}]
    _write_jsonl(tmp_path / "in.jsonl", rows)
    run_batch(tmp_path / "in.jsonl", tmp_path / "out.parquet", spec=SPEC, chunk_size=2)
    assert [r["note"] for r in pq.read_table(tmp_path / "out.parquet").to_pylist()] == [None, None, "late text"]
    _write_jsonl(tmp_path / "in2.jsonl", rows[:2] + [{"reference": "3", "response": "3", "surprise": 1}])
    with pytest.raises(BatchError, match="surprise"):
        run_batch(tmp_path / "in2.jsonl", tmp_path / "out2.parquet", spec=SPEC, chunk_size=2)


def test_duckdb_table_in_and_out(tmp_path):
    duckdb = pytest.importorskip("duckdb")
    db = tmp_path / "data.duckdb"
    rows = _rows(11)
    with duckdb.connect(str(db)) as con:
        con.execute("CREATE TABLE t (id INTEGER, question VARCHAR, reference VARCHAR, response VARCHAR)")
        con.executemany("INSERT INTO t VALUES (?, ?, ?, ?)",
                        [(r["id"], r["question"], r["reference"], r["response"]) for r in rows])
    run_batch(db, db, spec=SPEC, table="t", chunk_size=3)  # same file: writes table t_verified
    run_batch(db, tmp_path / "out.jsonl", spec=SPEC, table="t", chunk_size=4)
    with duckdb.connect(str(db), read_only=True) as con:
        got = con.execute("SELECT id, correct, decided_by FROM t_verified ORDER BY id").fetchall()
    assert [g[1] for g in got] == [_expected(r) for r in rows]
    assert [o["correct"] for o in _read_jsonl(tmp_path / "out.jsonl")] == [_expected(r) for r in rows]
    with pytest.raises(BatchError, match="--table"):
        run_batch(db, tmp_path / "x.jsonl", spec=SPEC)
    with pytest.raises(BatchError, match="no column"):
        run_batch(db, tmp_path / "x.jsonl", spec=SPEC, table="t", fields=Fields(response="answer"))


def test_argument_errors(tmp_path):
    _write_jsonl(tmp_path / "in.jsonl", _rows(1))
    with pytest.raises(BatchError, match="format"):
        run_batch(tmp_path / "in.jsonl", tmp_path / "out.csv", spec=SPEC)
    with pytest.raises(BatchError, match="must not be the input"):
        run_batch(tmp_path / "in.jsonl", tmp_path / "in.jsonl", spec=SPEC)
    with pytest.raises(BatchError, match="does not exist"):
        run_batch(tmp_path / "nope.jsonl", tmp_path / "out.jsonl", spec=SPEC)


def test_dask_backend_matches_local_row_for_row(tmp_path):
    distributed = pytest.importorskip("dask.distributed")
    rows = _rows(57)
    _write_jsonl(tmp_path / "in.jsonl", rows)
    run_batch(tmp_path / "in.jsonl", tmp_path / "local.jsonl", spec=SPEC, chunk_size=4)
    with distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=False,
                                  dashboard_address=None) as cluster:
        summary = run_batch(tmp_path / "in.jsonl", tmp_path / "dask.jsonl", spec=SPEC, chunk_size=4,
                            backend="dask", address=cluster.scheduler_address)
    assert summary.rows == 57
    assert _read_jsonl(tmp_path / "dask.jsonl") == _read_jsonl(tmp_path / "local.jsonl")


# --- input that used to lose data ----------------------------------------------------------

def _mixed_input(path: Path, bad_line: bytes, at: int = 7, n: int = 10) -> list[dict]:
    rows = _rows(n)
    lines = [json.dumps(r).encode() for r in rows]
    lines.insert(at, bad_line)
    path.write_bytes(b"\n".join(lines) + b"\n")
    return rows


BAD_LINES = {
    "not utf-8": (b'{"reference": "1", "response": "caf\xe9 1"}', "not valid UTF-8"),
    "nested 100k deep": (b'{"reference": "1", "response": ' + b"[" * 100_000 + b"]" * 100_000 + b"}", "nested too deeply"),
    "lone surrogate": (b'{"reference": "1", "response": "x \\ud800 1"}', "lone surrogate"),
    "huge integer": (b'{"reference": ' + b"1" * 5000 + b', "response": "1"}', "invalid JSON"),
}


@pytest.mark.parametrize("name", list(BAD_LINES))
def test_every_bad_line_is_line_numbered_and_keeps_earlier_rows(tmp_path, name):
    bad, message = BAD_LINES[name]
    _mixed_input(tmp_path / "in.jsonl", bad)
    (tmp_path / "out.jsonl").write_text("previous run\n", encoding="utf-8")
    with pytest.raises(BadRecord) as exc:
        run_batch(tmp_path / "in.jsonl", tmp_path / "out.jsonl", spec=SPEC, chunk_size=3)
    assert exc.value.line == 8 and message in exc.value.message
    assert (tmp_path / "out.jsonl").read_text(encoding="utf-8") == "previous run\n"  # never truncated
    assert [o["id"] for o in _read_jsonl(tmp_path / "out.jsonl.partial")] == list(range(7))


@pytest.mark.parametrize("name", list(BAD_LINES))
def test_skip_bad_skips_every_kind_of_bad_line(tmp_path, name):
    bad, message = BAD_LINES[name]
    _mixed_input(tmp_path / "in.jsonl", bad)
    summary = run_batch(tmp_path / "in.jsonl", tmp_path / "out.jsonl", spec=SPEC, chunk_size=3, skip_bad=True)
    assert [b.line for b in summary.bad] == [8] and message in summary.bad[0].message
    assert [o["id"] for o in _read_jsonl(tmp_path / "out.jsonl")] == list(range(10))
    assert not (tmp_path / "out.jsonl.partial").exists() and summary.partial_output is None


def test_bad_first_line_leaves_an_existing_output_whole(tmp_path):
    _mixed_input(tmp_path / "in.jsonl", b"{broken", at=0)
    (tmp_path / "out.parquet").write_bytes(b"keep me")
    with pytest.raises(BadRecord) as exc:
        run_batch(tmp_path / "in.jsonl", tmp_path / "out.parquet", spec=SPEC)
    assert exc.value.line == 1 and exc.value.summary.partial_output is None
    assert (tmp_path / "out.parquet").read_bytes() == b"keep me"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["in.jsonl", "out.parquet"]  # no temporary left


def test_duckdb_output_replaced_only_on_success(tmp_path):
    duckdb = pytest.importorskip("duckdb")
    db = tmp_path / "out.duckdb"
    with duckdb.connect(str(db)) as con:
        con.execute("CREATE TABLE verified AS SELECT 42 AS answer")
    _mixed_input(tmp_path / "in.jsonl", b"[1, 2]", at=5)
    with pytest.raises(BadRecord):
        run_batch(tmp_path / "in.jsonl", db, spec=SPEC, chunk_size=2)
    with duckdb.connect(str(db), read_only=True) as con:
        assert con.execute("SELECT answer FROM verified").fetchall() == [(42,)]
        assert con.execute("SELECT count(*) FROM verified_partial").fetchone()[0] == 5
    _write_jsonl(tmp_path / "ok.jsonl", _rows(4))
    run_batch(tmp_path / "ok.jsonl", db, spec=SPEC)
    with duckdb.connect(str(db), read_only=True) as con:
        assert con.execute("SELECT count(*) FROM verified").fetchone()[0] == 4


def test_library_module_imports_no_heavy_stack():
    import subprocess
    import sys

    code = ("import sys, verifier_runtime.batch; heavy = [m for m in ('pyarrow', 'duckdb', 'polars', 'dask', "
            "'prefect', 'torch') if m in sys.modules]; print(heavy)")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "[]"
