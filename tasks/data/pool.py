"""The construction pool: config-defined sources, split by question, balanced selection.

``build_pool(PoolConfig.from_yaml("configs/pool.yaml"))`` loads the configured sources,
deduplicates them, decontaminates them against the evaluation sets, splits them by question
(no question on both sides), selects about ``target_size`` examples balanced across sources,
domains and answer forms, adds constructed diagnostics, and returns the pool with a report.
The same config and seed give the same pool.

With no source data on disk (e.g. no shared folder), the pool is built from the built-in seed
triples (``tasks/data/seed_examples.jsonl``) and diagnostics made from them; the report's
``data`` field says ``builtin_seed`` instead of ``sources``.
"""

from __future__ import annotations

import hashlib
import random
import time
from collections import Counter, defaultdict
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import yaml

from tasks.data.decontam import audit, enforce, normalize_text
from tasks.data.diagnostics import answer_form, base_from_example, generate_diagnostics, load_seed_examples
from tasks.data.loaders import BENCHMARKS, load, load_benchmark
from tasks.data.schema import Example
from tasks.paths import shared_root

__all__ = ["PoolConfig", "PoolResult", "SourceSpec", "build_pool", "example_form", "split_by_question"]


@dataclass(slots=True)
class SourceSpec:
    """One pool source. A relative ``path`` is resolved against the shared folder."""

    name: str
    path: str
    format: str | None = None
    weight: float = 1.0
    quota: int | None = None  # a fixed number of examples; overrides the weight share

    def resolve(self) -> Path:
        p = Path(self.path).expanduser()
        return p if p.is_absolute() else shared_root() / p


@dataclass(slots=True)
class PoolConfig:
    """The pool definition (see ``configs/pool.yaml``)."""

    sources: list[SourceSpec] = field(default_factory=list)
    target_size: int = 5000
    seed: int = 0
    split: dict[str, float] = field(default_factory=lambda: {"construction": 0.8, "holdout": 0.2})
    diagnostics: int = 600
    eval_sets: list[str] = field(default_factory=list)
    eval_root: str | None = None
    fuzzy_threshold: float = 0.9
    ngram: int = 5
    decontam_policy: str = "drop"

    @classmethod
    def from_dict(cls, d: dict[str, Any]) -> PoolConfig:
        """From a mapping (the ``pool:`` section of a YAML file, or the whole file)."""
        if set(d) == {"pool"} and isinstance(d["pool"], dict):
            d = d["pool"]
        known = {"sources", "target_size", "seed", "split", "diagnostics", "eval_sets", "decontamination", "name"}
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
        dec = d.get("decontamination") or {}
        diag = d.get("diagnostics", 600)
        ev = d.get("eval_sets") or []
        for name in ev:
            if name not in BENCHMARKS:
                raise ValueError(f"pool config: unknown evaluation set {name!r}; expected one of {BENCHMARKS}")
        cfg = cls(
            sources=srcs,
            target_size=int(d.get("target_size", 5000)),
            seed=int(d.get("seed", 0)),
            split={str(k): float(v) for k, v in (d.get("split") or {"construction": 0.8, "holdout": 0.2}).items()},
            diagnostics=int(diag.get("count", 600) if isinstance(diag, dict) else diag),
            eval_sets=list(ev),
            eval_root=dec.get("eval_root"),
            fuzzy_threshold=float(dec.get("fuzzy_threshold", 0.9)),
            ngram=int(dec.get("ngram", 5)),
            decontam_policy=str(dec.get("policy", "drop")),
        )
        _check_fractions(cfg.split)
        if cfg.target_size < 1 or cfg.diagnostics < 0:
            raise ValueError("pool config: target_size must be >= 1 and diagnostics >= 0")
        return cfg

    @classmethod
    def from_yaml(cls, path: str | Path) -> PoolConfig:
        data = yaml.safe_load(Path(path).read_text(encoding="utf-8")) or {}
        if not isinstance(data, dict):
            raise ValueError(f"{path}: a pool config must be a mapping")
        return cls.from_dict(data)


@dataclass(slots=True)
class PoolResult:
    examples: list[Example]
    report: dict[str, Any]

    def split(self, name: str) -> list[Example]:
        return [e for e in self.examples if e.split == name]

    def __len__(self) -> int:
        return len(self.examples)

    def __iter__(self) -> Iterator[Example]:
        return iter(self.examples)


def _check_fractions(fr: dict[str, float]) -> None:
    if not fr or any(v < 0 for v in fr.values()) or abs(sum(fr.values()) - 1.0) > 1e-6:
        raise ValueError(f"split fractions must be non-negative and sum to 1, got {fr}")


def _unit_hash(text: str, seed: int) -> float:
    h = hashlib.sha256(f"{seed}\x1f{text}".encode()).digest()
    return int.from_bytes(h[:8], "big") / 2**64


def split_by_question(
    examples: list[Example], fractions: dict[str, float] | None = None, seed: int = 0
) -> dict[str, list[Example]]:
    """Assign each example to a split by a seeded hash of its normalised question, so every
    example of one question lands on the same side. Sets ``example.split`` and returns
    ``{split_name: examples}`` (default ``construction`` 0.8 / ``holdout`` 0.2)."""
    fr = fractions or {"construction": 0.8, "holdout": 0.2}
    _check_fractions(fr)
    names = list(fr)
    bounds, acc = [], 0.0
    for n in names:
        acc += fr[n]
        bounds.append(acc)
    out: dict[str, list[Example]] = {n: [] for n in names}
    cache: dict[str, str] = {}
    for ex in examples:
        q = normalize_text(ex.question)
        name = cache.get(q)
        if name is None:
            u = _unit_hash(q, seed)
            name = next((n for n, b in zip(names, bounds, strict=True) if u < b), names[-1])
            cache[q] = name
        ex.split = name
        out[name].append(ex)
    return out


def example_form(ex: Example) -> str:
    """The answer form of an example's bare final answer (see :func:`answer_form`)."""
    return answer_form(base_from_example(ex).answer)


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
    weighted = {s.name: s.weight for s in cfg.sources if s.quota is None and s.name in available and s.weight > 0}
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


def _summary(examples: list[Example]) -> dict[str, Any]:
    return {
        "size": len(examples),
        "by_split": dict(sorted(Counter(e.split for e in examples).items())),
        "by_source": dict(sorted(Counter(e.source for e in examples).items())),
        "by_domain": dict(sorted(Counter(e.domain for e in examples).items())),
        "by_form": dict(sorted(Counter(example_form(e) for e in examples).items())),
        "by_label": {"correct": sum(e.label for e in examples), "incorrect": sum(not e.label for e in examples)},
    }


def build_pool(config: PoolConfig | dict[str, Any] | str | Path, store: Any | None = None) -> PoolResult:
    """Build the construction pool (see module docstring); writes it to ``store`` if given.

    ``config`` is a :class:`PoolConfig`, a mapping, or the path of a YAML file."""
    if isinstance(config, PoolConfig):
        cfg = config
    elif isinstance(config, dict):
        cfg = PoolConfig.from_dict(config)
    else:
        cfg = PoolConfig.from_yaml(config)
    t0 = time.perf_counter()
    rng = random.Random(cfg.seed)
    report: dict[str, Any] = {"seed": cfg.seed, "target_size": cfg.target_size, "loads": [], "missing_sources": []}

    loaded: dict[str, list[Example]] = {}
    for spec in cfg.sources:
        path = spec.resolve()
        if not path.is_file():
            report["missing_sources"].append(str(path))
            continue
        res = load(path, spec.format, source=spec.name)
        loaded[spec.name] = res.examples
        report["loads"].append(res.report.to_dict() | {"errors": len(res.report.errors)})

    seeds = load_seed_examples()
    if loaded:
        report["data"] = "sources"
        candidates = [e for exs in loaded.values() for e in exs]
    else:
        report["data"] = "builtin_seed"
        candidates = list(seeds)
        loaded = {"seed": candidates}
    candidates, report["dedupe"] = _dedupe(candidates)

    # Decontaminate the candidates against the evaluation sets before selecting.
    eval_sets: dict[str, list[Example]] = {}
    for name in cfg.eval_sets:
        try:
            eval_sets[name] = load_benchmark(name, cfg.eval_root)
        except FileNotFoundError as exc:
            report.setdefault("eval_sets_missing", []).append(f"{name}: {exc}")
    if eval_sets:
        dr = audit(candidates, eval_sets, fuzzy_threshold=cfg.fuzzy_threshold, ngram=cfg.ngram)
        candidates = enforce(dr, cfg.decontam_policy)  # type: ignore[arg-type]
        report["decontamination"] = dr.to_dict() | {"policy": cfg.decontam_policy, "markdown": dr.to_markdown()}

    split_by_question(candidates, cfg.split, cfg.seed)
    n_diag = min(cfg.diagnostics, cfg.target_size)
    n_real = cfg.target_size - n_diag if report["data"] == "sources" else min(len(candidates), cfg.target_size)
    by_source: dict[str, list[Example]] = defaultdict(list)
    for e in candidates:
        by_source[e.source].append(e)
    names = {s.name for s in cfg.sources} if report["data"] == "sources" else {"seed"}
    avail = {n: len(by_source.get(n, [])) for n in names}
    if report["data"] == "sources":
        quotas = _quotas(cfg, avail, n_real)
    else:
        quotas = {"seed": n_real}
    selected: list[Example] = []
    for name in sorted(quotas):
        selected += _balanced_select(by_source.get(name, []), quotas[name], rng)
    report["quotas"] = quotas

    # Diagnostics from the selected examples and the seed set; they follow their question's split.
    bases = sorted(selected, key=lambda e: e.id) + seeds
    if report["data"] == "builtin_seed":
        n_diag = max(0, cfg.target_size - len(selected))
    diag = generate_diagnostics(bases, n_diag, seed=cfg.seed)
    if eval_sets and diag:
        dr2 = audit(diag, eval_sets, fuzzy_threshold=cfg.fuzzy_threshold, ngram=cfg.ngram)
        diag = enforce(dr2, "drop" if cfg.decontam_policy == "drop" else cfg.decontam_policy)  # type: ignore[arg-type]
    split_by_question(diag, cfg.split, cfg.seed)
    seen = {e.id for e in selected}
    examples = selected + [d for d in diag if d.id not in seen]
    examples.sort(key=lambda e: (e.split, e.source, e.id))

    report["pool"] = _summary(examples)
    report["diagnostics"] = dict(sorted(Counter(e.meta["variant"] for e in diag).items()))
    report["seconds"] = round(time.perf_counter() - t0, 2)
    if store is not None:
        store.upsert_examples(examples)
        report["stored"] = len(examples)
    return PoolResult(examples, report)
