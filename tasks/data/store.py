"""The construction pipeline's DuckDB store.

One embedded DuckDB file (default ``data/autoverifier.duckdb``) holds the examples and every
round's replays, residuals, clusters, cards, validations, round figures and evaluation
results. Reads come back as lists of dicts or polars frames.

Thread-safety: a :class:`Store` owns one DuckDB connection and serialises every statement on
it with a re-entrant lock, so one Store may be shared by threads. For parallel readers, give
each thread its own ``Store.cursor()`` view (a DuckDB cursor on the same database) or open a
separate Store per process (DuckDB allows one writing process per file).

>>> with Store(":memory:") as st:  # doctest: +SKIP
...     st.upsert_examples(examples)
...     frame = st.examples_frame(split="construction")
"""

from __future__ import annotations

import json
import threading
from collections.abc import Iterable, Sequence
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import duckdb
import polars as pl
import pyarrow as pa

from tasks.data.schema import Example

__all__ = ["DEFAULT_DB", "ROUND_TABLES", "SCHEMA_VERSION", "Store", "StoreError"]

SCHEMA_VERSION = 2
DEFAULT_DB = Path("data") / "autoverifier.duckdb"

# Column name -> DuckDB type; JSON columns are stored as JSON text and decoded on read.
# Every per-round table carries the construction config's name: two configs may share a store
# (their round numbers are their own), and a round's rows are replaced as one (config, round).
TABLES: dict[str, dict[str, str]] = {
    "examples": {
        "id": "VARCHAR", "question": "VARCHAR", "reference": "VARCHAR", "response": "VARCHAR",
        "label": "BOOLEAN", "source": "VARCHAR", "domain": "VARCHAR", "split": "VARCHAR", "meta": "JSON",
    },
    "replays": {
        "config": "VARCHAR", "round": "INTEGER", "artifact_version": "VARCHAR", "example_id": "VARCHAR",
        "decision": "VARCHAR", "correct": "BOOLEAN", "decided_by": "VARCHAR", "reason": "VARCHAR",
        "fallback_called": "BOOLEAN", "latency_ms": "DOUBLE",
    },
    "residuals": {
        "config": "VARCHAR", "round": "INTEGER", "example_id": "VARCHAR", "error_type": "VARCHAR",
        "answer_object": "VARCHAR", "surface_form": "VARCHAR", "domain": "VARCHAR", "features": "JSON",
    },
    "clusters": {
        "config": "VARCHAR", "round": "INTEGER", "cluster_id": "VARCHAR", "size": "INTEGER", "score": "DOUBLE",
        "label_summary": "VARCHAR", "example_ids": "JSON",
    },
    "cards": {
        "config": "VARCHAR", "card_id": "VARCHAR", "round": "INTEGER", "cluster_id": "VARCHAR",
        "status": "VARCHAR", "path": "VARCHAR", "drafter": "VARCHAR", "template": "VARCHAR", "params": "JSON",
        "stage": "VARCHAR", "reason": "VARCHAR", "figures": "JSON", "created_at": "TIMESTAMP",
    },
    "validations": {
        "config": "VARCHAR", "card_id": "VARCHAR", "round": "INTEGER", "stage": "VARCHAR", "passed": "BOOLEAN",
        "figures": "JSON",
    },
    "rounds": {
        "config": "VARCHAR", "round": "INTEGER", "artifact_version": "VARCHAR", "base_release": "VARCHAR",
        "status": "VARCHAR", "started_at": "TIMESTAMP", "finished_at": "TIMESTAMP", "coverage": "DOUBLE",
        "direct_errors": "INTEGER", "direct_precision": "DOUBLE", "accuracy": "DOUBLE",
        "fallback_calls": "INTEGER", "accepted": "INTEGER", "rejected": "INTEGER", "figures": "JSON",
    },
    "eval_results": {
        "run_id": "VARCHAR", "benchmark": "VARCHAR", "verifier": "VARCHAR", "example_id": "VARCHAR",
        "correct_pred": "BOOLEAN", "label": "BOOLEAN", "decided_by": "VARCHAR", "fallback_called": "BOOLEAN",
        "meta": "JSON",
    },
}
_KEYS = {"examples": ("id",), "cards": ("config", "card_id"), "rounds": ("config", "round")}
# A column a row may leave out gets this value (a key column cannot be NULL).
_DEFAULTS = {"config": "", "status": "complete"}
# The tables one construction round writes, replaced together by :meth:`Store.replace_round`.
ROUND_TABLES = ("replays", "residuals", "clusters", "cards", "validations", "rounds")
# Round statuses: ``freezing`` between the round's rows being written and its round build
# being in place; ``complete`` once both are (only complete rounds count as done).
ROUND_STATUSES = ("freezing", "complete")
_JSON_COLS = {t: {c for c, ty in cols.items() if ty == "JSON"} for t, cols in TABLES.items()}
_DECISIONS = {"PASS", "FAIL", None}


_ARROW_TYPES = {"VARCHAR": pa.string(), "JSON": pa.string(), "BOOLEAN": pa.bool_(), "INTEGER": pa.int64(),
                "DOUBLE": pa.float64(), "TIMESTAMP": pa.timestamp("us", tz="UTC")}


def _arrow_schema(table: str) -> pa.Schema:
    return pa.schema([(c, _ARROW_TYPES[t.split()[0]]) for c, t in TABLES[table].items()])


def _coerce(table: str, col: str, v: Any) -> Any:
    """Numbers into text columns become text (e.g. an integer cluster id); ISO strings into
    timestamp columns become datetimes; nothing else changes."""
    if isinstance(v, (int, float)) and not isinstance(v, bool) and TABLES[table][col].startswith("VARCHAR"):
        return str(v)
    if isinstance(v, str) and TABLES[table][col] == "TIMESTAMP":  # ISO-8601 text into a timestamp column
        try:
            t = datetime.fromisoformat(v)
        except ValueError as exc:
            raise StoreError(f"{table}.{col}: not an ISO timestamp: {v!r}") from exc
        return t if t.tzinfo else t.replace(tzinfo=UTC)
    return v


def _create_sql(table: str) -> str:
    cols = TABLES[table]
    body = [f'"{c}" {t}' + (f" NOT NULL DEFAULT '{_DEFAULTS[c]}'" if c in _DEFAULTS else "")
            for c, t in cols.items()]
    if table in _KEYS:
        body.append("PRIMARY KEY (" + ", ".join(f'"{k}"' for k in _KEYS[table]) + ")")
    return f"CREATE TABLE IF NOT EXISTS {table} ({', '.join(body)})"


class StoreError(RuntimeError):
    """A bad row or an incompatible database file."""


def _dump(v: Any) -> str | None:
    if v is None:
        return None
    return json.dumps(v, ensure_ascii=False, sort_keys=True, default=str)


class Store:
    """A DuckDB-backed store for the construction pipeline (a context manager)."""

    def __init__(self, path: str | Path = DEFAULT_DB, *, read_only: bool = False) -> None:
        self.path = str(path)
        self.read_only = read_only
        self._lock = threading.RLock()
        self._con: duckdb.DuckDBPyConnection | None = None

    # ------------------------------------------------------------------ lifecycle
    def connect(self) -> Store:
        """Open the database (creating the file, folder and tables if missing)."""
        with self._lock:
            if self._con is not None:
                return self
            if self.path != ":memory:":
                Path(self.path).parent.mkdir(parents=True, exist_ok=True)
            self._con = duckdb.connect(self.path, read_only=self.read_only)
            if not self.read_only:
                self._create_tables()
            self._check_version()
        return self

    def close(self) -> None:
        with self._lock:
            if self._con is not None:
                self._con.close()
                self._con = None

    def __enter__(self) -> Store:
        return self.connect()

    def __exit__(self, *exc: object) -> None:
        self.close()

    @property
    def con(self) -> duckdb.DuckDBPyConnection:
        if self._con is None:
            self.connect()
        assert self._con is not None
        return self._con

    def cursor(self) -> duckdb.DuckDBPyConnection:
        """A separate DuckDB cursor on the same database, for use by one other thread."""
        with self._lock:
            return self.con.cursor()

    def _scalar(self, sql: str) -> Any:
        """One value from a query, fully fetched (DuckDB refuses new work on unfinished results)."""
        rows = self.con.execute(sql).fetchall()
        return rows[0][0] if rows else None

    def _create_tables(self) -> None:
        con = self._con
        assert con is not None
        con.execute("CREATE TABLE IF NOT EXISTS schema_version (version INTEGER, created_at TIMESTAMP)")
        if self._scalar("SELECT count(*) FROM schema_version") == 0:
            fresh = self._scalar("SELECT count(*) FROM information_schema.tables WHERE table_name = 'rounds'") == 0
            con.execute("INSERT INTO schema_version VALUES (?, ?)",
                        [SCHEMA_VERSION if fresh else 1, datetime.now(UTC)])
        if self._scalar("SELECT max(version) FROM schema_version") == 1:
            self._migrate_from_v1()
        for name in TABLES:
            con.execute(_create_sql(name))

    def _migrate_from_v1(self) -> None:
        """Version 1 had no ``config`` column (one config per store) and keyed rounds by number
        alone: rebuild each per-round table with the new columns (``config`` = '')."""
        con = self._con
        assert con is not None
        con.execute("BEGIN TRANSACTION")
        try:
            for name in ROUND_TABLES:
                old_cols = [r[0] for r in con.execute(
                    "SELECT column_name FROM information_schema.columns WHERE table_name = ?", [name]).fetchall()]
                if not old_cols:
                    continue
                con.execute(f"ALTER TABLE {name} RENAME TO {name}_v1")
                con.execute(_create_sql(name))
                common = ", ".join(f'"{c}"' for c in TABLES[name] if c in old_cols)
                con.execute(f"INSERT INTO {name} ({common}) SELECT {common} FROM {name}_v1")
                con.execute(f"DROP TABLE {name}_v1")
            con.execute("INSERT INTO schema_version VALUES (?, ?)", [SCHEMA_VERSION, datetime.now(UTC)])
            con.execute("COMMIT")
        except BaseException:
            con.execute("ROLLBACK")
            raise

    def _check_version(self) -> None:
        try:
            version = self._scalar("SELECT max(version) FROM schema_version")
        except duckdb.CatalogException as exc:
            raise StoreError(f"{self.path}: not an AutoVerifier store (no schema_version table)") from exc
        if version != SCHEMA_VERSION:
            raise StoreError(f"{self.path}: schema version {version}, this code needs {SCHEMA_VERSION}")

    @property
    def schema_version(self) -> int:
        with self._lock:
            return int(self._scalar("SELECT max(version) FROM schema_version"))

    # ------------------------------------------------------------------ generic write/read
    def insert(self, table: str, rows: Iterable[dict[str, Any]] | pl.DataFrame, *, replace: bool = False) -> int:
        """Insert rows (dicts or a polars frame) into ``table``; ``replace`` upserts on the key.

        Unknown columns are an error; missing ones are NULL. JSON columns take any JSON-able value.
        """
        if table not in TABLES:
            raise StoreError(f"unknown table {table!r}")
        cols = list(TABLES[table])
        if isinstance(rows, pl.DataFrame):
            rows = rows.to_dicts()
        data: list[dict[str, Any]] = []
        for i, row in enumerate(rows):
            extra = set(row) - set(cols)
            if extra:
                raise StoreError(f"{table} row {i}: unknown columns {sorted(extra)}")
            if table == "replays" and row.get("decision") not in _DECISIONS:
                raise StoreError(f"replays row {i}: decision must be PASS, FAIL or null, got {row.get('decision')!r}")
            row = {**row, **{c: v for c, v in _DEFAULTS.items() if c in cols and row.get(c) is None}}
            data.append({c: _dump(row.get(c)) if c in _JSON_COLS[table] else _coerce(table, c, row.get(c))
                         for c in cols})
        if not data:
            return 0
        upsert = replace and table in _KEYS
        if upsert:  # one row per key (the last wins), as DuckDB refuses to update a row twice in one statement
            keyed = {tuple(r[k] for k in _KEYS[table]): r for r in data}
            data = list(keyed.values())
        try:
            arrow = pa.Table.from_pylist(data, schema=_arrow_schema(table))
        except (pa.ArrowInvalid, pa.ArrowTypeError, OverflowError) as exc:
            raise StoreError(f"{table}: a value has the wrong type: {exc}") from exc
        names = ", ".join(f'"{c}"' for c in cols)
        verb = "INSERT OR REPLACE" if upsert else "INSERT"
        with self._lock:
            view = f"_incoming_{threading.get_ident()}"
            self.con.register(view, arrow)
            try:
                self.con.execute(f"{verb} INTO {table} ({names}) SELECT {names} FROM {view}")
            finally:
                self.con.unregister(view)
        return len(data)

    def frame(self, table: str, where: str = "", params: Sequence[Any] = ()) -> pl.DataFrame:
        """A polars frame of ``table`` (JSON columns left as text), optionally filtered."""
        if table not in TABLES:
            raise StoreError(f"unknown table {table!r}")
        sql = f"SELECT * FROM {table}" + (f" WHERE {where}" if where else "")
        return self.query(sql, params)

    def rows(self, table: str, where: str = "", params: Sequence[Any] = ()) -> list[dict[str, Any]]:
        """Rows of ``table`` as dicts, JSON columns decoded."""
        out = self.frame(table, where, params).to_dicts()
        for r in out:
            for c in _JSON_COLS[table]:
                if isinstance(r.get(c), str):
                    r[c] = json.loads(r[c])
        return out

    def query(self, sql: str, params: Sequence[Any] = ()) -> pl.DataFrame:
        """Run SQL and return the result as a polars frame (via Arrow)."""
        with self._lock:
            rel = self.con.sql(sql, params=list(params) or None)
            table = rel.to_arrow_table() if hasattr(rel, "to_arrow_table") else rel.arrow()
        return pl.from_arrow(table)  # type: ignore[return-value]

    def count(self, table: str) -> int:
        if table not in TABLES:
            raise StoreError(f"unknown table {table!r}")
        with self._lock:
            return int(self._scalar(f"SELECT count(*) FROM {table}"))

    # ------------------------------------------------------------------ examples
    def upsert_examples(self, examples: Iterable[Example]) -> int:
        """Insert or replace examples by id."""
        return self.insert("examples", (e.to_dict() for e in examples), replace=True)

    def examples_frame(self, split: str | None = None, source: str | None = None) -> pl.DataFrame:
        """Examples as a polars frame, optionally filtered by split and source."""
        conds, params = [], []
        for col, val in (("split", split), ("source", source)):
            if val is not None:
                conds.append(f'"{col}" = ?')
                params.append(val)
        return self.frame("examples", " AND ".join(conds), params)

    def get_examples(self, split: str | None = None, source: str | None = None,
                     ids: Sequence[str] | None = None) -> list[Example]:
        """Examples as :class:`Example` objects (meta decoded)."""
        df = self.examples_frame(split, source)
        if ids is not None:
            df = df.filter(pl.col("id").is_in(list(ids)))
        return [
            Example(**{**r, "meta": json.loads(r["meta"]) if r["meta"] else {}})
            for r in df.sort("id").to_dicts()
        ]

    # ------------------------------------------------------------------ per-round tables
    def add_replays(self, rows: Iterable[dict[str, Any]] | pl.DataFrame) -> int:
        return self.insert("replays", rows)

    def replays(self, round: int | None = None) -> pl.DataFrame:
        return self.frame("replays", "round = ?" if round is not None else "", [round] if round is not None else [])

    def add_residuals(self, rows: Iterable[dict[str, Any]] | pl.DataFrame) -> int:
        return self.insert("residuals", rows)

    def residuals(self, round: int | None = None) -> list[dict[str, Any]]:
        return self.rows("residuals", "round = ?" if round is not None else "", [round] if round is not None else [])

    def add_clusters(self, rows: Iterable[dict[str, Any]] | pl.DataFrame) -> int:
        return self.insert("clusters", rows)

    def clusters(self, round: int | None = None) -> list[dict[str, Any]]:
        return self.rows("clusters", "round = ?" if round is not None else "", [round] if round is not None else [])

    def upsert_cards(self, rows: Iterable[dict[str, Any]]) -> int:
        stamped = []
        for r in rows:
            r = dict(r)
            r.setdefault("created_at", datetime.now(UTC))
            stamped.append(r)
        return self.insert("cards", stamped, replace=True)

    def cards(self, round: int | None = None, status: str | None = None) -> list[dict[str, Any]]:
        conds, params = [], []
        if round is not None:
            conds.append("round = ?")
            params.append(round)
        if status is not None:
            conds.append("status = ?")
            params.append(status)
        return self.rows("cards", " AND ".join(conds), params)

    def add_validations(self, rows: Iterable[dict[str, Any]]) -> int:
        return self.insert("validations", rows)

    def validations(self, card_id: str | None = None) -> list[dict[str, Any]]:
        return self.rows("validations", "card_id = ?" if card_id else "", [card_id] if card_id else [])

    def upsert_round(self, row: dict[str, Any]) -> int:
        return self.insert("rounds", [row], replace=True)

    def rounds(self, config: str | None = None, status: str | None = "complete") -> list[dict[str, Any]]:
        """Recorded rounds in order (``config``: one config's; ``status=None``: unfinished ones too)."""
        conds, params = [], []
        if config is not None:
            conds.append("config = ?")
            params.append(config)
        if status is not None:
            conds.append("status = ?")
            params.append(status)
        return sorted(self.rows("rounds", " AND ".join(conds), params), key=lambda r: (r["config"], r["round"]))

    def replace_round(self, config: str, round_no: int, tables: dict[str, Iterable[dict[str, Any]]]) -> dict[str, int]:
        """Write one round's rows in one transaction: every row the store holds for ``(config,
        round_no)`` in :data:`ROUND_TABLES` is deleted first, so a rerun of a round that was
        stopped half-way replaces what it left instead of adding to it. Returns rows per table."""
        unknown = set(tables) - set(ROUND_TABLES)
        if unknown:
            raise StoreError(f"not per-round tables: {sorted(unknown)}")
        written: dict[str, int] = {}
        with self._lock:
            self.con.execute("BEGIN TRANSACTION")
            try:
                for name in ROUND_TABLES:
                    self.con.execute(f"DELETE FROM {name} WHERE config = ? AND round = ?", [config, round_no])
                for name, rows in tables.items():
                    keyed = [{**r, "config": config, "round": round_no} for r in rows]
                    written[name] = self.insert(name, keyed, replace=name in _KEYS)
                self.con.execute("COMMIT")
            except BaseException:
                self.con.execute("ROLLBACK")
                raise
        return written

    def set_round_status(self, config: str, round_no: int, status: str) -> int:
        """Mark a recorded round (``freezing`` -> ``complete``); returns the rows changed (0 or 1)."""
        if status not in ROUND_STATUSES:
            raise StoreError(f"round status must be one of {ROUND_STATUSES}, not {status!r}")
        with self._lock:
            rows = self.con.execute("UPDATE rounds SET status = ? WHERE config = ? AND round = ? RETURNING round",
                                    [status, config, round_no]).fetchall()
        return len(rows)

    def delete_round(self, config: str, round_no: int) -> None:
        """Forget every row of ``(config, round_no)`` (a round rolled back)."""
        self.replace_round(config, round_no, {})

    def round_counts(self, config: str, round_no: int) -> dict[str, int]:
        """Rows per per-round table for ``(config, round_no)``."""
        with self._lock:
            return {t: int(self.con.execute(f"SELECT count(*) FROM {t} WHERE config = ? AND round = ?",
                                            [config, round_no]).fetchall()[0][0]) for t in ROUND_TABLES}

    def add_eval_results(self, rows: Iterable[dict[str, Any]] | pl.DataFrame) -> int:
        return self.insert("eval_results", rows)

    def eval_results(self, run_id: str | None = None) -> pl.DataFrame:
        return self.frame("eval_results", "run_id = ?" if run_id else "", [run_id] if run_id else [])
