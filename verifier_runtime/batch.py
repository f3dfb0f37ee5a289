"""Streaming batch verification: readers, writers and execution backends.

Input and output are JSONL (``.jsonl``, ``.ndjson``, ``.json``; ``.gz`` allowed), Parquet
(``.parquet``, ``.pq``) or a DuckDB table (``.duckdb``, ``.db`` with a table name). Rows go
through in chunks of ``chunk_size``: JSONL line by line, Parquet in pyarrow record batches,
DuckDB through a streaming cursor, so memory stays bounded by a few chunks whatever the file
size. Every input field passes through unchanged; ``correct``, ``decided_by``, ``reason`` and
``fallback_called`` are added (an input column of the same name is replaced, with a
warning). Output is flushed after every chunk.

A malformed JSONL line (invalid JSON, bytes that are not UTF-8, nesting too deep to parse, a
lone surrogate that cannot be written back, not an object, a missing reference/response
field) stops the run with :class:`BadRecord` naming the line, after every row before it has
been verified and written; with ``skip_bad`` such lines are counted, listed in the summary and
left out of the output.

The output is written to a temporary file (JSONL, Parquet) or table (DuckDB) beside the
destination and renamed over it only when the run succeeds, so a failed run never truncates
or replaces an existing output. A run that stops keeps the rows it verified in
``<output>.partial`` (a file) or ``<table>_partial`` (a DuckDB table), and says so.

Python use::

    from verifier_runtime.batch import VerifierSpec, run_batch
    summary = run_batch("rollouts.jsonl", "verified.parquet", spec=VerifierSpec.make(fallback="offline"))

Only the standard library is imported up front; pyarrow, DuckDB and Dask load when a run
needs them.

Backends: ``local`` verifies each chunk in this process with ``verify_batch`` threads;
``dask`` sends chunks to a ``dask.distributed`` cluster (each worker process loads the
verifier once, from the artifact path), keeps a bounded window of chunks in flight and
writes results in input order.
"""

from __future__ import annotations

import datetime as _dt
import decimal
import gzip
import importlib
import io
import json
import os
import time
from collections import Counter, deque
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

RESULT_FIELDS = ("correct", "decided_by", "reason", "fallback_called")
FORMATS = ("jsonl", "parquet", "duckdb")
DUCKDB_MEMORY_LIMIT = os.environ.get("AUTOVERIFIER_DUCKDB_MEMORY", "512MB")


class BatchError(Exception):
    """A batch run that cannot go on (bad arguments, schema problems, backend failure)."""


class BadRecord(BatchError):
    """A malformed input record; ``line`` is 1-based (JSONL line number)."""

    def __init__(self, line: int, message: str) -> None:
        super().__init__(f"line {line}: {message}")
        self.line = line
        self.message = message


@dataclass(frozen=True)
class Fields:
    """Names of the input fields holding the triple."""

    question: str = "question"
    reference: str = "reference"
    response: str = "response"


@dataclass(frozen=True)
class VerifierSpec:
    """How to build the verifier, in this process or on a Dask worker.

    ``factory`` is ``"module:function"`` with ``load_verifier``'s signature; ``None`` means
    ``verifier_runtime.load_verifier``. Options must be picklable for the Dask backend.
    """

    artifact: str | None = None
    fallback: str = "offline"
    options: tuple[tuple[str, Any], ...] = ()
    factory: str | None = None

    @classmethod
    def make(cls, artifact: str | os.PathLike[str] | None = None, fallback: str = "offline",
             factory: str | None = None, **options: Any) -> VerifierSpec:
        art = os.path.abspath(os.fspath(artifact)) if artifact is not None else None
        return cls(art, fallback, tuple(sorted(options.items())), factory)

    def load(self) -> Any:
        """The verifier, loaded once per process (shared cache of the integrations)."""
        from verifier_runtime.integrations.rewards import get_verifier

        loader = None
        if self.factory:
            mod, _, fn = self.factory.partition(":")
            if not mod or not fn:
                raise BatchError(f"factory must look like 'module:function', got {self.factory!r}")
            loader = getattr(importlib.import_module(mod), fn)
        return get_verifier(self.artifact, self.fallback, loader=loader, **dict(self.options))


# --- chunks ----------------------------------------------------------------------------------

def _text(value: Any) -> str:
    """A field as text: strings, bytes, numbers and booleans as the runtime reads them; any other
    value (a date, a decimal from DuckDB or Parquet) printed."""
    from verifier_runtime.triple import _as_text

    if value is None or isinstance(value, str | bytes | int | float | bool):
        return _as_text(value)
    return str(value)


@dataclass
class Chunk:
    """Consecutive input rows: python dicts (JSONL) or a pyarrow record batch."""

    start: int
    rows: list[dict[str, Any]] | None = None
    batch: Any = None  # pyarrow.RecordBatch

    def __len__(self) -> int:
        return len(self.rows) if self.rows is not None else self.batch.num_rows

    def triples(self, fields: Fields) -> list[tuple[str, str, str]]:
        if self.rows is not None:
            return [(_text(r.get(fields.question)), _text(r.get(fields.reference)), _text(r.get(fields.response)))
                    for r in self.rows]
        names = self.batch.schema.names
        cols = []
        for name in (fields.question, fields.reference, fields.response):
            cols.append(self.batch.column(names.index(name)).to_pylist() if name in names else [None] * len(self))
        return [(_text(q), _text(r), _text(s)) for q, r, s in zip(*cols, strict=True)]

    def to_rows(self) -> list[dict[str, Any]]:
        return self.rows if self.rows is not None else self.batch.to_pylist()


Result = tuple[bool | None, str, str, bool]


# --- readers ---------------------------------------------------------------------------------

def detect_format(path: str | os.PathLike[str]) -> str:
    name = os.fspath(path).lower()
    if name.endswith(".gz"):
        name = name[:-3]
    if name.endswith((".jsonl", ".ndjson", ".json")):
        return "jsonl"
    if name.endswith((".parquet", ".pq")):
        return "parquet"
    if name.endswith((".duckdb", ".db", ".ddb")):
        return "duckdb"
    raise BatchError(f"cannot tell the format of {os.fspath(path)!r}: use .jsonl, .parquet or .duckdb")


def _open_text(path: Path, mode: str) -> io.TextIOBase:
    if path.suffix == ".gz" or path.name.endswith(".gz" + _TMP_SUFFIX):
        return gzip.open(path, mode + "t", encoding="utf-8")  # type: ignore[return-value]
    return open(path, mode, encoding="utf-8")  # noqa: SIM115 - closed by the caller


def _open_binary(path: Path) -> Any:
    if path.suffix == ".gz":
        return gzip.open(path, "rb")
    return open(path, "rb")  # noqa: SIM115 - closed by the caller


def _has_lone_surrogate(value: Any, depth: int = 0) -> bool:
    """Whether a decoded JSON value holds a string that cannot be encoded as UTF-8."""
    if isinstance(value, str):
        try:
            value.encode("utf-8")
        except UnicodeEncodeError:
            return True
        return False
    if depth > 200:
        return False
    if isinstance(value, dict):
        return any(_has_lone_surrogate(k, depth + 1) or _has_lone_surrogate(v, depth + 1) for k, v in value.items())
    if isinstance(value, list):
        return any(_has_lone_surrogate(v, depth + 1) for v in value)
    return False


def _parse_line(raw: bytes, lineno: int) -> Any:
    """One JSONL line as a JSON value; every way it can be bad is a :class:`BadRecord`."""
    try:
        line = raw.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise BadRecord(lineno, f"not valid UTF-8 (byte 0x{raw[exc.start]:02x} at column {exc.start + 1})") from None
    try:
        row = json.loads(line)
    except json.JSONDecodeError as exc:
        raise BadRecord(lineno, f"invalid JSON ({exc.msg} at column {exc.colno})") from None
    except RecursionError:
        raise BadRecord(lineno, "invalid JSON (nested too deeply to parse)") from None
    except ValueError as exc:  # an integer beyond Python's digit limit, and the like
        raise BadRecord(lineno, f"invalid JSON ({str(exc)[:120]})") from None
    if ("\\ud" in line or "\\uD" in line) and _has_lone_surrogate(row):
        raise BadRecord(lineno, "a string holds a lone surrogate (\\ud800-\\udfff), which cannot be written as UTF-8")
    return row


def read_jsonl(path: Path, chunk_size: int, fields: Fields, *, skip_bad: bool = False,
               bad: list[BadRecord] | None = None) -> Iterator[Chunk]:
    """JSONL rows, line by line. A bad line raises after the rows before it are yielded."""
    rows: list[dict[str, Any]] = []
    start = 0
    with _open_binary(path) as fh:
        for lineno, raw in enumerate(fh, 1):
            if not raw.strip():
                continue
            try:
                row = _parse_line(raw, lineno)
                if not isinstance(row, dict):
                    raise BadRecord(lineno, f"expected a JSON object, got {type(row).__name__}")
                missing = [f for f in (fields.reference, fields.response) if f not in row]
                if missing:
                    raise BadRecord(lineno, f"missing field(s) {missing}")
            except BadRecord as err:
                if not skip_bad:
                    if rows:
                        yield Chunk(start, rows)
                    raise
                if bad is not None:
                    bad.append(err)
                continue
            rows.append(row)
            if len(rows) >= chunk_size:
                yield Chunk(start, rows)
                start += len(rows)
                rows = []
    if rows:
        yield Chunk(start, rows)


def _check_columns(names: list[str], fields: Fields, where: str) -> None:
    missing = [f for f in (fields.reference, fields.response) if f not in names]
    if missing:
        raise BatchError(f"{where} has no column(s) {missing}; columns: {names}")


def read_parquet(path: Path, chunk_size: int, fields: Fields) -> Iterator[Chunk]:
    import pyarrow.parquet as pq

    pf = pq.ParquetFile(path)
    _check_columns(pf.schema_arrow.names, fields, os.fspath(path))
    start = 0
    for batch in pf.iter_batches(batch_size=chunk_size):
        if batch.num_rows:
            yield Chunk(start, batch=batch)
            start += batch.num_rows


def _quote(name: str) -> str:
    return '"' + name.replace('"', '""') + '"'


def read_duckdb(con: Any, table: str, chunk_size: int, fields: Fields) -> Iterator[Chunk]:
    cur = con.cursor()
    try:
        cols = [r[0] for r in cur.execute(f"DESCRIBE {_quote(table)}").fetchall()]
    except Exception as exc:
        raise BatchError(f"cannot read table {table!r}: {exc}") from None
    _check_columns(cols, fields, f"table {table!r}")
    rel = cur.sql(f"SELECT * FROM {_quote(table)}")
    # DuckDB renamed the streaming call across versions; both yield pyarrow record batches.
    fetch = getattr(rel, "to_arrow_reader", None) or rel.record_batch
    reader = fetch(chunk_size)
    start = 0
    for batch in reader:
        if batch.num_rows:
            yield Chunk(start, batch=batch)
            start += batch.num_rows


# --- writers ---------------------------------------------------------------------------------

def _json_default(value: Any) -> Any:
    if isinstance(value, _dt.datetime | _dt.date | _dt.time):
        return value.isoformat()
    if isinstance(value, decimal.Decimal):
        return str(value)
    if isinstance(value, bytes):
        return value.decode("utf-8", "replace")
    if isinstance(value, set | frozenset | tuple):
        return list(value)
    if hasattr(value, "tolist"):
        return value.tolist()
    return str(value)


def _merge(row: dict[str, Any], res: Result) -> dict[str, Any]:
    out = dict(row)
    out.update(zip(RESULT_FIELDS, res, strict=True))
    return out


_TMP_SUFFIX = ".autoverifier-tmp"


class JsonlWriter:
    def __init__(self, path: Path) -> None:
        self.fh = _open_text(path, "w")

    def write(self, chunk: Chunk, results: list[Result]) -> None:
        fh = self.fh
        for row, res in zip(chunk.to_rows(), results, strict=True):
            fh.write(json.dumps(_merge(row, res), ensure_ascii=False, default=_json_default))
            fh.write("\n")
        fh.flush()

    def close(self) -> None:
        self.fh.close()


def _arrow_with_results(chunk: Chunk, results: list[Result], schema: Any = None) -> Any:
    """The chunk as a pyarrow table with the result columns replaced or appended."""
    import pyarrow as pa

    if chunk.batch is not None:
        table = pa.Table.from_batches([chunk.batch])
    else:
        rows = chunk.rows or []
        names = list(dict.fromkeys(k for r in rows for k in r))  # every key, in order of appearance
        span = f"rows {chunk.start + 1}..{chunk.start + len(chunk)}"
        if schema is not None:
            new = [n for n in names if n not in schema.names]
            if new:
                raise BatchError(f"{span} bring field(s) {new} absent from the first chunk; write JSONL output "
                                 "instead, or use a larger --chunk-size")
            names = [n for n in schema.names if n not in RESULT_FIELDS]
        try:
            table = pa.table({n: pa.array([r.get(n) for r in rows],
                                          type=None if schema is None else schema.field(n).type) for n in names})
        except (pa.ArrowInvalid, pa.ArrowTypeError) as exc:
            raise BatchError(f"{span} do not fit the column types of the first chunk ({exc}); write JSONL "
                             "output instead") from None
        if schema is None:  # first chunk: columns that are null throughout become strings
            for i, f in enumerate(table.schema):
                if pa.types.is_null(f.type):
                    table = table.set_column(i, pa.field(f.name, pa.string()), table.column(i).cast(pa.string()))
    for name in RESULT_FIELDS:
        if name in table.column_names:
            table = table.drop_columns([name])
    cols = list(zip(*results, strict=True)) if results else [[], [], [], []]
    types = (pa.bool_(), pa.string(), pa.string(), pa.bool_())
    for name, values, typ in zip(RESULT_FIELDS, cols, types, strict=True):
        table = table.append_column(pa.field(name, typ), pa.array(list(values), type=typ))
    if schema is not None and table.schema != schema:
        try:
            table = table.cast(schema)
        except (pa.ArrowInvalid, pa.ArrowTypeError, ValueError) as exc:
            raise BatchError(f"rows {chunk.start + 1}..{chunk.start + len(chunk)} do not fit the output schema "
                             f"({exc}); write JSONL output instead") from None
    return table


class ParquetWriter:
    def __init__(self, path: Path) -> None:
        self.path = path
        self.writer: Any = None
        self.schema: Any = None

    def write(self, chunk: Chunk, results: list[Result]) -> None:
        import pyarrow.parquet as pq

        table = _arrow_with_results(chunk, results, self.schema)
        if self.writer is None:
            self.schema = table.schema
            self.writer = pq.ParquetWriter(self.path, self.schema)
        self.writer.write_table(table)  # one row group per chunk: readable up to here if the run stops

    def close(self) -> None:
        if self.writer is not None:
            self.writer.close()
        else:  # nothing written: still leave a valid, empty file
            import pyarrow as pa
            import pyarrow.parquet as pq

            pq.write_table(pa.table({n: pa.array([], t) for n, t in zip(
                RESULT_FIELDS, (pa.bool_(), pa.string(), pa.string(), pa.bool_()), strict=True)}), self.path)


class DuckDBWriter:
    def __init__(self, con: Any, table: str) -> None:
        self.con = con.cursor()
        self.table = table
        self.created = False

    def write(self, chunk: Chunk, results: list[Result]) -> None:
        arrow = _arrow_with_results(chunk, results)
        self.con.register("_autoverifier_chunk", arrow)
        try:
            if not self.created:
                self.con.execute(f"CREATE OR REPLACE TABLE {_quote(self.table)} AS SELECT * FROM _autoverifier_chunk")
                self.created = True
            else:
                self.con.execute(f"INSERT INTO {_quote(self.table)} SELECT * FROM _autoverifier_chunk")
        finally:
            self.con.unregister("_autoverifier_chunk")

    def finish(self, final: str) -> None:
        """Rename the table written so far to ``final`` (replacing a table of that name)."""
        if not self.created:
            return
        self.con.execute(f"DROP TABLE IF EXISTS {_quote(final)}")
        self.con.execute(f"ALTER TABLE {_quote(self.table)} RENAME TO {_quote(final)}")

    def discard(self) -> None:
        if self.created:
            self.con.execute(f"DROP TABLE IF EXISTS {_quote(self.table)}")

    def close(self) -> None:
        self.con.close()


# --- backends --------------------------------------------------------------------------------

def verify_triples(spec: VerifierSpec, triples: list[tuple[str, str, str]], workers: int = 1) -> list[Result]:
    """Verify triples with the verifier ``spec`` describes (runs locally or on a Dask worker)."""
    verifier = spec.load()
    rows = [{"question": q, "reference": r, "response": s} for q, r, s in triples]
    return [(v.correct, str(v.decided_by), str(v.reason), bool(v.fallback_called))
            for v in verifier.verify_batch(rows, workers=workers)]


class _Done:
    def __init__(self, value: list[Result]) -> None:
        self.value = value

    def result(self) -> list[Result]:
        return self.value


class LocalBackend:
    window = 1

    def __init__(self, spec: VerifierSpec, workers: int) -> None:
        self.spec = spec
        self.workers = workers
        spec.load()  # fail early on a bad artifact

    def submit(self, triples: list[tuple[str, str, str]]) -> _Done:
        return _Done(verify_triples(self.spec, triples, self.workers))

    def close(self) -> None:
        pass


class DaskBackend:
    """Chunks on a dask.distributed cluster (``address``), or on a local one started here."""

    def __init__(self, spec: VerifierSpec, workers: int, address: str | None = None,
                 threads_per_chunk: int = 1) -> None:
        try:
            from dask.distributed import Client, LocalCluster
        except ImportError as exc:  # pragma: no cover - the scale extra is missing
            raise BatchError("the dask backend needs dask[distributed] (pip install 'autoverifier[scale]')") from exc
        self.spec = spec
        self.threads = max(1, threads_per_chunk)
        self.cluster = None
        if address:
            self.client = Client(address)
        else:
            self.cluster = LocalCluster(n_workers=max(1, workers), threads_per_worker=1, processes=True,
                                        dashboard_address=None)
            self.client = Client(self.cluster)
        n_workers = max(1, len(self.client.scheduler_info().get("workers", {})))
        self.window = 2 * n_workers + 1

    def submit(self, triples: list[tuple[str, str, str]]) -> Any:
        return self.client.submit(verify_triples, self.spec, triples, self.threads, pure=False)

    def close(self) -> None:
        self.client.close()
        if self.cluster is not None:
            self.cluster.close()


# --- the run ---------------------------------------------------------------------------------

@dataclass
class BatchSummary:
    rows: int = 0
    correct: int = 0
    incorrect: int = 0
    abstained: int = 0
    fallback_calls: int = 0
    by_decider: Counter = field(default_factory=Counter)
    bad: list[BadRecord] = field(default_factory=list)
    elapsed_s: float = 0.0
    stopped_at: BadRecord | None = None
    partial_output: str | None = None  # where a stopped run's verified rows are

    def add(self, results: list[Result]) -> None:
        for correct, by, _, fb in results:
            self.rows += 1
            self.by_decider[by] += 1
            self.fallback_calls += bool(fb)
            if correct is True:
                self.correct += 1
            elif correct is False:
                self.incorrect += 1
            else:
                self.abstained += 1

    @property
    def rows_per_s(self) -> float:
        return self.rows / self.elapsed_s if self.elapsed_s > 0 else 0.0


def count_rows(path: Path, fmt: str, table: str | None = None) -> int | None:
    """Row count when it is cheap to know (Parquet metadata, DuckDB), else ``None``."""
    try:
        if fmt == "parquet":
            import pyarrow.parquet as pq

            return pq.ParquetFile(path).metadata.num_rows
        if fmt == "duckdb" and table:
            import duckdb

            with duckdb.connect(os.fspath(path), read_only=True) as con:
                return int(con.execute(f"SELECT count(*) FROM {_quote(table)}").fetchone()[0])
    except Exception:
        return None
    return None


def _settle_output(writer: Any, succeeded: bool, rows: int, dst: Path, tmp_path: Path, out_table: str,
                   tmp_table: str) -> str | None:
    """Close ``writer`` and put its output in place: over the destination after a successful
    run; as ``<output>.partial`` / ``<table>_partial`` after a failed one that verified rows
    (returned, for the error message); nowhere when nothing was verified."""
    partial = None
    if isinstance(writer, DuckDBWriter):
        try:
            if succeeded:
                writer.finish(out_table)
            elif rows:
                partial = f"{out_table}_partial"
                writer.finish(partial)
            else:
                writer.discard()
        finally:
            writer.close()
        return partial
    writer.close()
    if succeeded:
        os.replace(tmp_path, dst)
    elif rows and tmp_path.exists():
        target = dst.with_name(dst.name + ".partial")
        os.replace(tmp_path, target)
        partial = os.fspath(target)
    else:
        tmp_path.unlink(missing_ok=True)
    return partial


def run_batch(input_path: str | os.PathLike[str], output_path: str | os.PathLike[str], *, spec: VerifierSpec,
              fields: Fields = Fields(), chunk_size: int = 1000, backend: str = "local", address: str | None = None,
              workers: int = 4, table: str | None = None, output_table: str | None = None, skip_bad: bool = False,
              on_chunk: Callable[[int], None] | None = None, warn: Callable[[str], None] | None = None,
              ) -> BatchSummary:
    """Verify every row of ``input_path`` into ``output_path``; see the module doc.

    Raises :class:`BadRecord` (after writing every row before it) for a malformed JSONL line
    unless ``skip_bad``, and :class:`BatchError` for unusable arguments.
    """
    src, dst = Path(input_path), Path(output_path)
    if chunk_size < 1:
        raise BatchError("chunk size must be at least 1")
    if not src.exists():
        raise BatchError(f"input {src} does not exist")
    in_fmt, out_fmt = detect_format(src), detect_format(dst)
    if in_fmt == "duckdb" and not table:
        raise BatchError("a DuckDB input needs --table NAME")
    same_db = in_fmt == out_fmt == "duckdb" and src.resolve() == dst.resolve()
    if src.resolve() == dst.resolve() and not same_db:
        raise BatchError("output must not be the input file")
    out_table = output_table or (f"{table}_verified" if table else "verified")
    if same_db and out_table == table:
        raise BatchError("output table must differ from the input table")
    if backend not in ("local", "dask"):
        raise BatchError(f"unknown backend {backend!r} (local or dask)")

    summary = BatchSummary()
    t0 = time.perf_counter()
    cons: list[Any] = []

    def duck(path: Path, read_only: bool) -> Any:
        import duckdb

        # DuckDB's buffer pool would otherwise grow towards 80% of RAM while a large table streams.
        con = duckdb.connect(os.fspath(path), read_only=read_only, config={"memory_limit": DUCKDB_MEMORY_LIMIT})
        cons.append(con)
        return con

    back: Any = None
    writer: Any = None
    # written beside the destination, renamed over it on success only
    tmp_path = dst.with_name(dst.name + _TMP_SUFFIX)
    tmp_table = f"{out_table}_autoverifier_tmp"
    succeeded = False
    try:
        shared = duck(src, False) if same_db else None
        if in_fmt == "jsonl":
            chunks = read_jsonl(src, chunk_size, fields, skip_bad=skip_bad, bad=summary.bad)
        elif in_fmt == "parquet":
            chunks = read_parquet(src, chunk_size, fields)
        else:
            chunks = read_duckdb(shared or duck(src, True), table or "", chunk_size, fields)
        back = LocalBackend(spec, workers) if backend == "local" else DaskBackend(spec, workers, address)
        dst.parent.mkdir(parents=True, exist_ok=True)
        if out_fmt == "jsonl":
            writer = JsonlWriter(tmp_path)
        elif out_fmt == "parquet":
            writer = ParquetWriter(tmp_path)
        else:
            writer = DuckDBWriter(shared or duck(dst, False), tmp_table)

        warned = False
        pending: deque[tuple[Chunk, Any]] = deque()

        def flush_one() -> None:
            chunk, fut = pending.popleft()
            results = fut.result()
            writer.write(chunk, results)
            summary.add(results)
            if on_chunk is not None:
                on_chunk(len(chunk))

        stop: BadRecord | None = None
        try:
            for chunk in chunks:
                if not warned and warn is not None:
                    names = chunk.rows[0].keys() if chunk.rows else chunk.batch.schema.names
                    clash = [n for n in RESULT_FIELDS if n in names]
                    if clash:
                        warn(f"input already has column(s) {clash}; the output replaces them")
                    warned = True
                pending.append((chunk, back.submit(chunk.triples(fields))))
                while len(pending) >= back.window:
                    flush_one()
        except BadRecord as err:
            stop = err
        while pending:
            flush_one()
        if stop is not None:
            summary.stopped_at = stop
            stop.summary = summary  # type: ignore[attr-defined] - what was written before the stop
            raise stop
        succeeded = True
    finally:
        summary.elapsed_s = time.perf_counter() - t0
        if writer is not None:
            summary.partial_output = _settle_output(writer, succeeded, summary.rows, dst, tmp_path, out_table,
                                                    tmp_table)
        if back is not None:
            back.close()
        for con in reversed(cons):
            try:
                con.close()
            except Exception:
                pass
    return summary
