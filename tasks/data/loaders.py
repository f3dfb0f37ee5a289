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

Sources without labels give questions with references (:class:`QuestionItem`, in
``LoadResult.questions``) and real responses without labels (:class:`ResponseText`, in
``LoadResult.responses``: the carriers of the constructed variants):

- ``math``: the MATH test set (``problem, level, type, solution``; the answer is the
  solution's last ``\\boxed{}``), joined with ``answer_types.json`` beside it (a person's label
  of the answer object per problem). The worked solution is also kept as a response text.
- ``olympiadbench``: OlympiadBench (``question, final_answer`` (a list), ``answer_type, unit,
  error, is_multiple_answer``, optional ``context``).
- ``scibench``: SciBench subject files (JSON arrays of ``problem_text, answer_latex,
  answer_number, unit``); a folder loads all ten.
- ``theoremqa``: TheoremQA (``Question, Answer, Answer_type``: float, integer, bool, lists,
  options).
- ``zeroeval``: ZeroEval MATH level-5 outputs (``problem, answer, output, generator``); the
  reply is a JSON object in a fenced block, read leniently; a folder loads every model file.
- ``mmlu_pro``: MMLU-Pro model outputs (``question_id, question, options, answer, pred,
  generated_text``). A response that states one "answer is (X)" is a labelled example
  (MMLU-Pro's own score, ``official_auto``); every response is also a response text.

Every labelled example records where its label comes from in ``meta["label_provenance"]``.
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

from tasks.data.schema import Example, QuestionItem, ResponseText, question_key, stable_id
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
    "math",
    "olympiadbench",
    "scibench",
    "theoremqa",
    "zeroeval",
    "mmlu_pro",
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
    questions: int = 0  # questions with references (no response, no label)
    responses: int = 0  # real responses without labels (carriers)
    notes: list[str] = field(default_factory=list)  # decisions taken for the whole file
    counts: Counter[str] = field(default_factory=Counter)  # how records were read (e.g. "reply: lenient")

    def to_dict(self) -> dict[str, Any]:
        return {
            "path": self.path,
            "format": self.format,
            "records": self.records,
            "loaded": self.loaded,
            "questions": self.questions,
            "responses": self.responses,
            "skipped": dict(self.skipped),
            "errors": [str(e) for e in self.errors],
            "duplicates": self.duplicates,
            "notes": list(self.notes),
            "counts": dict(sorted(self.counts.items())),
        }


@dataclass(slots=True)
class LoadResult:
    """``examples`` are labelled; ``questions`` and ``responses`` carry no label."""

    examples: list[Example]
    report: LoadReport
    questions: list[QuestionItem] = field(default_factory=list)
    responses: list[ResponseText] = field(default_factory=list)


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
    if {"problem", "solution", "level", "type"} <= keys:
        return "math"
    if {"final_answer", "answer_type", "is_multiple_answer"} <= keys:
        return "olympiadbench"
    if {"problem_text", "answer_latex", "unit"} <= keys:
        return "scibench"
    if {"Question", "Answer", "Answer_type"} <= keys:
        return "theoremqa"
    if {"problem", "answer", "output", "generator"} <= keys:
        return "zeroeval"
    if {"question_id", "options", "answer", "pred", "generated_text"} <= keys:
        return "mmlu_pro"
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
    meta["label_provenance"] = "human"
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
    meta: dict[str, Any] = {"upstream_source": up, "question_type": qt, "gold_ans": raw, "label_provenance": "human"}
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
    meta["label_provenance"] = "human"
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
    meta = {"gold_judgment": raw, "label_provenance": "human"}
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
        meta: dict[str, Any] = {"system": s, "reference_aliases": aliases, "label_provenance": "human"}
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
        meta = {"model": key, "final_answer": final, "response_final_answer": gsm8k_final_answer(sol),
                "label_provenance": "official_auto"}
        out.append(_mk(source, q, ref, sol, label, "math", meta))
    if not out:
        raise _BadRecord("no model solution entries")
    return out


# ------------------------------------------------------------ questions with references (no labels)


def _boxed_raw(text: str) -> list[str]:
    from verifier_runtime.toolkit.extract import find_boxed

    return [b.strip() for b in find_boxed(text) if b.strip()]


def _item(source: str, q: str, ref: str, answer: str, obj: str, domain: str, meta: dict[str, Any],
          key_text: str | None = None) -> QuestionItem:
    meta = dict(meta)
    meta.setdefault("question_key", question_key(key_text if key_text is not None else q))
    return QuestionItem(id=stable_id(source, "item", q, ref), question=q, reference=ref, answer=answer,
                        answer_object=obj, source=source, domain=domain, meta=meta)


def _response(source: str, q: str, ref: str, text: str, model: str, answer: str, domain: str,
              meta: dict[str, Any], key_text: str | None = None) -> ResponseText:
    meta = dict(meta)
    meta.setdefault("question_key", question_key(key_text if key_text is not None else q))
    return ResponseText(id=stable_id(source, "response", model, q, text), question=q, reference=ref, text=text,
                        source=source, model=model, answer=answer, domain=domain, meta=meta)


def _refine_object(obj: str, answer: str, question: str = "") -> str:
    """A real number written with a unit is a quantity; an option letter of a question that
    lists options is a choice."""
    from tasks.data.answers import quantity

    if re.fullmatch(r"(?:\\text\{)?\(?[A-J]\)?\}?", answer.strip()) and question:
        from verifier_runtime.toolkit.choices import parse_options

        if len(parse_options(question)) >= 2:
            return "choice"
    if obj == "number" and re.search(r"[a-zA-Z\u00b0]", re.sub(r"\\(?:frac|dfrac|sqrt|pi|cdot|times)", "", answer)) \
            and quantity(answer) is not None:
        return "quantity"
    return obj


def load_math_annotations(path: Path, report: LoadReport, strict: bool) -> dict[str, dict[str, Any]]:
    """MATH's answer annotations (``answer_types.json``) by normalised question."""
    from tasks.data.answers import MATH_HUMAN_TYPES
    from tasks.data.decontam import normalize_text

    out: dict[str, dict[str, Any]] = {}
    for loc, rec in _iter_records(path):
        try:
            if isinstance(rec, _BadRecord):
                raise rec
            if not isinstance(rec, dict):
                raise _BadRecord(f"annotation must be a JSON object, got {type(rec).__name__}")
            q = _text(rec, "question")
            ans = rec.get("answer")
            if isinstance(ans, list) and ans and all(isinstance(a, str) for a in ans):
                ans = ", ".join(a.strip() for a in ans)
            elif not isinstance(ans, str) or not ans.strip():
                raise _BadRecord(f"field 'answer' must be text or a list of text, got {ans!r}")
            ht = _text(rec, "human_type")
            if ht not in MATH_HUMAN_TYPES:
                raise _BadRecord(f"unknown human_type {ht!r}; expected one of {sorted(MATH_HUMAN_TYPES)}")
        except _BadRecord as exc:
            _record_issue(report, LoadIssue(str(path), loc, str(exc)), strict)
            continue
        out[normalize_text(q)] = {"answer": ans.strip(), "human_type": ht, "index": rec.get("index"),
                                  "origin": f"{path.name}:{loc}"}
    return out


def _conv_math(rec: dict[str, Any], source: str, report: LoadReport, ctx: dict[str, Any]) -> list[Any]:
    from tasks.data.answers import MATH_HUMAN_TYPES, answer_object
    from tasks.data.decontam import normalize_text

    q, sol = _text(rec, "problem"), _text(rec, "solution")
    boxes = _boxed_raw(sol)
    if not boxes:
        raise _BadRecord("field 'solution' has no \\boxed{} final answer")
    meta: dict[str, Any] = {k: rec.get(k) for k in ("level", "type", "idx") if rec.get(k) is not None}
    meta["boxed_answer"] = boxes[-1]
    ann = ctx.get("annotations", {}).get(normalize_text(q)) if ctx.get("annotations") is not None else None
    if ann is not None:
        answer, obj = ann["answer"], MATH_HUMAN_TYPES[ann["human_type"]]
        meta |= {"human_type": ann["human_type"], "answer_object_from": "human_type", "annotation": ann["origin"]}
    else:
        if ctx.get("annotations") is not None:
            report.skipped["no answer annotation (object read from the answer)"] += 1
        answer, obj = boxes[-1], answer_object(boxes[-1], q)
        meta["answer_object_from"] = "parsed"
    obj = _refine_object(obj, answer, q)
    if obj == "choice":
        meta["answer_object_from"] += ", choice by the question's options"
    item = _item(source, q, answer, answer, obj, "math", meta)
    sol_meta = {"kind": "solution", "question_key": item.meta["question_key"]}
    # the solution's own answer is the annotated one: a solution whose last box is only part of
    # it (several boxes) is not located as a carrier
    return [item, _response(source, q, answer, sol, "reference_solution", answer, "math", sol_meta)]


_OLYMPIAD_OBJECTS = {"Numerical": "number", "Expression": "expression", "Tuple": "tuple", "Interval": "interval"}


def _strip_dollars(s: str) -> str:
    return re.sub(r"\$+", "", s).strip()


def _conv_olympiad(rec: dict[str, Any], source: str, report: LoadReport) -> list[Any]:
    q = _text(rec, "question")
    ctx = _text(rec, "context", required=False)
    fa = rec.get("final_answer")
    if not isinstance(fa, list) or not fa or not all(isinstance(a, str) and a.strip() for a in fa):
        raise _BadRecord(f"field 'final_answer' must be a non-empty list of text, got {fa!r}")
    at = _text(rec, "answer_type")
    if at not in _OLYMPIAD_OBJECTS:
        raise _BadRecord(f"unknown answer_type {at!r}; expected one of {sorted(_OLYMPIAD_OBJECTS)}")
    multiple = rec.get("is_multiple_answer")
    if not isinstance(multiple, bool):
        raise _BadRecord(f"field 'is_multiple_answer' must be a boolean, got {multiple!r}")
    answer = ", ".join(_strip_dollars(a) for a in fa)
    unit = _strip_dollars(_text(rec, "unit", required=False))
    if unit in ("%", "\\%"):
        answer, unit = f"{answer}\\%", ""  # a percentage is a number
    obj = _OLYMPIAD_OBJECTS[at]
    if multiple:
        obj = "set"
    elif unit and obj == "number":
        obj = "quantity"
    ref = answer if not unit else (f"{answer}{unit}" if unit.startswith("^") else f"{answer} {unit}")
    question = f"{ctx.strip()}\n\n{q}" if ctx.strip() else q
    meta: dict[str, Any] = {"answer_type": at, "is_multiple_answer": multiple, "unit": unit or None,
                            "subfield": rec.get("subfield"), "upstream_id": rec.get("id"),
                            "answer_object_from": "answer_type"}
    err = rec.get("error")
    if err not in (None, ""):
        try:
            meta["stated_tolerance"] = float(err)
        except (TypeError, ValueError) as exc:
            raise _BadRecord(f"field 'error' must be a number (a stated tolerance), got {err!r}") from exc
    domain = "physics" if "physics" in str(rec.get("subfield", "")).lower() else "math"
    item = _item(source, question, ref, answer, obj, domain, meta)
    out: list[Any] = [item]
    sol = rec.get("solution")
    if isinstance(sol, list) and sol and all(isinstance(x, str) for x in sol):
        out.append(_response(source, question, ref, "\n\n".join(sol), "reference_solution", answer, domain,
                             {"kind": "solution", "question_key": item.meta["question_key"]}))
    return out


_SCIBENCH_DOMAINS = {"atkins": "chemistry", "chemmc": "chemistry", "quan": "chemistry", "matter": "chemistry",
                     "thermo": "chemistry", "fund": "physics", "class": "physics", "calculus": "math",
                     "diff": "math", "stat": "math"}
_SCALE_RE = re.compile(r"^\s*(10\s*\^\s*\{?\s*[-+\u2212]?\d+\s*\}?)\s*(.*)$")


def scibench_reference(answer_latex: str, unit: str) -> tuple[str, str, str]:
    """(reference, bare answer, unit) from SciBench's answer and unit fields: ``$`` and ``~``
    spacing removed, a power-of-ten factor in the unit (``10^{-19} J``) moved to the answer."""
    ans = _strip_dollars(answer_latex)
    u = _strip_dollars(unit).replace("~", " ").strip()
    u = re.sub(r"\s+", " ", u)
    m = _SCALE_RE.match(u)
    if m:
        ans = f"{ans} \\times {m.group(1).replace(' ', '')}"
        u = m.group(2).strip()
    if u in ("{\\circ}", "^{\\circ}", "\\circ", "^\\circ"):
        return f"{ans}^{{\\circ}}", ans, "^{\\circ}"
    if u in ("%", "\\%"):
        return f"{ans}\\%", f"{ans}\\%", ""
    return (f"{ans} {u}" if u else ans), ans, u


def _conv_scibench(rec: dict[str, Any], source: str, report: LoadReport, ctx: dict[str, Any]) -> list[Any]:
    from tasks.data.answers import answer_object

    q = _text(rec, "problem_text")
    ref, ans, unit = scibench_reference(_text(rec, "answer_latex"), _text(rec, "unit", required=False))
    if not ans:
        raise _BadRecord("field 'answer_latex' is empty")
    subject = str(rec.get("source") or ctx.get("stem") or "").strip()
    obj = "quantity" if unit else answer_object(ans)
    if obj == "quantity":
        from tasks.data.answers import quantity

        if quantity(ref) is None:
            report.skipped["unit not readable (kept, object quantity)"] += 1
    meta = {"subject": subject, "answer_number": str(rec.get("answer_number", "")).strip(), "unit": unit or None,
            "upstream_id": str(rec.get("problemid", "")).strip(), "answer_object_from": "unit field",
            "comment": str(rec.get("comment", "")).strip() or None}
    return [_item(source, q, ref, ans, obj, _SCIBENCH_DOMAINS.get(subject, "science"), meta)]


_THEOREMQA_OBJECTS = {"float": "number", "integer": "number", "bool": "bool", "list of integer": "tuple",
                      "list of float": "tuple", "option": "choice"}


def _num_text(v: Any) -> str:
    if isinstance(v, bool) or not isinstance(v, (int, float)) or (isinstance(v, float) and not math.isfinite(v)):
        raise _BadRecord(f"expected a finite number, got {v!r}")
    return str(v)


def _conv_theoremqa(rec: dict[str, Any], source: str, report: LoadReport) -> list[Any]:
    q = _text(rec, "Question")
    at = _text(rec, "Answer_type")
    if at not in _THEOREMQA_OBJECTS:
        raise _BadRecord(f"unknown Answer_type {at!r}; expected one of {sorted(_THEOREMQA_OBJECTS)}")
    a = rec.get("Answer")
    if at == "bool":
        if not isinstance(a, bool):
            raise _BadRecord(f"a bool answer must be true/false, got {a!r}")
        ans = "True" if a else "False"
    elif at.startswith("list"):
        if not isinstance(a, list) or not a:
            raise _BadRecord(f"a list answer must be a non-empty list, got {a!r}")
        ans = "[" + ", ".join(_num_text(x) for x in a) + "]"
    elif at == "option":
        if not isinstance(a, str) or not re.fullmatch(r"\(?[a-jA-J]\)?", a.strip()):
            raise _BadRecord(f"an option answer must be a letter like '(a)', got {a!r}")
        ans = a.strip()
    else:
        ans = _num_text(a)
        if at == "integer" and not (isinstance(a, int) or float(a).is_integer()):
            raise _BadRecord(f"an integer answer is not an integer: {a!r}")
    field_ = str(rec.get("field", "")).strip().lower()
    domain = {"math": "math", "physics": "physics", "eecs": "engineering", "finance": "finance"}.get(field_, "science")
    meta = {"answer_type": at, "upstream_id": rec.get("id"), "theorem": rec.get("theorem"),
            "subfield": rec.get("subfield"), "picture": rec.get("Picture"), "answer_object_from": "Answer_type"}
    return [_item(source, q, ans, ans, _THEOREMQA_OBJECTS[at], domain, meta)]


# ------------------------------------------------------------ ZeroEval replies (JSON in a fenced block)

_FENCE_RE = re.compile(r"```\s*(?:json)?\s*(\{.*\})\s*(?:```|$)", re.S | re.I)
_FIELD_RE = re.compile(r'"(reasoning|answer)"\s*:\s*"')
#: LaTeX commands that begin with a JSON escape letter (\n \t \f \b \r \u): kept as LaTeX when a
#: model wrote them with one backslash inside a JSON string
_LATEX_WORDS = frozenset("""neq ne nabla not nu ni nmid ngeq nleq newline noindent nolimits nexists neg nearrow
 times text textbf textit textrm textstyle theta tan tanh tau to top triangle tfrac tilde therefore tiny tbinom
 frac forall flat frown boxed beta binom bar bmod begin big bigg bigl bigr bigcup bigcap bot bf backslash bullet
 bmatrix because bowtie boldsymbol right rho rangle rceil rfloor rightarrow rm rvert rbrace underline uparrow
 upsilon cup""".split())
_ESCAPES = {"n": "\n", "t": "\t", "f": "\f", "b": "\b", "r": "\r", '"': '"', "\\": "\\", "/": "/"}


def _decode_lenient(s: str) -> str:
    """A JSON string body as a model wrote it: proper escapes decoded, single-backslash LaTeX
    (``\\frac``, ``\\neq``, ``\\(``) kept as LaTeX."""
    out: list[str] = []
    i, n = 0, len(s)
    while i < n:
        ch = s[i]
        if ch != "\\" or i + 1 >= n:
            out.append(ch)
            i += 1
            continue
        nxt = s[i + 1]
        if nxt in "nftbru":
            m = re.match(r"[a-zA-Z]+", s[i + 1:])
            word = m.group(0) if m else ""
            if any(word.startswith(w) and (len(word) == len(w) or not word[len(w)].islower()) for w in _LATEX_WORDS
                   if word[:1] == w[:1]) and not (nxt == "u" and re.match(r"u[0-9a-fA-F]{4}", s[i + 1:])):
                out.append("\\")
                i += 1
                continue
            if nxt == "u":
                m = re.match(r"u([0-9a-fA-F]{4})", s[i + 1:])
                if m:
                    out.append(chr(int(m.group(1), 16)))
                    i += 6
                    continue
                out.append("\\")
                i += 1
                continue
            out.append(_ESCAPES[nxt])
            i += 2
        elif nxt in _ESCAPES:
            out.append(_ESCAPES[nxt])
            i += 2
        else:
            out.append("\\")  # \( \sqrt \{ ... : LaTeX written with one backslash
            i += 1
    return "".join(out)


def _string_end(s: str, start: int, stop: int, *, last: bool) -> int | None:
    """Index of the quote closing the JSON string that starts at ``start`` and must end before
    ``stop`` (the next field): the last unescaped quote before it (``last``), else the first one
    followed by the end of the object, a fence or a line break (models leave bare quotes inside
    values and sometimes run on after the object)."""
    quotes = [j for j in range(start, stop) if s[j] == '"' and not _escaped(s, j, start)]
    if not quotes:
        return None
    if last:
        return quotes[-1]
    for j in quotes:
        if re.match(r"[ \t]*(?:,|\}|```|\n|$)", s[j + 1:]):
            return j
    return None


def _escaped(s: str, j: int, start: int) -> bool:
    k, bs = j - 1, 0
    while k >= start and s[k] == "\\":
        bs += 1
        k -= 1
    return bs % 2 == 1


def read_reply(text: str) -> tuple[dict[str, str] | None, str]:
    """The ``reasoning`` and ``answer`` fields of a ZeroEval reply, and how they were read:
    ``json`` (well formed), ``lenient`` (a repaired reading) or ``raw`` (unreadable: ``None``)."""
    m = _FENCE_RE.search(text)
    body = m.group(1) if m else text.strip()
    strict: dict[str, str] | None = None
    try:
        obj = json.loads(body)
        if isinstance(obj, dict) and isinstance(obj.get("answer"), (str, int, float)):
            strict = {"reasoning": str(obj.get("reasoning") or ""), "answer": str(obj["answer"])}
    except (json.JSONDecodeError, ValueError):
        pass
    fields = _lenient_fields(body)
    if strict is not None:
        # Well-formed JSON can still hold LaTeX written with one backslash: "\frac" parses as a
        # form feed and "rac". The lenient reading keeps such commands; where the two readings
        # differ, it is the one kept.
        if fields.get("answer") is not None and fields != {k: v for k, v in strict.items() if k in fields}:
            return {"reasoning": fields.get("reasoning", strict["reasoning"]), "answer": fields["answer"]}, "lenient"
        return strict, "json"
    if fields.get("answer", "").strip() and "\n" not in fields["answer"].strip():
        return {"reasoning": fields.get("reasoning", ""), "answer": fields["answer"]}, "lenient"
    return None, "raw"


def _lenient_fields(body: str) -> dict[str, str]:
    starts = [(fm.group(1), fm.end(), fm.start()) for fm in _FIELD_RE.finditer(body)]
    fields: dict[str, str] = {}
    for k, (name, vstart, _fstart) in enumerate(starts):
        if name in fields:
            continue
        nxt = starts[k + 1][2] if k + 1 < len(starts) else len(body)
        end = _string_end(body, vstart, nxt, last=k + 1 < len(starts))
        if end is not None:
            fields[name] = _decode_lenient(body[vstart:end])
    if "answer" not in fields:
        am = re.search(r'"answer"\s*:\s*(-?\d+(?:\.\d+)?)\s*[,}]', body)
        if am:
            fields["answer"] = am.group(1)
    return fields


def render_reply(fields: dict[str, str]) -> str:
    """A reply's two fields as the text a verifier reads: the reasoning, then ``Answer: <answer>``."""
    reasoning = fields.get("reasoning", "").strip()
    answer = fields["answer"].strip()
    return f"{reasoning}\n\nAnswer: {answer}" if reasoning else f"Answer: {answer}"


def _conv_zeroeval(rec: dict[str, Any], source: str, report: LoadReport) -> list[Any]:
    q, ref = _text(rec, "problem"), _text(rec, "answer")
    out = rec.get("output")
    if not isinstance(out, list) or not all(isinstance(x, str) for x in out):
        raise _BadRecord(f"field 'output' must be a list of text, got {type(out).__name__}")
    raw = out[0] if out else ""
    model = str(rec.get("generator") or "")
    if not raw.strip():
        report.skipped["empty reply"] += 1
        return []
    fields, how = read_reply(raw)
    report.counts[f"reply read: {how}"] += 1
    meta: dict[str, Any] = {"kind": "model_response", "reply_parse": how, "upstream_id": rec.get("id")}
    if fields is None:
        # Unreadable reply: the raw text is kept; its own answer is unknown.
        return [_response(source, q, ref, raw, model, "", "math", meta)]
    meta["raw_reply"] = raw
    return [_response(source, q, ref, render_reply(fields), model, fields["answer"].strip(), "math", meta)]


# ------------------------------------------------------------ MMLU-Pro outputs

_MMLU_STATED_RE = re.compile(r"answer is \(?([A-J])\)?")
_MMLU_LISTED_RE = re.compile(r"answer is \(?[A-J]\)?\s*(?:,|and|or|/|&)\s*\(?[A-J]\b")
LETTERS = "ABCDEFGHIJ"


def mmlu_question(stem: str, options: list[str]) -> str:
    """MMLU-Pro's question with its options, as its own prompt lists them."""
    lines = [f"{LETTERS[i]}. {o}" for i, o in enumerate(options)]
    return f"{stem.strip()}\nOptions:\n" + "\n".join(lines)


def mmlu_stated_letter(text: str) -> str | None:
    """The one letter a response states with MMLU-Pro's own phrase "answer is (X)", or ``None``
    (no such phrase, several different letters, or a list after it)."""
    letters = set(_MMLU_STATED_RE.findall(text))
    if len(letters) != 1 or _MMLU_LISTED_RE.search(text):
        return None
    return letters.pop()


def _conv_mmlu_pro(rec: dict[str, Any], source: str, report: LoadReport, ctx: dict[str, Any]) -> list[Any]:
    from tasks.data.answers import answer_object

    stem = _text(rec, "question")
    opts = rec.get("options")
    if not isinstance(opts, list) or len(opts) < 2 or len(opts) > 10 or not all(isinstance(o, str) for o in opts):
        raise _BadRecord("field 'options' must be a list of 2 to 10 texts")
    letter = _text(rec, "answer").strip()
    if len(letter) != 1 or letter not in LETTERS[: len(opts)]:
        raise _BadRecord(f"field 'answer' must be an option letter A-{LETTERS[len(opts) - 1]}, got {letter!r}")
    idx = rec.get("answer_index")
    if idx is not None and idx != LETTERS.index(letter):
        raise _BadRecord(f"answer_index {idx!r} disagrees with answer {letter!r}")
    text = _text(rec, "generated_text", required=False)
    pred = rec.get("pred")
    if pred is not None and (not isinstance(pred, str) or pred not in LETTERS):
        raise _BadRecord(f"field 'pred' must be a letter A-J or null, got {pred!r}")
    category = str(rec.get("category", "")).strip().lower()
    domain = {"computer science": "engineering"}.get(category, category or "science")
    q = mmlu_question(stem, opts)
    key = question_key(stem)
    model = str(rec.get("model") or ctx.get("stem") or source)
    base_meta = {"question_id": rec.get("question_id"), "category": category, "src": rec.get("src"),
                 "options": list(opts), "question_key": key, "stem": stem.strip()}
    out: list[Any] = []
    option_text = opts[LETTERS.index(letter)].strip()
    open_text = _strip_dollars(option_text).rstrip(".").strip()
    out.append(_item(source, q, letter, letter, "choice", domain, base_meta | {"answer_object_from": "options"},
                     key_text=stem))
    open_obj = answer_object(open_text)
    if open_obj in ("number", "quantity"):
        # the question without its options, the option's value as the reference (as open-form
        # benchmarks ask MMLU-Pro questions); option texts of other kinds are left to the choice base
        out.append(_item(source, stem.strip(), open_text, open_text, open_obj, domain,
                         base_meta | {"answer_object_from": "parsed", "form": "open", "choice_letter": letter},
                         key_text=stem))
    if text.strip():
        out.append(_response(source, q, letter, text, model, pred or "", domain,
                             {"kind": "model_response", "question_key": key, "pred": pred}, key_text=stem))
        stated = mmlu_stated_letter(text)
        if stated is not None and stated == pred:
            meta = {"question_id": rec.get("question_id"), "category": category, "pred": pred, "model": model,
                    "label_provenance": "official_auto", "question_key": key, "options": list(opts)}
            out.append(_mk(source, q, letter, text, pred == letter, domain, meta))
            report.counts["labelled: states one 'answer is (X)'"] += 1
        else:
            report.skipped["no single stated 'answer is (X)' (response text only)"] += 1
    else:
        report.skipped["empty response"] += 1
    return out


_CONVERTERS = {
    "autoverifier": _conv_autoverifier,
    "verifybench": _conv_verifybench,
    "reformatted": _conv_reformatted,
    "sci_verifybench": _conv_sci,
    "verifierbench": _conv_verifierbench,
    "evouna": _conv_evouna,
    "gsm8k_solutions": _conv_gsm8k,
    "olympiadbench": _conv_olympiad,
    "theoremqa": _conv_theoremqa,
    "zeroeval": _conv_zeroeval,
}
#: converters that also read the load's context (annotations, the file's stem)
_CONTEXT_CONVERTERS = {"math": _conv_math, "scibench": _conv_scibench, "mmlu_pro": _conv_mmlu_pro}


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
    annotations: str | Path | None = None,
) -> LoadResult:
    """Load a data file (or a folder of files in one format) into Examples, questions and responses.

    ``format`` forces a format (see :data:`FORMATS`); otherwise it is detected from the fields.
    ``source`` names the examples' source (default: the format, or ``evouna_nq``/``evouna_tq``).
    ``responses`` is the labelled responses file joined to a ``webinstruct`` questions file.
    ``annotations`` is MATH's answer-type file (default: ``answer_types.json`` beside the data).
    A folder loads every ``.json``/``.jsonl`` file in it, in name order, in one report.

    >>> res = load("tests/fixtures/formats/autoverifier.jsonl")  # doctest: +SKIP
    >>> res.report.loaded, res.report.errors  # doctest: +SKIP
    """
    p = Path(path)
    if p.is_dir():
        files = sorted(f for f in p.iterdir() if f.is_file() and f.suffix.lower() in (".json", ".jsonl", ".parquet"))
        if not files:
            raise FileNotFoundError(f"no .json/.jsonl/.parquet data files in {p}")
    elif p.is_file():
        files = [p]
    else:
        raise FileNotFoundError(f"data file not found: {p}")
    fmt = format or detect_format(files[0])
    if fmt not in FORMATS:
        raise ValueError(f"unknown format {fmt!r}; expected one of {', '.join(FORMATS)}")
    if fmt == "webinstruct":
        if responses is None:
            raise LoadError(f"{p}: WebInstruct questions carry no labels; pass responses=<labelled file>")
        return _load_webinstruct(p, Path(responses), source=source or "webinstruct", strict=strict)
    src = source or _default_source(fmt, p)
    report = LoadReport(path=str(p), format=fmt)
    ctx: dict[str, Any] = {}
    if fmt == "math":
        ann = Path(annotations) if annotations is not None else files[0].with_name("answer_types.json")
        if ann.is_file():
            ctx["annotations"] = load_math_annotations(ann, report, strict)
            report.notes.append(f"answer objects from {ann.name} ({len(ctx['annotations'])} annotations)")
        elif annotations is not None:
            raise FileNotFoundError(f"annotation file not found: {ann}")
        else:
            report.notes.append(f"no {ann.name} beside the data: answer objects read from the answers")
    result = LoadResult([], report)
    for f in files:
        if fmt == "math" and f.name == "answer_types.json":
            continue
        ctx["stem"] = f.stem
        _load_file(f, fmt, src, report, strict, ctx, result)
    _dedupe_ids(result.examples, report)
    seen: set[str] = set()
    result.questions = [q for q in result.questions if not (q.id in seen or seen.add(q.id))]
    report.loaded = len(result.examples)
    report.questions = len(result.questions)
    report.responses = len(result.responses)
    report.skipped = Counter({k: v for k, v in report.skipped.items() if v})
    return result


def _load_file(p: Path, fmt: str, src: str, report: LoadReport, strict: bool, ctx: dict[str, Any],
               result: LoadResult) -> None:
    conv = _CONVERTERS.get(fmt)
    cconv = _CONTEXT_CONVERTERS.get(fmt)
    for loc, rec in _iter_records(p):
        report.records += 1
        try:
            if isinstance(rec, _BadRecord):
                raise rec
            if not isinstance(rec, dict):
                raise _BadRecord(f"record must be a JSON object, got {type(rec).__name__}")
            got = cconv(rec, src, report, ctx) if cconv is not None else conv(rec, src, report)
        except _BadRecord as exc:
            _record_issue(report, LoadIssue(str(p), loc, str(exc)), strict)
            continue
        for obj in got:
            obj.meta.setdefault("origin", f"{p.name}:{loc}")
            if isinstance(obj, Example):
                result.examples.append(obj)
            elif isinstance(obj, QuestionItem):
                result.questions.append(obj)
            else:
                result.responses.append(obj)


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
