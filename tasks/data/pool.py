"""The construction pool: config-defined sources, decontaminated, split by question, with
constructed variants over the real questions.

``build_pool(PoolConfig.from_yaml("configs/pool.yaml"))``:

1. loads the configured sources: labelled examples (EVOUNA: ``human``; GSM8K and MMLU-Pro
   responses that state their answer: ``official_auto``), questions with references (MATH,
   OlympiadBench, SciBench, TheoremQA, MMLU-Pro) and real responses without labels (ZeroEval,
   MMLU-Pro, worked solutions);
2. deduplicates the labelled examples;
3. decontaminates every question against the evaluation sets: a question (all its sources,
   examples, references and responses) with an exact or fuzzy match is dropped and reported;
4. splits by question key (``construction`` / ``validation`` / ``holdout``): the same question
   from several sources (ZeroEval's problems are MATH problems) is on one side only;
5. selects the real labelled examples (per source its weight share or quota, balanced over
   domain, answer form and label);
6. constructs labelled variants (:mod:`tasks.data.diagnostics`), balanced over answer object x
   variant type x source, written into real responses of the same split;
7. reports the composition (by split, source, answer object, variant type, label provenance,
   carrier) and the seconds taken.

The same config and seed give the same pool. With no source data on disk (e.g. no shared
folder), the pool is built from the built-in seed triples (``tasks/data/seed_examples.jsonl``)
and variants made from them; the report's ``data`` field says ``builtin_seed`` instead of
``sources``.

``python -m tasks.data.pool [configs/pool.yaml] [--out DIR]`` builds the pool and prints its
composition (and writes ``report.json`` and ``composition.md`` to ``DIR``).
"""

from __future__ import annotations

import gzip
import hashlib
import json
import os
import random
import sys
import tempfile
import time
from collections import Counter, defaultdict
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import yaml

from tasks.data.decontam import audit, normalize_text
from tasks.data.diagnostics import (
    CarrierBank,
    answer_form,
    base_from_example,
    base_from_item,
    carrier_from_example,
    final_answer_text,
    generate_diagnostics,
    load_seed_examples,
)
from tasks.data.loaders import BENCHMARKS, LoadResult, load, load_benchmark
from tasks.data.schema import Example
from tasks.data.variants import Base
from tasks.paths import repo_path, shared_root

__all__ = ["SPLITS", "PoolConfig", "PoolResult", "SourceSpec", "build_pool", "composition_markdown", "example_form",
           "split_by_question"]

SPLITS = ("construction", "validation", "holdout")
#: bump when the pool's construction changes in a way that changes its examples (cache key)
POOL_VERSION = 2
#: built pools kept in the cache folder (the newest ones)
CACHE_KEEP = 4


@dataclass(slots=True)
class SourceSpec:
    """One pool source. A relative ``path`` is resolved against the shared folder."""

    name: str
    path: str
    format: str | None = None
    weight: float = 1.0  # share of the real labelled examples (sources with labels)
    quota: int | None = None  # a fixed number of labelled examples; overrides the weight share

    def resolve(self) -> Path:
        p = Path(self.path).expanduser()
        return p if p.is_absolute() else shared_root() / p


@dataclass(slots=True)
class PoolConfig:
    """The pool definition (see ``configs/pool.yaml``)."""

    sources: list[SourceSpec] = field(default_factory=list)
    target_size: int = 5000
    seed: int = 0
    split: dict[str, float] = field(default_factory=lambda: {"construction": 0.6, "validation": 0.2, "holdout": 0.2})
    diagnostics: int = 600  # constructed variants
    max_per_base: int = 6  # constructed variants per question at most
    eval_sets: list[str] = field(default_factory=list)
    eval_root: str | None = None
    fuzzy_threshold: float = 0.9
    ngram: int = 5
    decontam_policy: str = "drop"
    cache: str | None = None  # a folder for built pools (keyed by config, code and data)

    @classmethod
    def from_dict(cls, d: dict[str, Any]) -> PoolConfig:
        """From a mapping (the ``pool:`` section of a YAML file, or the whole file)."""
        if set(d) == {"pool"} and isinstance(d["pool"], dict):
            d = d["pool"]
        known = {"sources", "target_size", "seed", "split", "diagnostics", "eval_sets", "decontamination", "name",
                 "cache"}
        unknown = set(d) - known
        if unknown:
            raise ValueError(f"pool config: unknown keys {sorted(unknown)}")
        srcs = []
        for i, s in enumerate(d.get("sources") or []):
            if not isinstance(s, dict) or "path" not in s:
                raise ValueError(f"pool config: source {i} needs a 'path'")
            srcs.append(SourceSpec(name=str(s.get("name") or Path(s["path"]).stem), path=str(s["path"]),
                                   format=s.get("format"), weight=float(s.get("weight", 1.0)),
                                   quota=int(s["quota"]) if s.get("quota") is not None else None))
        if len({s.name for s in srcs}) != len(srcs):
            raise ValueError("pool config: source names must be unique")
        dec = d.get("decontamination") or {}
        diag = d.get("diagnostics", 600)
        ev = d.get("eval_sets") or []
        for name in ev:
            if name not in BENCHMARKS:
                raise ValueError(f"pool config: unknown evaluation set {name!r}; expected one of {BENCHMARKS}")
        policy = str(dec.get("policy", "drop"))
        if policy not in ("drop", "fail", "report"):
            raise ValueError(f"pool config: unknown decontamination policy {policy!r}; expected drop, fail or report")
        cfg = cls(
            sources=srcs,
            target_size=int(d.get("target_size", 5000)),
            seed=int(d.get("seed", 0)),
            split={str(k): float(v) for k, v in (d.get("split") or {"construction": 0.6, "validation": 0.2,
                                                                    "holdout": 0.2}).items()},
            diagnostics=int(diag.get("count", 600) if isinstance(diag, dict) else diag),
            max_per_base=int(diag.get("max_per_question", 6)) if isinstance(diag, dict) else 6,
            eval_sets=list(ev),
            eval_root=dec.get("eval_root"),
            fuzzy_threshold=float(dec.get("fuzzy_threshold", 0.9)),
            ngram=int(dec.get("ngram", 5)),
            decontam_policy=policy,
            cache=d.get("cache"),
        )
        _check_fractions(cfg.split)
        if cfg.target_size < 1 or cfg.diagnostics < 0 or cfg.max_per_base < 1:
            raise ValueError("pool config: target_size must be >= 1, diagnostics >= 0, max_per_question >= 1")
        return cfg

    @classmethod
    def from_yaml(cls, path: str | Path) -> PoolConfig:
        data = yaml.safe_load(Path(path).read_text(encoding="utf-8")) or {}
        if not isinstance(data, dict):
            raise ValueError(f"{path}: a pool config must be a mapping")
        return cls.from_dict(data)

    def fingerprint(self) -> str:
        """What the built pool depends on: this config, the data files (size, mtime), the pool's
        code and the toolkit's (which locates answers and checks rewrites)."""
        h = hashlib.sha256()
        cfg = {k: getattr(self, k) for k in self.__slots__ if k != "cache"}
        cfg["sources"] = [vars_of(s) for s in self.sources]
        h.update(json.dumps(cfg, sort_keys=True, default=str).encode())
        h.update(f"v{POOL_VERSION}".encode())
        for s in self.sources:
            for f in _data_files(s.resolve()):
                st = f.stat()
                h.update(f"{f}:{st.st_size}:{int(st.st_mtime)}".encode())
        for name in self.eval_sets:
            base = Path(self.eval_root) if self.eval_root else shared_root() / "benchmarks"
            for f in _data_files(base / name):
                st = f.stat()
                h.update(f"{f}:{st.st_size}:{int(st.st_mtime)}".encode())
        here = Path(__file__).resolve().parent
        from verifier_runtime import toolkit

        for d in (here, Path(toolkit.__file__).resolve().parent):
            for f in sorted(d.rglob("*.py")):
                h.update(f.read_bytes())
        h.update((here / "seed_examples.jsonl").read_bytes())
        return h.hexdigest()[:20]


def vars_of(s: SourceSpec) -> dict[str, Any]:
    return {k: getattr(s, k) for k in s.__slots__}


def _data_files(p: Path) -> list[Path]:
    if p.is_file():
        return [p]
    if p.is_dir():
        return sorted(f for f in p.rglob("*") if f.is_file())
    return []


@dataclass(slots=True)
class PoolResult:
    examples: list[Example]
    report: dict[str, Any]

    def split(self, name: str) -> list[Example]:
        """The examples of one split: ``construction`` (drafted from), ``validation`` (candidates
        are checked there, never drafted from) or ``holdout``."""
        return [e for e in self.examples if e.split == name]

    def __len__(self) -> int:
        return len(self.examples)

    def __iter__(self) -> Iterator[Example]:
        return iter(self.examples)

    def write_report(self, folder: str | Path) -> Path:
        """``report.json`` and ``composition.md`` in ``folder``; returns the folder."""
        out = Path(folder)
        out.mkdir(parents=True, exist_ok=True)
        (out / "report.json").write_text(json.dumps(self.report, indent=1, sort_keys=True, default=str) + "\n",
                                         encoding="utf-8")
        (out / "composition.md").write_text(composition_markdown(self.report) + "\n", encoding="utf-8")
        return out


def _check_fractions(fr: dict[str, float]) -> None:
    if not fr or any(v < 0 for v in fr.values()) or abs(sum(fr.values()) - 1.0) > 1e-6:
        raise ValueError(f"split fractions must be non-negative and sum to 1, got {fr}")


def _unit_hash(text: str, seed: int) -> float:
    h = hashlib.sha256(f"{seed}\x1f{text}".encode()).digest()
    return int.from_bytes(h[:8], "big") / 2**64


class _Splitter:
    """A question key's split, by a seeded hash of the key."""

    def __init__(self, fractions: dict[str, float], seed: int) -> None:
        _check_fractions(fractions)
        self.names = list(fractions)
        self.bounds = []
        acc = 0.0
        for n in self.names:
            acc += fractions[n]
            self.bounds.append(acc)
        self.seed = seed
        self.cache: dict[str, str] = {}

    def __call__(self, key: str) -> str:
        name = self.cache.get(key)
        if name is None:
            u = _unit_hash(key, self.seed)
            name = next((n for n, b in zip(self.names, self.bounds, strict=True) if u < b), self.names[-1])
            self.cache[key] = name
        return name


def split_by_question(
    examples: list[Example], fractions: dict[str, float] | None = None, seed: int = 0
) -> dict[str, list[Example]]:
    """Assign each example to a split by a seeded hash of its question key (``meta.question_key``,
    else the normalised question), so every example of one question lands on the same side,
    whatever source it came from and whatever cue a variant added. Sets ``example.split`` and
    returns ``{split_name: examples}`` (default ``construction`` 0.6 / ``validation`` 0.2 /
    ``holdout`` 0.2)."""
    sp = _Splitter(fractions or {"construction": 0.6, "validation": 0.2, "holdout": 0.2}, seed)
    out: dict[str, list[Example]] = {n: [] for n in sp.names}
    for ex in examples:
        ex.split = sp(ex.question_key)
        out[ex.split].append(ex)
    return out


def example_form(ex: Example) -> str:
    """The answer form of an example's bare final answer (see :func:`answer_form`)."""
    m = ex.meta or {}
    ans = m.get("final_answer") or m.get("answer") or m.get("base_answer")
    if not ans:
        aliases = m.get("reference_aliases")
        ans = aliases[0] if aliases else final_answer_text(ex.reference)
    return answer_form(str(ans))


def _content_key(ex: Example) -> tuple[str, str, str]:
    return (normalize_text(ex.question), normalize_text(ex.reference), ex.response.strip())


def _dedupe(examples: list[Example]) -> tuple[list[Example], dict[str, int]]:
    """Drop repeated triples (keeping the first) and triples labelled both ways (all copies)."""
    groups: dict[tuple[str, str, str], list[Example]] = defaultdict(list)
    for ex in examples:
        groups[_content_key(ex)].append(ex)
    kept, dup, conflict = [], 0, 0
    for g in groups.values():
        if len({e.label for e in g}) > 1:
            conflict += len(g)
            continue
        kept.append(g[0])
        dup += len(g) - 1
    return kept, {"duplicates_dropped": dup, "conflicting_labels_dropped": conflict}


def _balanced_select(examples: list[Example], n: int, rng: random.Random) -> list[Example]:
    """Round-robin over (domain, answer form, label) strata, seeded order within each."""
    strata: dict[tuple[str, str, bool], list[Example]] = defaultdict(list)
    for ex in sorted(examples, key=lambda e: e.id):
        strata[(ex.domain, example_form(ex), ex.label)].append(ex)
    keys = sorted(strata)
    for k in keys:
        rng.shuffle(strata[k])
    out: list[Example] = []
    pos = dict.fromkeys(keys, 0)
    while len(out) < n:
        progressed = False
        for k in keys:
            if len(out) >= n:
                break
            if pos[k] < len(strata[k]):
                out.append(strata[k][pos[k]])
                pos[k] += 1
                progressed = True
        if not progressed:
            break
    return out


def _quotas(cfg: PoolConfig, available: dict[str, int], total: int) -> dict[str, int]:
    fixed = {s.name: min(s.quota, available[s.name]) for s in cfg.sources if s.quota is not None and s.name in available}
    rest = max(0, total - sum(fixed.values()))
    weighted = {s.name: s.weight for s in cfg.sources if s.quota is None and available.get(s.name) and s.weight > 0}
    wsum = sum(weighted.values())
    q = dict(fixed)
    for name, w in weighted.items():
        q[name] = min(available[name], int(round(rest * w / wsum))) if wsum else 0
    # Hand what a small source could not fill to the others, in config order.
    short = total - sum(q.values())
    for name in weighted:
        if short <= 0:
            break
        extra = min(short, available[name] - q[name])
        q[name] += extra
        short -= extra
    return q


# --------------------------------------------------------------------------- decontamination by question


def _decontaminate(cfg: PoolConfig, loaded: dict[str, LoadResult], report: dict[str, Any]) -> set[str]:
    """Question keys with an exact or fuzzy question match in an evaluation set (all texts of a
    question are audited: the question as asked, and an MMLU-Pro stem without its options)."""
    eval_sets: dict[str, list[Example]] = {}
    for name in cfg.eval_sets:
        try:
            eval_sets[name] = load_benchmark(name, cfg.eval_root)
        except FileNotFoundError as exc:
            report.setdefault("eval_sets_missing", []).append(f"{name}: {exc}")
    if not eval_sets:
        return set()
    texts: dict[tuple[str, str], tuple[str, str]] = {}  # (key, normalised text) -> (source, text)
    for src, res in loaded.items():
        objs: list[Any] = [*res.examples, *res.questions, *res.responses]
        for o in objs:
            for t in (o.question, (o.meta or {}).get("stem")):
                if t:
                    texts.setdefault((o.question_key, normalize_text(t)), (src, t))
    proxies, owner = [], {}
    for i, ((key, _nt), (src, t)) in enumerate(sorted(texts.items())):
        pid = f"q{i}"
        proxies.append(Example(pid, t, "", "", True, src))
        owner[pid] = (key, src, t)
    dr = audit(proxies, eval_sets, fuzzy_threshold=cfg.fuzzy_threshold, ngram=cfg.ngram)
    bad_keys: set[str] = set()
    matches: dict[tuple[str, str, str], dict[str, Any]] = {}
    for s in dr.sets.values():
        for kind, eid, pid, score in s.matches:
            key, src, t = owner[pid]
            bad_keys.add(key)
            m = matches.setdefault((s.name, key, src), {"eval_set": s.name, "eval_ids": [], "kind": kind,
                                                        "score": score, "pool_source": src, "question": t[:120]})
            if eid not in m["eval_ids"]:
                m["eval_ids"].append(eid)
    d = dr.to_dict()
    for v in d["sets"].values():
        v.pop("examples", None)
    report["decontamination"] = d | {
        "policy": cfg.decontam_policy,
        "audited_questions": len(proxies),
        "contaminated_questions": len(bad_keys),
        # one row per (evaluation set, pool question, source), with the evaluation ids it matched
        "matches": sorted(matches.values(), key=lambda m: (m["eval_set"], m["pool_source"], m["question"]))[:200],
        "matches_by_kind": dict(Counter(m[0] for s in dr.sets.values() for m in s.matches)),
        "markdown": dr.to_markdown("question texts"),
    }
    if cfg.decontam_policy == "fail" and bad_keys:
        from tasks.data.decontam import ContaminationError

        raise ContaminationError(f"{len(bad_keys)} pool questions match evaluation items "
                                 f"({report['decontamination']['matches_by_kind']})")
    report["_eval_sets"] = eval_sets
    return bad_keys if cfg.decontam_policy == "drop" else set()


def _drop_keys(loaded: dict[str, LoadResult], bad: set[str]) -> dict[str, dict[str, int]]:
    dropped: dict[str, dict[str, int]] = {}
    for src, res in loaded.items():
        counts = {}
        for attr in ("examples", "questions", "responses"):
            items = getattr(res, attr)
            kept = [o for o in items if o.question_key not in bad]
            if len(kept) != len(items):
                counts[attr] = len(items) - len(kept)
            setattr(res, attr, kept)
        if counts:
            dropped[src] = counts
    return dropped


# --------------------------------------------------------------------------- composition


def _object_of(e: Example) -> str:
    m = e.meta or {}
    return str(m.get("answer_object") or "")


def _provenance_kind(p: str) -> str:
    return p.split(":", 1)[0] if p else "unknown"


def composition(examples: list[Example]) -> dict[str, Any]:
    """Counts by split, source, base source, answer object, variant type, label provenance,
    label and carrier, and the (split x source x answer object x variant family) table."""
    def count(f) -> dict[str, int]:
        return dict(sorted(Counter(f(e) for e in examples).items()))

    def base_source(e: Example) -> str:
        return str(e.meta.get("base_source") or e.source) if e.source == "constructed" else e.source

    table: Counter[tuple[str, str, str, str]] = Counter(
        (e.split, base_source(e), _object_of(e), str(e.meta.get("variant_family") or "real")) for e in examples)
    return {
        "size": len(examples),
        "by_split": count(lambda e: e.split),
        "by_source": count(lambda e: e.source),
        "by_base_source": count(base_source),
        "by_answer_object": count(_object_of),
        "by_variant": count(lambda e: str(e.meta.get("variant") or "real")),
        "by_variant_family": count(lambda e: str(e.meta.get("variant_family") or "real")),
        "by_label_provenance": count(lambda e: _provenance_kind(e.label_provenance)),
        "by_label_provenance_detail": count(lambda e: e.label_provenance or "unknown"),
        "by_label": {"correct": sum(e.label for e in examples), "incorrect": sum(not e.label for e in examples)},
        "by_split_label": count(lambda e: f"{e.split}:{'correct' if e.label else 'incorrect'}"),
        "by_carrier": count(lambda e: (f"{e.meta['carrier'].get('relation')}:{e.meta['carrier'].get('kind')}"
                                       if isinstance(e.meta.get("carrier"), dict) else "real response")),
        "by_domain": count(lambda e: e.domain),
        "by_form": count(example_form),
        "table": [{"split": k[0], "source": k[1], "answer_object": k[2], "family": k[3], "n": n}
                  for k, n in sorted(table.items())],
    }


def composition_markdown(report: dict[str, Any]) -> str:
    """The pool's composition as Markdown tables (what the pool builder prints)."""
    comp = report.get("composition") or {}
    lines = [f"Pool: {comp.get('size', 0)} examples ({report.get('data', '?')}), seed {report.get('seed')}, "
             f"built in {report.get('seconds', '?')} s{' (from cache)' if report.get('from_cache') else ''}."]

    def two_col(title: str, d: dict[str, int]) -> None:
        total = sum(d.values()) or 1
        lines.extend(["", f"| {title} | n | share |", "|---|---:|---:|"])
        lines.extend(f"| {k or '-'} | {v} | {v / total:.1%} |" for k, v in sorted(d.items(), key=lambda kv: -kv[1]))

    for key, title in (("by_split", "split"), ("by_base_source", "source (constructed: its base's)"),
                       ("by_answer_object", "answer object"), ("by_label_provenance", "label provenance"),
                       ("by_variant_family", "variant family"), ("by_variant", "variant type"),
                       ("by_carrier", "carrier (relation:kind)"), ("by_split_label", "split:label")):
        if comp.get(key):
            two_col(title, comp[key])
    loads = report.get("loads") or []
    if loads:
        lines.extend(["", "| source | labelled | questions | responses | errors | skipped |", "|---|---:|---:|---:|---:|---|"])
        for ld in loads:
            sk = "; ".join(f"{k}: {v}" for k, v in (ld.get("skipped") or {}).items())
            lines.append(f"| {ld['name']} | {ld['loaded']} | {ld['questions']} | {ld['responses']} | {ld['errors']} "
                         f"| {sk} |")
    dec = report.get("decontamination")
    if dec:
        lines.extend(["", f"Decontamination ({dec['policy']}): {dec['audited_questions']} questions audited, "
                      f"{dec['contaminated_questions']} contaminated; matches by kind {dec['matches_by_kind']}; "
                      f"dropped {report.get('decontamination_dropped', {})}.", "", dec.get("markdown", "")])
    return "\n".join(lines)


# --------------------------------------------------------------------------- the build


def _resolve_config(config: PoolConfig | dict[str, Any] | str | Path) -> PoolConfig:
    if isinstance(config, PoolConfig):
        return config
    if isinstance(config, dict):
        return PoolConfig.from_dict(config)
    return PoolConfig.from_yaml(config)


def build_pool(config: PoolConfig | dict[str, Any] | str | Path, store: Any | None = None, *,
               use_cache: bool = True) -> PoolResult:
    """Build the construction pool (see module docstring); writes it to ``store`` if given.

    ``config`` is a :class:`PoolConfig`, a mapping, or the path of a YAML file. With
    ``cache`` set in the config (and ``use_cache``), a pool built before from the same
    config, data and code is read back instead of rebuilt."""
    cfg = _resolve_config(config)
    t0 = time.perf_counter()
    cache_file = None
    if cfg.cache and use_cache:
        fp = cfg.fingerprint()
        cache_file = repo_path(cfg.cache) / f"pool-{fp}.jsonl.gz"
        if cache_file.is_file():
            res = _read_cache(cache_file)
            if res is not None:
                res.report["from_cache"] = str(cache_file)
                res.report["cache_read_seconds"] = round(time.perf_counter() - t0, 2)
                if store is not None:
                    store.upsert_examples(res.examples)
                    res.report["stored"] = len(res.examples)
                return res
    res = _build(cfg)
    if cache_file is not None:
        _write_cache(cache_file, res)
    if store is not None:
        store.upsert_examples(res.examples)
        res.report["stored"] = len(res.examples)
    return res


def _read_cache(path: Path) -> PoolResult | None:
    try:
        with gzip.open(path, "rt", encoding="utf-8") as f:
            head = json.loads(f.readline())
            examples = [Example(**json.loads(line)) for line in f]
    except (OSError, ValueError, TypeError, json.JSONDecodeError):
        return None  # an unreadable cache is rebuilt
    return PoolResult(examples, head["report"])


def _write_cache(path: Path, res: PoolResult) -> None:
    """Write the pool's cache file atomically. Several processes may build the same pool at once
    (a demo beside a test run, two flows on one worker): each writes its own temporary file and
    renames it into place, so a reader sees one whole file, and the last writer's (identical)
    pool wins. A cache that cannot be written is reported, not fatal: the pool was built."""
    tmp: str | None = None
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=".tmp-" + path.name + "-")
        os.chmod(tmp, 0o644)  # a cache file like any other (mkstemp makes it private)
        with os.fdopen(fd, "wb") as raw, gzip.open(raw, "wt", encoding="utf-8", compresslevel=3) as f:
            f.write(json.dumps({"report": res.report}, default=str) + "\n")
            for e in res.examples:
                f.write(json.dumps(e.to_dict(), default=str) + "\n")
        os.replace(tmp, path)
        tmp = None
    except OSError as e:
        res.report["cache_write_error"] = f"{type(e).__name__}: {e}"
        return
    finally:
        if tmp is not None:
            Path(tmp).unlink(missing_ok=True)
    # keep the few newest pools: each code or data change writes a new one (another process may
    # be pruning the same folder: a file gone already is no error)
    dated = []
    for p in path.parent.glob("pool-*.jsonl.gz"):
        try:
            dated.append((p.stat().st_mtime, p))
        except OSError:
            continue
    for _, p in sorted(dated, reverse=True)[CACHE_KEEP:]:
        try:
            p.unlink(missing_ok=True)
        except OSError:
            pass


def _build(cfg: PoolConfig) -> PoolResult:
    t0 = time.perf_counter()
    timings: dict[str, float] = {}
    report: dict[str, Any] = {"seed": cfg.seed, "target_size": cfg.target_size, "split_fractions": dict(cfg.split),
                              "loads": [], "missing_sources": []}

    loaded: dict[str, LoadResult] = {}
    for spec in cfg.sources:
        path = spec.resolve()
        if not path.exists():
            report["missing_sources"].append(str(path))
            continue
        t1 = time.perf_counter()
        res = load(path, spec.format, source=spec.name)
        loaded[spec.name] = res
        rd = res.report.to_dict()
        report["loads"].append(rd | {"name": spec.name, "errors": len(res.report.errors),
                                     "first_errors": rd["errors"][:5], "seconds": round(time.perf_counter() - t1, 2)})
    timings["load"] = time.perf_counter() - t0

    seeds = load_seed_examples()
    if loaded:
        report["data"] = "sources"
    else:
        report["data"] = "builtin_seed"
        loaded = {"seed": LoadResult(list(seeds), _seed_report(len(seeds)))}

    # Labelled examples: deduplicated before anything else.
    all_labelled = [e for r in loaded.values() for e in r.examples]
    kept, report["dedupe"] = _dedupe(all_labelled)
    kept_ids = {e.id for e in kept}
    for r in loaded.values():
        r.examples = [e for e in r.examples if e.id in kept_ids]

    # Decontaminate by question: a contaminated question leaves with all its examples.
    t1 = time.perf_counter()
    bad = _decontaminate(cfg, loaded, report)
    eval_sets = report.pop("_eval_sets", {})
    report["decontamination_dropped"] = _drop_keys(loaded, bad)
    timings["decontaminate"] = time.perf_counter() - t1

    splitter = _Splitter(cfg.split, cfg.seed)
    for r in loaded.values():
        for e in r.examples:
            e.meta.setdefault("question_key", e.question_key)
            e.split = splitter(e.question_key)

    # Real labelled examples: per source its share, balanced within.
    rng = random.Random(cfg.seed)
    by_source = {name: r.examples for name, r in loaded.items() if r.examples}
    if report["data"] == "sources":
        n_diag = min(cfg.diagnostics, cfg.target_size)
        avail = {n: len(v) for n, v in by_source.items()}
        quotas = _quotas(cfg, avail, cfg.target_size - n_diag)
    else:
        quotas = {"seed": min(len(seeds), cfg.target_size)}
        n_diag = max(0, cfg.target_size - quotas["seed"])
    selected: list[Example] = []
    for name in sorted(quotas):
        selected += _balanced_select(by_source.get(name, []), quotas[name], rng)
    report["quotas"] = quotas
    for e in selected:
        if "answer_object" not in e.meta:
            e.meta["answer_object"] = base_from_example(e).answer_object

    # Bases and carriers for the constructed variants.
    t1 = time.perf_counter()
    bases = _bases(loaded)
    responses = [r for res in loaded.values() for r in res.responses]
    responses += [carrier_from_example(e) for res in loaded.values() for e in res.examples]
    bank = CarrierBank(responses, splitter, cfg.seed)
    report["bases"] = dict(sorted(Counter(f"{b.source}:{b.answer_object}" for b in bases).items()))
    diag = generate_diagnostics(bases, n_diag, seed=cfg.seed, carriers=bank, split_of=splitter,
                                max_per_base=cfg.max_per_base)
    report["carrier_location"] = dict(bank.stats)
    timings["construct"] = time.perf_counter() - t1
    if eval_sets and diag:
        # An added cue changes the question: audit the constructed ones too.
        dr2 = audit(diag, eval_sets, fuzzy_threshold=cfg.fuzzy_threshold, ngram=cfg.ngram)
        bad2 = dr2.decisive_pool_ids
        report["constructed_decontamination_dropped"] = len(bad2)
        diag = [d for d in diag if d.id not in bad2]
    for d in diag:
        d.split = splitter(d.question_key)
    seen = {e.id for e in selected}
    examples = selected + [d for d in diag if d.id not in seen]
    examples.sort(key=lambda e: (e.split, e.source, e.id))

    report["composition"] = composition(examples)
    report["pool"] = {k: report["composition"][k] for k in ("size", "by_split", "by_source", "by_domain", "by_form",
                                                             "by_label")}
    report["diagnostics"] = report["composition"]["by_variant"]
    report["diagnostics"].pop("real", None)
    report["timings"] = {k: round(v, 2) for k, v in timings.items()}
    report["seconds"] = round(time.perf_counter() - t0, 2)
    return PoolResult(examples, report)


def _seed_report(n: int):
    from tasks.data.loaders import LoadReport

    return LoadReport(path=str(Path(__file__).with_name("seed_examples.jsonl")), format="autoverifier", records=n,
                      loaded=n)


def _bases(loaded: dict[str, LoadResult]) -> list[Base]:
    """One base per (question, answer object, reference): the sources' questions with
    references, then the labelled examples' questions, then questions known only from responses."""
    out: dict[tuple[str, str, str], Base] = {}
    keys_with_base: set[str] = set()
    for res in loaded.values():
        for q in res.questions:
            b = base_from_item(q)
            out.setdefault((b.question_key, b.answer_object, b.reference), b)
            keys_with_base.add(b.question_key)
    for res in loaded.values():
        for e in sorted(res.examples, key=lambda e: e.id):
            if e.question_key in keys_with_base:
                continue
            b = base_from_example(e)
            out.setdefault((b.question_key, b.answer_object, b.reference), b)
    for res in loaded.values():
        for r in sorted(res.responses, key=lambda r: r.id):
            if r.question_key in keys_with_base or (r.meta or {}).get("kind") == "solution":
                continue
            from tasks.data.answers import answer_object

            b = Base(f"{r.source}:{r.question_key}", r.question, r.reference, r.reference,
                     answer_object(r.reference, r.question), r.source, r.domain, {"question_key": r.question_key})
            out.setdefault((b.question_key, b.answer_object, b.reference), b)
            keys_with_base.add(r.question_key)
    return sorted(out.values(), key=lambda b: b.id)


def main(argv: list[str] | None = None) -> int:
    import argparse

    ap = argparse.ArgumentParser(prog="python -m tasks.data.pool", description="Build the construction pool and "
                                 "print its composition.")
    ap.add_argument("config", nargs="?", default=str(repo_path("configs/pool.yaml")))
    ap.add_argument("--out", help="write report.json and composition.md to this folder")
    ap.add_argument("--no-cache", action="store_true", help="rebuild even if a cached pool exists")
    args = ap.parse_args(argv)
    res = build_pool(args.config, use_cache=not args.no_cache)
    print(composition_markdown(res.report))
    if args.out:
        print(f"\nreport written to {res.write_report(args.out)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
