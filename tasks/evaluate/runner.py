"""The evaluation runner: verifiers side by side on the benchmarks, as pure functions.

The pieces, in the order a run uses them::

    cfg = load_eval_config("configs/eval.yaml", benchmark="verifybench", limit=50)
    sets = load_eval_sets(cfg)                       # {benchmark: [Example, ...]}
    verifiers = build_verifiers(cfg)                 # {name: Verifier | MathVerifyBaseline}
    results = run_all(verifiers, sets, cfg)          # [ExampleResult, ...]
    report = summarize(results, cfg, ...)            # the evaluation JSON (see docs/evaluation.md)

Nothing here imports Prefect; ``flows/evaluate.py`` wraps these functions in tasks and
``autoverifier eval`` calls them directly.
"""

from __future__ import annotations

import json
import os
import time
import uuid
from collections import defaultdict
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any, Protocol

import yaml

from tasks.data.schema import Example
from tasks.evaluate.baselines import MathVerifyBaseline
from tasks.evaluate.metrics import (
    ExampleResult,
    accuracy,
    breakdown,
    corrections,
    fallback_calls,
    fallback_calls_avoided,
    macro_accuracy,
    micro_accuracy,
    paired_comparison,
    removal_ablations,
    summary,
)
from tasks.paths import repo_path, shared_root

DEFAULT_BENCHMARKS = ("verifybench", "verifybench_hard", "sci_verifybench")
KNOWN_BENCHMARKS = ("verifybench", "verifybench_hard", "sci_verifybench", "verifierbench")
BASE_VERIFIERS = ("autoverifier", "fallback_only", "math_verify")
LLM_VERIFIERS = ("llm_only", "autoverifier_llm")
SNIPPET_CHARS = 400


class EvalError(RuntimeError):
    """A configuration or data problem that stops an evaluation run."""


# --------------------------------------------------------------------------- configuration


@dataclass(slots=True)
class EvalConfig:
    """Everything an evaluation run needs; read from ``configs/eval.yaml`` and CLI overrides."""

    benchmarks: list[str] = field(default_factory=lambda: list(DEFAULT_BENCHMARKS))
    benchmark_roots: dict[str, str] = field(default_factory=dict)  # name -> full-release path
    shared: str | None = None
    artifact: str | None = None
    fallback: str = "offline"
    fallback_config: dict[str, Any] = field(default_factory=dict)
    verifiers: list[str] = field(default_factory=lambda: list(BASE_VERIFIERS))
    llm: dict[str, Any] | None = None  # {"provider": "openai"|"anthropic", ...fallback_config}
    workers: int = 4
    limit: int | None = None
    db: str | None = "data/autoverifier.duckdb"
    json_path: str | None = None
    math_verify: dict[str, Any] = field(
        default_factory=lambda: {"parsing_timeout": 5, "timeout_seconds": 5, "float_rounding": 6}
    )
    pool_config: str | None = "configs/pool.yaml"
    decontamination: bool = True
    disagreements: int = 30

    def resolve(self, path: str | None) -> Path | None:
        """A configured path made absolute against the repository root."""
        if not path:
            return None
        return repo_path(path)

    def to_dict(self) -> dict[str, Any]:
        return {k: getattr(self, k) for k in self.__slots__}  # type: ignore[attr-defined]


def load_eval_config(path: str | os.PathLike[str] | None = None, **overrides: Any) -> EvalConfig:
    """Read an eval YAML file (optional) and apply non-``None`` overrides.

    ``benchmark`` (one name) is accepted as an override for ``benchmarks``.
    """
    data: dict[str, Any] = {}
    if path is not None:
        p = Path(path)
        if not p.is_file():
            raise EvalError(f"eval config not found: {p}")
        loaded = yaml.safe_load(p.read_text(encoding="utf-8")) or {}
        if not isinstance(loaded, dict):
            raise EvalError(f"eval config {p} must be a mapping")
        data.update(loaded)
    if "json" in data:
        data["json_path"] = data.pop("json")
    bench = overrides.pop("benchmark", None)
    if bench:
        overrides["benchmarks"] = [bench]
    data.update({k: v for k, v in overrides.items() if v is not None})
    known = set(EvalConfig.__slots__)  # type: ignore[attr-defined]
    unknown = sorted(set(data) - known)
    if unknown:
        raise EvalError(f"unknown eval config keys: {', '.join(unknown)}")
    cfg = EvalConfig(**data)
    bad = [b for b in cfg.benchmarks if b not in KNOWN_BENCHMARKS]
    if bad:
        raise EvalError(f"unknown benchmark(s) {bad}; known: {', '.join(KNOWN_BENCHMARKS)}")
    if cfg.limit is not None and cfg.limit < 1:
        raise EvalError("limit must be a positive integer")
    bad_v = [v for v in cfg.verifiers if v not in BASE_VERIFIERS + LLM_VERIFIERS]
    if bad_v:
        raise EvalError(f"unknown verifier(s) {bad_v}")
    if "autoverifier" not in cfg.verifiers:
        raise EvalError("the verifier list must include 'autoverifier'")
    return cfg


# --------------------------------------------------------------------------- data


def load_eval_sets(cfg: EvalConfig, loader: Callable[..., list[Example]] | None = None) -> dict[str, list[Example]]:
    """Load every configured benchmark (the shared samples unless a full-release root is set)."""
    if loader is None:
        from tasks.data.loaders import load_benchmark as loader  # noqa: N813 - data layer, imported lazily
    sets: dict[str, list[Example]] = {}
    for name in cfg.benchmarks:
        root = cfg.benchmark_roots.get(name)
        if root is None and cfg.shared:
            root = str(shared_root(cfg.shared) / "benchmarks")
        try:
            examples = list(loader(name, root=root))
        except FileNotFoundError as e:
            raise EvalError(f"benchmark {name}: data not found ({e})") from e
        if cfg.limit:
            examples = examples[: cfg.limit]
        if not examples:
            raise EvalError(f"benchmark {name}: no examples loaded")
        sets[name] = examples
    return sets


def data_provenance(cfg: EvalConfig, sets: Mapping[str, Sequence[Example]]) -> dict[str, dict[str, Any]]:
    """Which data each benchmark's figures come from (shared samples or a configured full release)."""
    out: dict[str, dict[str, Any]] = {}
    for name, exs in sets.items():
        full = name in cfg.benchmark_roots
        out[name] = {
            "n": len(exs),
            "kind": "full release" if full else "sample",
            "path": cfg.benchmark_roots[name] if full else str(shared_root(cfg.shared) / "benchmarks" / name),
            "limited_to": cfg.limit,
            "positives": sum(e.label for e in exs),
        }
    return out


# --------------------------------------------------------------------------- verifiers


class VerifierLike(Protocol):
    """What the runner needs from a verifier (the runtime's ``Verifier`` satisfies it)."""

    def verify_batch(self, rows: Iterable[Mapping[str, Any]], workers: int = 1) -> list[Any]: ...


def module_groups(verifier: Any) -> dict[str, str]:
    """Module id -> group for a runtime verifier (empty for a baseline)."""
    return {m.id: m.group for m in getattr(verifier, "modules", ())}


def build_verifiers(cfg: EvalConfig) -> dict[str, VerifierLike]:
    """The verifiers to compare, by name.

    ``fallback_only`` loads the same artifact with every module group excluded, so it shares
    the artifact's prompt template and guidance and differs only by the code modules.
    """
    from verifier_runtime import load_verifier

    artifact = str(cfg.resolve(cfg.artifact)) if cfg.artifact else None
    out: dict[str, VerifierLike] = {}
    full = load_verifier(artifact, fallback=cfg.fallback, fallback_config=dict(cfg.fallback_config))
    groups = {m.group for m in full.modules}
    for name in cfg.verifiers:
        if name == "autoverifier":
            out[name] = full
        elif name == "fallback_only":
            out[name] = load_verifier(
                artifact, fallback=cfg.fallback, fallback_config=dict(cfg.fallback_config), exclude_groups=groups
            )
        elif name == "math_verify":
            out[name] = MathVerifyBaseline(cfg.math_verify)
    if cfg.llm:
        llm = dict(cfg.llm)
        provider = llm.pop("provider", None)
        if provider not in ("openai", "anthropic"):
            raise EvalError("llm.provider must be 'openai' or 'anthropic'")
        out["llm_only"] = load_verifier(artifact, fallback=provider, fallback_config=llm, exclude_groups=groups)
        out["autoverifier_llm"] = load_verifier(artifact, fallback=provider, fallback_config=llm)
    return out


def _snippet(text: str, tail: bool = False) -> str:
    text = text or ""
    if len(text) <= SNIPPET_CHARS:
        return text
    return ("…" + text[-SNIPPET_CHARS:]) if tail else (text[:SNIPPET_CHARS] + "…")


def answer_type(ex: Example) -> str:
    """The example's answer type as the loader recorded it (``answer_type`` or ``question_type``)."""
    m = ex.meta or {}
    return str(m.get("answer_type") or m.get("question_type") or "")


def run_verifier(
    name: str, verifier: VerifierLike, benchmark: str, examples: Sequence[Example], workers: int = 4
) -> list[ExampleResult]:
    """Run one verifier over one benchmark's examples and pair each verdict with its label."""
    rows = [{"question": e.question, "reference": e.reference, "response": e.response} for e in examples]
    verdicts = verifier.verify_batch(rows, workers=workers)
    if len(verdicts) != len(examples):
        raise EvalError(f"{name} returned {len(verdicts)} verdicts for {len(examples)} examples")
    groups = module_groups(verifier)
    out = []
    for ex, v in zip(examples, verdicts, strict=True):
        out.append(
            ExampleResult(
                example_id=ex.id,
                benchmark=benchmark,
                verifier=name,
                pred=v.correct,
                label=bool(ex.label),
                decided_by=str(v.decided_by),
                fallback_called=bool(v.fallback_called),
                group=groups.get(str(v.decided_by), ""),
                reason=str(v.reason),
                answer_type=answer_type(ex),
                domain=ex.domain or "",
                elapsed_ms=float(getattr(v, "elapsed_ms", 0.0) or 0.0),
            )
        )
    return out


def run_all(
    verifiers: Mapping[str, VerifierLike],
    sets: Mapping[str, Sequence[Example]],
    workers: int = 4,
    timings: dict[str, float] | None = None,
) -> list[ExampleResult]:
    """Every verifier on every benchmark; ``timings`` (if given) collects seconds per verifier."""
    results: list[ExampleResult] = []
    for bench, examples in sets.items():
        for name, v in verifiers.items():
            t0 = time.perf_counter()
            results.extend(run_verifier(name, v, bench, examples, workers=workers))
            if timings is not None:
                timings[name] = timings.get(name, 0.0) + time.perf_counter() - t0
    return results


# --------------------------------------------------------------------------- summary


def _by(results: Iterable[ExampleResult]) -> dict[str, dict[str, list[ExampleResult]]]:
    table: dict[str, dict[str, list[ExampleResult]]] = defaultdict(lambda: defaultdict(list))
    for r in results:
        table[r.benchmark][r.verifier].append(r)
    return table


def disagreements(
    results: Sequence[ExampleResult], sets: Mapping[str, Sequence[Example]] | None, limit: int = 30
) -> list[dict[str, Any]]:
    """Examples autoverifier gets wrong, direct errors first, with its reason and short text snippets."""
    texts = {(b, e.id): e for b, exs in (sets or {}).items() for e in exs}
    wrong = [r for r in results if r.verifier == "autoverifier" and not r.is_correct]
    # direct errors first; within each kind, benchmarks take turns so every benchmark is shown
    queues: dict[tuple[bool, str], list[ExampleResult]] = defaultdict(list)
    for r in sorted(wrong, key=lambda r: r.example_id):
        queues[(not r.direct, r.benchmark)].append(r)
    ordered: list[ExampleResult] = []
    for kind in (False, True):
        qs = [queues[k] for k in sorted(queues) if k[0] == kind]
        for i in range(max((len(q) for q in qs), default=0)):
            ordered.extend(q[i] for q in qs if i < len(q))
    out = []
    for r in ordered[:limit]:
        ex = texts.get((r.benchmark, r.example_id))
        d = {
            "benchmark": r.benchmark,
            "example_id": r.example_id,
            "label": r.label,
            "pred": r.pred,
            "decided_by": r.decided_by,
            "group": r.group,
            "direct": r.direct,
            "reason": r.reason,
            "answer_type": r.answer_type,
        }
        if ex is not None:
            d.update(
                question=_snippet(ex.question),
                reference=_snippet(ex.reference, tail=True),
                response=_snippet(ex.response, tail=True),
            )
        out.append(d)
    return out


def summarize(
    results: Sequence[ExampleResult],
    *,
    sets: Mapping[str, Sequence[Example]] | None = None,
    disagreement_limit: int = 30,
) -> dict[str, Any]:
    """The evaluation JSON from per-example results.

    Required keys: ``benchmarks`` (per benchmark, per verifier: ``n``, ``accuracy``,
    ``accuracy_ci``, ``direct_coverage``, ``direct_precision``, ``fallback_calls``) and
    ``macro`` (per verifier). Extra keys: ``micro``, ``paired``, ``corrections``,
    ``ablations``, ``breakdowns``, ``disagreements``.
    """
    table = _by(results)
    benches = sorted(table)
    verifiers = sorted({r.verifier for r in results})
    out: dict[str, Any] = {"benchmarks": {}, "macro": {}, "micro": {}}
    for b in benches:
        out["benchmarks"][b] = {v: summary(rs) for v, rs in sorted(table[b].items())}
    for v in verifiers:
        per = {b: accuracy(table[b][v]) for b in benches if table[b].get(v)}
        if len(per) == len(benches):  # a macro average only over the full benchmark set
            out["macro"][v] = macro_accuracy(per)
        counts = {b: (sum(r.is_correct for r in table[b][v]), len(table[b][v])) for b in benches if table[b].get(v)}
        out["micro"][v] = micro_accuracy(counts)

    paired: dict[str, Any] = {}
    corr: dict[str, Any] = {}
    ablations: dict[str, Any] = {}
    scopes: dict[str, dict[str, list[ExampleResult]]] = {b: table[b] for b in benches}
    pooled: dict[str, list[ExampleResult]] = defaultdict(list)
    for b in benches:
        for v, rs in table[b].items():
            pooled[v].extend(rs)
    scopes["all"] = pooled
    for scope, by_v in scopes.items():
        auto = by_v.get("autoverifier")
        if not auto:
            continue
        paired[scope] = {}
        for other in ("fallback_only", "math_verify", "llm_only"):
            if by_v.get(other):
                paired[scope][f"autoverifier_vs_{other}"] = paired_comparison(auto, by_v[other]).to_dict()
        if by_v.get("autoverifier_llm") and by_v.get("llm_only"):
            paired[scope]["autoverifier_llm_vs_llm_only"] = paired_comparison(
                by_v["autoverifier_llm"], by_v["llm_only"]
            ).to_dict()
        fb = by_v.get("fallback_only")
        if fb:
            c = corrections(auto, fb)
            corr[scope] = {
                "corrected": c.corrected,
                "new_errors": c.new_errors,
                "net": c.net,
                "fallback_calls": fallback_calls(auto),
                "fallback_only_calls": fallback_calls(fb),
                "fallback_calls_avoided": fallback_calls_avoided(fallback_calls(auto), fallback_calls(fb)),
            }
            ablations[scope] = [a.to_dict() for a in removal_ablations(auto, fb)]
    out["paired"] = paired
    out["corrections"] = corr
    out["ablations"] = ablations
    out["breakdowns"] = {
        b: {
            v: {
                "answer_type": breakdown(rs, lambda r: r.answer_type),
                "domain": breakdown(rs, lambda r: r.domain),
            }
            for v, rs in sorted(table[b].items())
        }
        for b in benches
    }
    out["disagreements"] = disagreements(results, sets, disagreement_limit)
    return out


# --------------------------------------------------------------------------- decontamination


def decontamination(cfg: EvalConfig, sets: Mapping[str, Sequence[Example]]) -> dict[str, Any]:
    """Audit every evaluation set against the construction pool; says why when it cannot."""
    if not cfg.decontamination:
        return {"status": "skipped", "reason": "decontamination disabled in the eval config"}
    try:
        from tasks.data.decontam import audit
        from tasks.data.pool import build_pool
    except ImportError as e:
        return {"status": "unavailable", "reason": f"pool or audit code not importable: {e}"}
    pool_cfg_path = cfg.resolve(cfg.pool_config)
    if pool_cfg_path is None or not pool_cfg_path.is_file():
        return {"status": "unavailable", "reason": f"pool config not found: {cfg.pool_config}"}
    try:
        pool_cfg = yaml.safe_load(pool_cfg_path.read_text(encoding="utf-8")) or {}
        pool = build_pool(pool_cfg)
        report = audit(pool, {k: list(v) for k, v in sets.items()})
    except Exception as e:  # noqa: BLE001 - reported in the evaluation, never silently dropped
        return {"status": "failed", "reason": f"{type(e).__name__}: {e}"}
    d = report.to_dict() if hasattr(report, "to_dict") else dict(report)
    return {"status": "ok", "pool_config": str(cfg.pool_config), "pool_size": _len_or_none(pool), "report": d}


def _len_or_none(x: Any) -> int | None:
    try:
        return len(x)
    except TypeError:
        return None


# --------------------------------------------------------------------------- storage


def result_rows(run_id: str, results: Iterable[ExampleResult]) -> list[dict[str, Any]]:
    """Rows for the store's ``eval_results`` table (the extra fields go into ``meta`` JSON)."""
    rows = []
    for r in results:
        meta = {
            "group": r.group,
            "reason": r.reason,
            "answer_type": r.answer_type,
            "domain": r.domain,
            "elapsed_ms": round(r.elapsed_ms, 3),
        }
        rows.append(
            {"run_id": run_id, "benchmark": r.benchmark, "verifier": r.verifier, "example_id": r.example_id,
             "correct_pred": r.pred, "label": r.label, "decided_by": r.decided_by,
             "fallback_called": r.fallback_called, "meta": meta}
        )
    return rows


def store_results(db_path: str | os.PathLike[str], run_id: str, results: Sequence[ExampleResult]) -> int:
    """Write per-example results to the store's ``eval_results``.

    Rows of the same run and benchmark written before are replaced, so a run can be stored
    benchmark by benchmark and a repeated write does not duplicate.
    """
    from tasks.data.store import Store

    with Store(db_path) as st:
        for bench in sorted({r.benchmark for r in results}):
            st.con.execute("DELETE FROM eval_results WHERE run_id = ? AND benchmark = ?", [run_id, bench])
        return st.add_eval_results(result_rows(run_id, results))


def load_results(db_path: str | os.PathLike[str], run_id: str | None = None) -> tuple[str | None, list[ExampleResult]]:
    """Read one run's results back (the most recently written run when ``run_id`` is None)."""
    from tasks.data.store import Store

    if not Path(db_path).is_file():
        raise EvalError(f"database not found: {db_path}")
    with Store(db_path, read_only=True) as st:
        if run_id is None:
            row = st.con.execute(
                "SELECT run_id FROM eval_results GROUP BY run_id ORDER BY max(rowid) DESC LIMIT 1"
            ).fetchone()
            if row is None:
                return None, []
            run_id = row[0]
        got = _dict_rows(st.con, "SELECT * FROM eval_results WHERE run_id = ? ORDER BY rowid", [run_id])
    out = []
    for g in got:
        m = g.get("meta") or {}
        m = json.loads(m) if isinstance(m, str) else m
        out.append(
            ExampleResult(g["example_id"], g["benchmark"], g["verifier"], g["correct_pred"], bool(g["label"]),
                          g["decided_by"] or "", bool(g["fallback_called"]), m.get("group", ""),
                          m.get("reason", ""), m.get("answer_type", ""), m.get("domain", ""),
                          float(m.get("elapsed_ms", 0.0)))
        )
    return run_id, out


def load_rounds(db_path: str | os.PathLike[str] | None) -> list[dict[str, Any]]:
    """The construction rounds recorded in the store (empty when there are none or no database)."""
    from tasks.data.store import Store

    if not db_path or not Path(db_path).is_file():
        return []
    with Store(db_path, read_only=True) as st:
        rows = _dict_rows(st.con, "SELECT * FROM rounds ORDER BY round")
    for r in rows:
        if isinstance(r.get("figures"), str):
            r["figures"] = json.loads(r["figures"])
    return rows


def _dict_rows(con: Any, sql: str, params: Sequence[Any] = ()) -> list[dict[str, Any]]:
    """Plain-DuckDB rows as dicts (no dataframe library needed)."""
    cur = con.execute(sql, list(params))
    cols = [c[0] for c in cur.description]
    return [dict(zip(cols, r, strict=True)) for r in cur.fetchall()]


# --------------------------------------------------------------------------- one call


@dataclass(slots=True)
class EvalRun:
    """The outcome of :func:`evaluate`: the JSON report and the per-example results."""

    report: dict[str, Any]
    results: list[ExampleResult]


def artifact_info(verifiers: Mapping[str, Any]) -> dict[str, Any]:
    """Version, modules and groups of the artifact under evaluation."""
    v = verifiers.get("autoverifier")
    mods = getattr(v, "modules", ())
    return {
        "version": getattr(v, "artifact_version", None),
        "path": getattr(getattr(v, "artifact", None), "source", None),
        "fallback": getattr(v, "fallback_name", None),
        "modules": len(mods),
        "groups": sorted({m.group for m in mods}),
    }


def honest_notes(cfg: EvalConfig, provenance: Mapping[str, Mapping[str, Any]]) -> list[str]:
    """Caveats printed with every report."""
    notes = []
    if any(p["kind"] == "sample" for p in provenance.values()):
        notes.append(
            "Figures are on the benchmark samples in the shared folder, not the official full releases; "
            "they are not official benchmark scores."
        )
    if cfg.fallback in ("offline", "none") and not cfg.llm:
        notes.append(
            f"Fallback: '{cfg.fallback}' (no LLM configured). The paper's figures use an LLM judge; "
            "absolute accuracies here are not comparable to them."
        )
    if cfg.limit:
        notes.append(f"Each benchmark was cut to its first {cfg.limit} examples (--limit).")
    missing = [b for b in KNOWN_BENCHMARKS if b not in provenance]
    if missing:
        notes.append(f"Not evaluated: {', '.join(missing)} (no data on hand or not selected); "
                     "the macro average is over the evaluated benchmarks only.")
    return notes


def run_benchmark(cfg: EvalConfig, benchmark: str, run_id: str, examples: Sequence[Example],
                  verifiers: Mapping[str, VerifierLike]) -> dict[str, Any]:
    """One step of a run: every verifier on one benchmark, the results stored under ``run_id``
    (when the config has a store). Returns the results, the rows stored and seconds per verifier."""
    timings: dict[str, float] = {}
    results = run_all(verifiers, {benchmark: examples}, workers=cfg.workers, timings=timings)
    db = cfg.resolve(cfg.db)
    rows = store_results(db, run_id, results) if db is not None else 0
    return {"benchmark": benchmark, "results": results, "rows": rows,
            "seconds": {k: round(v, 3) for k, v in timings.items()}, "artifact": artifact_info(verifiers)}


def build_report(cfg: EvalConfig, results: Sequence[ExampleResult], sets: Mapping[str, Sequence[Example]],
                 parts: Sequence[Mapping[str, Any]], decontam: dict[str, Any], *, run_id: str,
                 started: float, **run: Any) -> dict[str, Any]:
    """The evaluation JSON of a run from its results and steps (the one report builder); written
    to ``cfg.json_path`` when set."""
    report = summarize(results, sets=sets, disagreement_limit=cfg.disagreements)
    provenance = data_provenance(cfg, sets)
    report["decontamination"] = decontam
    report["artifact"] = parts[0]["artifact"] if parts else {}
    report["data"] = provenance
    report["notes"] = honest_notes(cfg, provenance)
    seconds: dict[str, float] = {}
    for p in parts:
        for k, v in p["seconds"].items():
            seconds[k] = round(seconds.get(k, 0.0) + v, 3)
    db = cfg.resolve(cfg.db)
    report["run"] = {"run_id": run_id, "verifiers": sorted(seconds), "seconds_per_verifier": seconds,
                     "config": {k: v for k, v in cfg.to_dict().items() if k not in ("llm", "fallback_config")},
                     **({"db": str(db), "rows_stored": sum(p["rows"] for p in parts)} if db is not None else {}),
                     **run, "elapsed_s": round(time.perf_counter() - started, 3)}
    if cfg.json_path:
        write_json(report, cfg.resolve(cfg.json_path))
    return report


def new_run_id() -> str:
    return time.strftime("%Y%m%dT%H%M%S") + "-" + uuid.uuid4().hex[:6]


def evaluate(
    cfg: EvalConfig,
    *,
    sets: Mapping[str, Sequence[Example]] | None = None,
    verifiers: Mapping[str, VerifierLike] | None = None,
    run_id: str | None = None,
) -> EvalRun:
    """A whole run in this process, the same steps as the ``evaluate`` flow (``flows/evaluate.py``):
    each benchmark through :func:`run_benchmark`, the decontamination audit, :func:`build_report`."""
    started = time.perf_counter()
    run_id = run_id or new_run_id()
    sets = dict(sets) if sets is not None else load_eval_sets(cfg)
    if cfg.limit:
        sets = {k: list(v)[: cfg.limit] for k, v in sets.items()}
    verifiers = dict(verifiers) if verifiers is not None else build_verifiers(cfg)
    parts = [run_benchmark(cfg, b, run_id, exs, verifiers) for b, exs in sets.items()]
    results = [r for p in parts for r in p["results"]]
    report = build_report(cfg, results, sets, parts, decontamination(cfg, sets), run_id=run_id, started=started)
    return EvalRun(report, results)


def write_json(report: Mapping[str, Any], path: str | os.PathLike[str] | None) -> None:
    """Write the evaluation JSON (creating parent folders)."""
    if path is None:
        return
    p = Path(path)
    p.parent.mkdir(parents=True, exist_ok=True)
    p.write_text(json.dumps(report, indent=2, ensure_ascii=False, default=str) + "\n", encoding="utf-8")


def with_overrides(cfg: EvalConfig, **kw: Any) -> EvalConfig:
    """A copy of ``cfg`` with the non-``None`` keyword values replaced."""
    return replace(cfg, **{k: v for k, v in kw.items() if v is not None})
