"""The DuckDB store: tables, round-trips, upserts, filters, thread-safety, bad rows."""

from __future__ import annotations

import threading
from pathlib import Path

import polars as pl
import pytest

from tasks.data.schema import Example, stable_id
from tasks.data.store import SCHEMA_VERSION, TABLES, Store, StoreError


def _ex(i: int, split: str = "construction", source: str = "s1") -> Example:
    q = f"What is {i} + {i}?"
    return Example(stable_id("t", q), q, str(2 * i), f"It is {2 * i}.", i % 2 == 0, source, "math", split,
                   {"i": i, "tags": ["a", "b"]})


def test_tables_and_version(tmp_path: Path) -> None:
    with Store(tmp_path / "db" / "x.duckdb") as st:
        names = set(st.query("SELECT table_name FROM information_schema.tables")["table_name"].to_list())
        assert set(TABLES) | {"schema_version"} <= names
        assert st.schema_version == SCHEMA_VERSION
    # Reopen: the tables and version persist, read-only works.
    with Store(tmp_path / "db" / "x.duckdb", read_only=True) as st:
        assert st.count("examples") == 0


def test_examples_round_trip_and_upsert(tmp_path: Path) -> None:
    exs = [_ex(i) for i in range(6)] + [_ex(10, split="holdout", source="s2")]
    with Store(tmp_path / "a.duckdb") as st:
        assert st.upsert_examples(exs) == 7
        back = st.get_examples()
        assert sorted(back, key=lambda e: e.id) == sorted(exs, key=lambda e: e.id)
        changed = _ex(0)
        changed.label = not changed.label
        st.upsert_examples([changed])
        assert st.count("examples") == 7
        assert st.get_examples(ids=[changed.id])[0].label == changed.label
        df = st.examples_frame(split="holdout")
        assert isinstance(df, pl.DataFrame) and df["source"].to_list() == ["s2"]
        assert st.examples_frame(source="s1", split="construction").height == 6


def test_round_tables(tmp_path: Path) -> None:
    with Store(tmp_path / "b.duckdb") as st:
        st.add_replays([
            {"round": 1, "artifact_version": "v1", "example_id": "e1", "decision": "PASS", "correct": True,
             "decided_by": "m1", "reason": "eq", "fallback_called": False, "latency_ms": 0.4},
            {"round": 1, "artifact_version": "v1", "example_id": "e2", "decision": None, "correct": False,
             "decided_by": "fallback:offline", "reason": "", "fallback_called": True, "latency_ms": 2.0},
        ])
        assert st.replays(1).height == 2 and st.replays(2).height == 0
        st.add_residuals([{"round": 1, "example_id": "e2", "error_type": "fallback", "answer_object": "number",
                           "surface_form": "boxed", "domain": "math", "features": {"len": 3}}])
        assert st.residuals(1)[0]["features"] == {"len": 3}
        st.add_clusters(pl.DataFrame({"round": [1], "cluster_id": [0], "size": [5], "score": [0.5],
                                      "label_summary": ["x"], "example_ids": [["e2"]]}))
        st.upsert_cards([{"card_id": "c1", "round": 1, "cluster_id": 0, "status": "draft", "params": {"k": 1}}])
        st.upsert_cards([{"card_id": "c1", "round": 1, "cluster_id": 0, "status": "accepted", "params": {"k": 1}}])
        assert [c["status"] for c in st.cards(round=1)] == ["accepted"]
        st.add_validations([{"card_id": "c1", "round": 1, "stage": "support", "passed": True, "figures": {"n": 4}}])
        assert st.validations("c1")[0]["figures"] == {"n": 4}
        st.upsert_round({"round": 1, "artifact_version": "v1", "coverage": 0.5, "figures": {"a": 1}})
        st.upsert_round({"round": 1, "artifact_version": "v2", "coverage": 0.6})
        assert [(r["round"], r["artifact_version"]) for r in st.rounds()] == [(1, "v2")]
        st.add_eval_results([{"run_id": "r", "benchmark": "b", "verifier": "v", "example_id": "e1",
                              "correct_pred": True, "label": True, "decided_by": "m1", "fallback_called": False,
                              "meta": {}}])
        assert st.eval_results("r").height == 1


def test_bad_rows(tmp_path: Path) -> None:
    with Store(tmp_path / "c.duckdb") as st:
        with pytest.raises(StoreError, match="unknown columns"):
            st.add_replays([{"round": 1, "bogus": 1}])
        with pytest.raises(StoreError, match="decision"):
            st.add_replays([{"round": 1, "decision": "ABSTAIN"}])
        with pytest.raises(StoreError, match="wrong type"):
            st.add_replays([{"round": "first"}])
        with pytest.raises(StoreError, match="unknown table"):
            st.insert("nope", [])


def test_not_a_store(tmp_path: Path) -> None:
    import duckdb

    p = tmp_path / "other.duckdb"
    duckdb.connect(str(p)).close()
    with pytest.raises(StoreError, match="not an AutoVerifier store"):
        Store(p, read_only=True).connect()


def test_threads_share_one_store(tmp_path: Path) -> None:
    errors: list[BaseException] = []
    with Store(tmp_path / "d.duckdb") as st:

        def work(k: int) -> None:
            try:
                st.upsert_examples([_ex(100 * k + i) for i in range(20)])
                st.examples_frame()
            except BaseException as exc:  # pragma: no cover - reported below
                errors.append(exc)

        threads = [threading.Thread(target=work, args=(k,)) for k in range(4)]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
        assert not errors and st.count("examples") == 80
