"""Loaders: every supported data format into :class:`tasks.data.schema.Example`.

``load(path)`` detects the format from the record fields (``format=`` forces one) and returns
a :class:`LoadResult` whose report counts what was loaded, skipped (with the reason) and what
was malformed (with file and line or array index). Nothing is dropped silently: a bad record
is reported and warned about, and ``strict=True`` raises :class:`LoadError` instead.

Formats (names accepted by ``format=``):

- ``autoverifier``: our own schema, JSONL or Parquet (``question, reference, response,
  label, source`` and optional ``id, domain, split, meta``).
- ``verifybench``: the official VerifyBench / VerifyBench-Hard JSONL/Parquet
  (``question_id, completion_id, question, answer, completion, gold_correct, ...``).
- ``reformatted``: the re-formatted benchmark copy the shared samples come from
  (``question, answer, model_ans, gold_ans`` = ``[Correct]``/``[Incorrect]``).
- ``sci_verifybench``: official SCI-VerifyBench (``uid, question, gold_answer,
  llm_response, gold_judgment`` bool, ...).
- ``verifierbench``: official VerifierBench (``gold_judgment`` A/B/C; A correct).
- ``webinstruct``: WebInstruct-verified questions (no labels) joined to a responses file.
- ``evouna``: EVOUNA NQ/TQ JSON arrays, one example per human-judged answer.
- ``gsm8k_solutions``: GSM8K example model solutions, one example per solution.
"""

from __future__ import annotations

import json
import math
import re
import warnings
from collections import Counter
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from tasks.data.schema import Example, stable_id
from tasks.paths import shared_root

__all__ = [
    "BENCHMARKS",
    "FORMATS",
    "LoadError",
    "LoadIssue",
    "LoadReport",
    "LoadResult",
    "LoadWarning",
    "detect_format",
    "infer_domain",
    "load",
    "load_benchmark",
    "read_jsonl",
    "shared_root",
]

FORMATS = (
    "autoverifier",
    "verifybench",
    "reformatted",
    "sci_verifybench",
    "verifierbench",
    "webinstruct",
    "evouna",
    "gsm8k_solutions",
)
BENCHMARKS = ("verifybench", "verifybench_hard", "sci_verifybench", "verifierbench")
EVOUNA_SYSTEMS = ("fid", "gpt35", "chatgpt", "gpt4", "newbing")
_MAX_WARNINGS = 20


class LoadError(ValueError):
    """A malformed record in strict mode, or a file that cannot be read at all."""


class LoadWarning(UserWarning):
    """A malformed record that was reported and left out (non-strict mode)."""


@dataclass(slots=True)
class LoadIssue:
    """One malformed record: where it is and what is wrong."""

    file: str
    location: str  # "line 12", "index 3" or "row 7"
    message: str

    def __str__(self) -> str:
        return f"{self.file}:{self.location}: {self.message}"


@dataclass(slots=True)
class LoadReport:
    """What a load did: counts of loaded, skipped (by reason) and malformed records."""

    path: str
    format: str
    records: int = 0
    loaded: int = 0
    skipped: Counter[str] = field(default_factory=Counter)
    errors: list[LoadIssue] = field(default_factory=list)
    duplicates: int = 0  # records whose triple repeats an earlier one (kept, with a derived id)

    def to_dict(self) -> dict[str, Any]:
        return {
            "path": self.path,
            "format": self.format,
            "records": self.records,
            "loaded": self.loaded,
            "skipped": dict(self.skipped),
            "errors": [str(e) for e in self.errors],
            "duplicates": self.duplicates,
        }


@dataclass(slots=True)
class LoadResult:
    examples: list[Example]
    report: LoadReport


class _BadRecord(Exception):
    """Raised inside a record converter; becomes a LoadIssue."""


# ----------------------------------------------------------------------------------------- reading


def _iter_records(path: Path) -> Iterator[tuple[str, Any]]:
    """Yield ``(location, record_or_exception)`` for JSONL, JSON arrays and Parquet files."""
    suffix = path.suffix.lower()
    if suffix == ".parquet":
        try:
            import pyarrow.parquet as pq
        except ImportError as exc:  # pragma: no cover - dependency is part of the construct extra
            raise LoadError(f"{path}: reading Parquet needs pyarrow (pip install 'autoverifier[construct]')") from exc
        try:
            rows = pq.read_table(path).to_pylist()
        except Exception as exc:
            raise LoadError(f"{path}: not a readable Parquet file: {exc}") from exc
        for i, row in enumerate(rows):
            yield f"row {i}", row
        return
    try:
        text = path.read_text(encoding="utf-8")
    except UnicodeDecodeError as exc:
        raise LoadError(f"{path}: not UTF-8 text: {exc}") from exc
    if text.lstrip().startswith("["):
        try:
            data = json.loads(text)
        except json.JSONDecodeError as exc:
            raise LoadError(f"{path}: invalid JSON array at line {exc.lineno}: {exc.msg}") from exc
        for i, item in enumerate(data):
            yield f"index {i}", item
        return
    for lineno, line in enumerate(text.splitlines(), start=1):
        if not line.strip():
            continue
        try:
            yield f"line {lineno}", json.loads(line)
        except json.JSONDecodeError as exc:
            yield f"line {lineno}", _BadRecord(f"invalid JSON: {exc.msg} (column {exc.colno})")


def read_jsonl(path: str | Path) -> list[Any]:
    """The records of a JSONL file (blank lines skipped); the project's one JSONL reader.

    Raises :class:`LoadError` naming the file and line of the first record that is not JSON.
    """
    p = Path(path)
    out = []
    for where, rec in _iter_records(p) if p.suffix.lower() != ".parquet" else ():
        if isinstance(rec, _BadRecord):
            raise LoadError(f"{p}: {where}: {rec}")
        out.append(rec)
    return out


def _peek_fields(path: Path) -> set[str]:
    for _loc, rec in _iter_records(path):
        if isinstance(rec, dict):
            return set(rec)
    return set()


def detect_format(path: str | Path) -> str:
    """Guess the format of a data file from the fields of its first valid record."""
    p = Path(path)
    keys = _peek_fields(p)
    if not keys:
        raise LoadError(f"{p}: no valid JSON object record found; cannot detect the format")
    return _format_from_keys(keys, p)


def _format_from_keys(keys: set[str], p: Path) -> str:
    if "golden_answer" in keys and any(k.startswith("judge_") for k in keys):
        return "evouna"
    if "ground_truth" in keys and any(k.endswith("_finetuning") or k.endswith("_verification") for k in keys):
        return "gsm8k_solutions"
    if {"completion", "gold_correct"} <= keys:
        return "verifybench"
    if {"model_ans", "gold_ans"} <= keys:
        return "reformatted"
    if "gold_judgment" in keys and ("uid" in keys or "raw_llm_response" in keys):
        return "sci_verifybench"
    if {"gold_judgment", "llm_response"} <= keys:
        return "verifierbench"
    if {"question", "reference", "response", "label"} <= keys:
        return "autoverifier"
    if {"question", "answer", "answer_type"} <= keys:
        return "webinstruct"
    raise LoadError(f"{p}: cannot detect the format from fields {sorted(keys)}; pass format=")


# ----------------------------------------------------------------------------------------- helpers


def _text(rec: dict[str, Any], key: str, *, required: bool = True) -> str:
    """A text field; numbers are turned into text, anything else is a bad record."""
    if key not in rec or rec[key] is None:
        if required:
            raise _BadRecord(f"missing required field {key!r}")
        return ""
    v = rec[key]
    if isinstance(v, str):
        return v
    if isinstance(v, bool) or not isinstance(v, (int, float)):
        raise _BadRecord(f"field {key!r} must be text, got {type(v).__name__}")
    if isinstance(v, float) and not math.isfinite(v):
        raise _BadRecord(f"field {key!r} is not a finite number")
    return str(v)


def _bool(rec: dict[str, Any], key: str) -> bool:
    if key not in rec or rec[key] is None:
        raise _BadRecord(f"missing required field {key!r}")
    v = rec[key]
    if not isinstance(v, bool):
        raise _BadRecord(f"field {key!r} must be a boolean, got {type(v).__name__} {v!r}")
    return v


_SOURCE_DOMAINS = (
    (re.compile(r"^math_reasoning/|math|gsm8k|aime|amc|numina|olymp", re.I), "math"),
    (re.compile(r"^logic_reasoning/|logic|babi|clutrr|proofwriter|arlsat", re.I), "logic"),
    (re.compile(r"^general_reasoning/|bbh|bbeh", re.I), "general_reasoning"),
    (re.compile(r"physic", re.I), "physics"),
    (re.compile(r"chem", re.I), "chemistry"),
    (re.compile(r"bio|protein|rna|agentclinic|medic", re.I), "biology"),
    (re.compile(r"simpleqa|triviaqa|natural_questions|\bnq\b|\btq\b|evouna", re.I), "open_qa"),
    (re.compile(r"mmlu|knowledge|gpqa|supergpqa", re.I), "knowledge"),
)
_DOMAIN_NAMES = {
    "math": "math",
    "mathematics": "math",
    "physics": "physics",
    "chemistry": "chemistry",
    "biology": "biology",
    "science": "science",
    "knowledge": "knowledge",
    "general reasoning": "general_reasoning",
    "general_reasoning": "general_reasoning",
    "qa": "open_qa",
    "open_qa": "open_qa",
    "logic": "logic",
}
_MATHY = re.compile(r"\\frac|\\sqrt|\\boxed|\^|[=+*/]|^\s*-?\d[\d,]*(\.\d+)?\s*$")


def infer_domain(
    *, domain: str = "", source: str = "", answer_type: str = "", question: str = "", reference: str = ""
) -> str:
    """A coarse domain: an explicit domain field wins, then the upstream source name, then the
    answer type, then a text heuristic (maths notation or a bare number -> ``math``, else
    ``general``)."""
    d = domain.strip().lower()
    if d:
        return _DOMAIN_NAMES.get(d, re.sub(r"\W+", "_", d).strip("_") or "general")
    for pat, name in _SOURCE_DOMAINS:
        if source and pat.search(source):
            return name
    at = answer_type.lower()
    if any(k in at for k in ("numeric", "expression", "math", "interval", "matrix")):
        return "math"
    if _MATHY.search(reference[:500]) or re.search(r"\\\(|\$", question[:2000]):
        return "math"
    return "general"


# ------------------------------------------------------------------------------- record converters


def _mk(source: str, q: str, ref: str, resp: str, label: bool, domain: str, meta: dict[str, Any],
        id_: str | None = None) -> Example:
    return Example(
        id=id_ or stable_id(source, q, resp, ref),
        question=q,
        reference=ref,
        response=resp,
        label=label,
        source=source,
        domain=domain,
        meta=meta,
    )


def _conv_autoverifier(rec: dict[str, Any], source: str, report: LoadReport) -> list[Example]:
    q, ref, resp = _text(rec, "question"), _text(rec, "reference"), _text(rec, "response", required=False)
    if "response" not in rec:
        raise _BadRecord("missing required field 'response'")
    label = _bool(rec, "label")
    src = _text(rec, "source", required=False) or source
    meta = rec.get("meta") or {}
    if isinstance(meta, str):
        try:
            meta = json.loads(meta)
        except json.JSONDecodeError as exc:
            raise _BadRecord(f"field 'meta' is not a JSON object: {exc.msg}") from exc
    if not isinstance(meta, dict):
        raise _BadRecord(f"field 'meta' must be an object, got {type(meta).__name__}")
    ex = _mk(src, q, ref, resp, label,
             _text(rec, "domain", required=False) or infer_domain(source=src, question=q, reference=ref),
             dict(meta), _text(rec, "id", required=False) or None)
    ex.split = _text(rec, "split", required=False)
    return [ex]


def _conv_verifybench(rec: dict[str, Any], source: str, report: LoadReport) -> list[Example]:
    q, ref, resp = _text(rec, "question"), _text(rec, "answer"), _text(rec, "completion")
    label = _bool(rec, "gold_correct")
    up = _text(rec, "source", required=False)
    at = _text(rec, "answer_type", required=False)
    meta = {k: rec.get(k) for k in ("question_id", "completion_id", "completion_model", "answer_type",
                                    "answer_subtype", "annotator") if rec.get(k) is not None}
    meta["upstream_source"] = up
    return [_mk(source, q, ref, resp, label,
                infer_domain(source=up, answer_type=at, question=q, reference=ref), meta)]


_REFORMATTED_LABELS = {"[correct]": True, "[incorrect]": False}


def _conv_reformatted(rec: dict[str, Any], source: str, report: LoadReport) -> list[Example]:
    q, ref, resp = _text(rec, "question"), _text(rec, "answer"), _text(rec, "model_ans")
    raw = _text(rec, "gold_ans")
    if raw.strip().lower() not in _REFORMATTED_LABELS:
        raise _BadRecord(f"field 'gold_ans' must be '[Correct]' or '[Incorrect]', got {raw!r}")
    up = _text(rec, "source", required=False)
    qt = _text(rec, "question_type", required=False)
    meta: dict[str, Any] = {"upstream_source": up, "question_type": qt, "gold_ans": raw}
    if rec.get("sample_offset") is not None:
        meta["sample_offset"] = rec["sample_offset"]
    return [_mk(source, q, ref, resp, _REFORMATTED_LABELS[raw.strip().lower()],
                infer_domain(source=up, answer_type=qt, question=q, reference=ref), meta)]


def _conv_sci(rec: dict[str, Any], source: str, report: LoadReport) -> list[Example]:
    q, ref = _text(rec, "question"), _text(rec, "gold_answer")
    # The judged answer is the extracted one when present, else the raw response.
    resp = _text(rec, "llm_response", required=False) or _text(rec, "raw_llm_response")
    label = _bool(rec, "gold_judgment")
    meta = {k: rec.get(k) for k in ("uid", "answer_type", "data_source", "task_type", "aug", "llm",
                                    "raw_llm_response") if rec.get(k) is not None}
    return [_mk(source, q, ref, resp, label,
                infer_domain(domain=_text(rec, "domain", required=False),
                             source=_text(rec, "data_source", required=False),
                             answer_type=_text(rec, "answer_type", required=False), question=q, reference=ref),
                meta)]


def _conv_verifierbench(rec: dict[str, Any], source: str, report: LoadReport) -> list[Example]:
    q, ref, resp = _text(rec, "question"), _text(rec, "gold_answer"), _text(rec, "llm_response")
    raw = _text(rec, "gold_judgment").strip().upper()
    if raw not in ("A", "B", "C"):
        raise _BadRecord(f"field 'gold_judgment' must be A, B or C, got {raw!r}")
    meta = {"gold_judgment": raw}
    return [_mk(source, q, ref, resp, raw == "A",
                infer_domain(domain=_text(rec, "domain", required=False), question=q, reference=ref), meta)]


def _judge_value(v: Any) -> bool | None:
    """EVOUNA judgment: True/False, or None for null / "nan" (no judgment made)."""
    if v is None or (isinstance(v, float) and math.isnan(v)):
        return None
    if isinstance(v, bool):
        return v
    if isinstance(v, str) and v.strip().lower() in ("nan", "none", "null", ""):
        return None
    raise _BadRecord(f"judgment must be true/false/null/'nan', got {v!r}")


def _conv_evouna(rec: dict[str, Any], source: str, report: LoadReport) -> list[Example]:
    judged = {s: _judge_value(rec.get(f"judge_{s}")) for s in EVOUNA_SYSTEMS}
    n_judged = sum(v is not None for v in judged.values())
    if rec.get("improper") is True:
        report.skipped["improper item (judged answers)"] += n_judged
        report.skipped["improper item (unjudged answers)"] += len(EVOUNA_SYSTEMS) - n_judged
        return []
    q, ref = _text(rec, "question"), _text(rec, "golden_answer")
    aliases = [a.strip() for a in ref.split("/") if a.strip()]
    out = []
    for s in EVOUNA_SYSTEMS:
        if judged[s] is None:
            report.skipped["no human judgment"] += 1
            continue
        resp = rec.get(f"answer_{s}")
        meta: dict[str, Any] = {"system": s, "reference_aliases": aliases}
        if resp is None:
            # A judged but missing answer is an empty response (the human marked it wrong).
            resp, meta["answer_missing"] = "", True
        elif not isinstance(resp, str):
            raise _BadRecord(f"field 'answer_{s}' must be text, got {type(resp).__name__}")
        out.append(_mk(source, q, ref, resp, bool(judged[s]), "open_qa", meta))
    return out


_GSM_FINAL = re.compile(r"(?:####|(?:^|\n)A:)\s*(.+?)\s*$", re.S)


def gsm8k_final_answer(solution: str) -> str | None:
    """The final answer after ``#### `` or a last-line ``A: `` in a GSM8K worked solution."""
    m = _GSM_FINAL.search(solution.strip())
    return m.group(1).replace(",", "").strip() if m else None


def _conv_gsm8k(rec: dict[str, Any], source: str, report: LoadReport) -> list[Example]:
    q, ref = _text(rec, "question"), _text(rec, "ground_truth")
    final = gsm8k_final_answer(ref)
    if final is None:
        raise _BadRecord("field 'ground_truth' has no final answer ('#### N' or 'A: N')")
    out = []
    for key, entry in rec.items():
        if not isinstance(entry, dict):
            continue
        if "solution" not in entry or "is_correct" not in entry:
            raise _BadRecord(f"model entry {key!r} needs 'solution' and 'is_correct'")
        sol = _text(entry, "solution")
        label = _bool(entry, "is_correct")
        meta = {"model": key, "final_answer": final, "response_final_answer": gsm8k_final_answer(sol)}
        out.append(_mk(source, q, ref, sol, label, "math", meta))
    if not out:
        raise _BadRecord("no model solution entries")
    return out


_CONVERTERS = {
    "autoverifier": _conv_autoverifier,
    "verifybench": _conv_verifybench,
    "reformatted": _conv_reformatted,
    "sci_verifybench": _conv_sci,
    "verifierbench": _conv_verifierbench,
    "evouna": _conv_evouna,
    "gsm8k_solutions": _conv_gsm8k,
}


def _default_source(fmt: str, path: Path) -> str:
    if fmt == "evouna":
        return f"evouna_{path.stem.lower()}"
    return fmt


def _record_issue(report: LoadReport, issue: LoadIssue, strict: bool) -> None:
    if strict:
        raise LoadError(str(issue))
    report.errors.append(issue)
    if len(report.errors) <= _MAX_WARNINGS:
        warnings.warn(str(issue), LoadWarning, stacklevel=3)
    elif len(report.errors) == _MAX_WARNINGS + 1:
        warnings.warn(f"{issue.file}: more malformed records; see the load report", LoadWarning, stacklevel=3)


# ------------------------------------------------------------------------------------------ public


def load(
    path: str | Path,
    format: str | None = None,
    *,
    source: str | None = None,
    strict: bool = False,
    responses: str | Path | None = None,
) -> LoadResult:
    """Load a data file into Examples.

    ``format`` forces a format (see :data:`FORMATS`); otherwise it is detected from the fields.
    ``source`` names the examples' source (default: the format, or ``evouna_nq``/``evouna_tq``).
    ``responses`` is the labelled responses file joined to a ``webinstruct`` questions file.

    >>> res = load("tests/fixtures/formats/autoverifier.jsonl")  # doctest: +SKIP
    >>> res.report.loaded, res.report.errors  # doctest: +SKIP
    """
    p = Path(path)
    if not p.is_file():
        raise FileNotFoundError(f"data file not found: {p}")
    fmt = format or detect_format(p)
    if fmt not in FORMATS:
        raise ValueError(f"unknown format {fmt!r}; expected one of {', '.join(FORMATS)}")
    if fmt == "webinstruct":
        if responses is None:
            raise LoadError(f"{p}: WebInstruct questions carry no labels; pass responses=<labelled file>")
        return _load_webinstruct(p, Path(responses), source=source or "webinstruct", strict=strict)
    src = source or _default_source(fmt, p)
    report = LoadReport(path=str(p), format=fmt)
    conv = _CONVERTERS[fmt]
    examples: list[Example] = []
    for loc, rec in _iter_records(p):
        report.records += 1
        try:
            if isinstance(rec, _BadRecord):
                raise rec
            if not isinstance(rec, dict):
                raise _BadRecord(f"record must be a JSON object, got {type(rec).__name__}")
            got = conv(rec, src, report)
        except _BadRecord as exc:
            _record_issue(report, LoadIssue(str(p), loc, str(exc)), strict)
            continue
        for ex in got:
            ex.meta.setdefault("origin", f"{p.name}:{loc}")
        examples.extend(got)
    _dedupe_ids(examples, report)
    report.loaded = len(examples)
    return LoadResult(examples, report)


def _dedupe_ids(examples: list[Example], report: LoadReport) -> None:
    """Give a repeated triple a derived id (``meta.duplicate_of`` names the first one), so ids stay
    unique within a load; the pool deduplicates by content later."""
    seen: Counter[str] = Counter()
    for ex in examples:
        seen[ex.id] += 1
        if seen[ex.id] > 1:
            report.duplicates += 1
            ex.meta["duplicate_of"] = ex.id
            ex.id = stable_id(ex.id, f"#{seen[ex.id]}")


def _norm_q(text: str) -> str:
    return re.sub(r"\s+", " ", text).strip().lower()


_LABEL_WORDS = {"true": True, "correct": True, "yes": True, "false": False, "incorrect": False, "no": False}


def _load_webinstruct(qpath: Path, rpath: Path, *, source: str, strict: bool) -> LoadResult:
    """Join WebInstruct-style questions to labelled responses by id or by question text."""
    if not rpath.is_file():
        raise FileNotFoundError(f"responses file not found: {rpath}")
    report = LoadReport(path=f"{qpath} + {rpath}", format="webinstruct")
    by_id: dict[str, dict[str, Any]] = {}
    by_q: dict[str, dict[str, Any]] = {}
    for loc, rec in _iter_records(qpath):
        try:
            if isinstance(rec, _BadRecord):
                raise rec
            if not isinstance(rec, dict):
                raise _BadRecord(f"record must be a JSON object, got {type(rec).__name__}")
            item = {"question": _text(rec, "question"), "answer": _text(rec, "answer"),
                    "difficulty": rec.get("difficulty"), "category": _text(rec, "category", required=False),
                    "answer_type": _text(rec, "answer_type", required=False)}
        except _BadRecord as exc:
            _record_issue(report, LoadIssue(str(qpath), loc, str(exc)), strict)
            continue
        qid = rec.get("id", rec.get("question_id"))
        if qid is not None:
            by_id[str(qid)] = item
        by_q[_norm_q(item["question"])] = item
    examples: list[Example] = []
    for loc, rec in _iter_records(rpath):
        report.records += 1
        try:
            if isinstance(rec, _BadRecord):
                raise rec
            if not isinstance(rec, dict):
                raise _BadRecord(f"record must be a JSON object, got {type(rec).__name__}")
            qid = rec.get("question_id", rec.get("id"))
            if qid is not None:
                item = by_id.get(str(qid))
                if item is None:
                    raise _BadRecord(f"question id {qid!r} not in the questions file")
            else:
                item = by_q.get(_norm_q(_text(rec, "question")))
                if item is None:
                    raise _BadRecord("question text not found in the questions file")
            resp = _text(rec, "response")
            lab = rec.get("label")
            if isinstance(lab, str) and lab.strip().lower() in _LABEL_WORDS:
                lab = _LABEL_WORDS[lab.strip().lower()]
            if not isinstance(lab, bool):
                raise _BadRecord(f"field 'label' must be a boolean or correct/incorrect, got {lab!r}")
        except _BadRecord as exc:
            _record_issue(report, LoadIssue(str(rpath), loc, str(exc)), strict)
            continue
        meta = {k: item[k] for k in ("difficulty", "category", "answer_type") if item.get(k) not in (None, "")}
        meta["origin"] = f"{rpath.name}:{loc}"
        if qid is not None:
            meta["question_id"] = str(qid)
        examples.append(_mk(source, item["question"], item["answer"], resp, lab,
                            infer_domain(domain=item["category"], answer_type=item["answer_type"],
                                         question=item["question"], reference=item["answer"]), meta))
    _dedupe_ids(examples, report)
    report.loaded = len(examples)
    return LoadResult(examples, report)


_BENCH_STEMS = {
    "verifybench": ("verifybench", "verify_bench", "VerifyBench"),
    "verifybench_hard": ("verifybench_hard", "VerifyBenchHard", "verifybenchhard", "VerifyBench-Hard"),
    "sci_verifybench": ("sci_verifybench", "SCI-VerifyBench", "sci-verifybench", "sci_verify_bench"),
    "verifierbench": ("verifierbench", "VerifierBench", "test"),
}
_EXTS = (".jsonl", ".json", ".parquet")


def _find_benchmark_file(name: str, root: Path) -> Path | None:
    if root.is_file():
        return root
    dirs = [root / name, root / name.replace("_", "-"), root]
    for d in dirs:
        if not d.is_dir():
            continue
        for stem in (*_BENCH_STEMS[name], "sample"):
            if stem in ("sample", "test") and d == root:
                continue  # a bare sample/test file at the root is ambiguous
            for ext in _EXTS:
                f = d / f"{stem}{ext}"
                if f.is_file():
                    return f
    return None


def load_benchmark(name: str, root: str | Path | None = None, *, strict: bool = False) -> list[Example]:
    """Load an evaluation benchmark as Examples with ``split="evaluation"``.

    With ``root`` (a folder or a file) the official release is looked up there: a file named
    after the benchmark (``VerifyBench.jsonl``, ``VerifyBenchHard.parquet``,
    ``SCI-VerifyBench.jsonl``, ``VerifierBench.jsonl``, ... or ``<root>/<name>/test.jsonl``).
    Without it, the sample under ``<shared_root()>/benchmarks/<name>/sample.jsonl`` is used.
    """
    if name not in BENCHMARKS:
        raise ValueError(f"unknown benchmark {name!r}; expected one of {', '.join(BENCHMARKS)}")
    base = Path(root) if root is not None else shared_root() / "benchmarks"
    path = _find_benchmark_file(name, base)
    if path is None:
        raise FileNotFoundError(
            f"no data for benchmark {name!r} under {base}; expected e.g. {base / name / 'sample.jsonl'} "
            f"or an official export named {_BENCH_STEMS[name][1]}.jsonl/.parquet"
        )
    res = load(path, source=name, strict=strict)
    for ex in res.examples:
        ex.split = "evaluation"
        ex.meta["benchmark"] = name
    return res.examples
