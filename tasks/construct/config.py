"""Configuration of a construction run (``configs/demo.yaml``) and of its rounds (``construction:``)."""

from __future__ import annotations

import os
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import yaml

from tasks.paths import repo_path


@dataclass
class RoundConfig:
    """Thresholds and sizes of a round (``construction:`` section of the config YAML)."""

    max_clusters: int = 8
    coverage_groups: int = 6
    candidates_per_cluster: int = 3
    min_support: int = 3
    max_counterexample_errors: int = 0
    max_new_direct_errors: int = 0
    # Tolerated share of wrong decisions among the candidate's new direct decisions (label noise in
    # human-judged data); 0.0 means none. The wrong examples are listed on the card for audit.
    max_new_direct_error_rate: float = 0.0
    min_gain: int = 1
    counterexamples_k: int = 40
    module_budget_s: float = 0.5
    min_cluster_size: int = 5
    embedder: str = "tfidf"
    audit: bool = True
    audit_cpu_seconds: int = 10
    audit_memory_mb: int = 1024
    cases_per_module: int = 4
    search_sample: int = 60  # cluster examples the drafter's grid search looks at (validation sees all)
    search_counterexamples: int = 150
    search_sentinels: int = 400  # a fixed pool sample every candidate must not err on
    # support examples (a seeded sample) whose rewrites the perturbation stage checks
    perturbation_examples: int = 8
    seed: int = 0

    @classmethod
    def from_dict(cls, d: dict[str, Any] | None) -> RoundConfig:
        d = dict(d or {})
        known = {f for f in cls.__dataclass_fields__}
        unknown = set(d) - known
        if unknown:
            raise ValueError(f"unknown construction settings: {sorted(unknown)}")
        return cls(**d)



@dataclass
class ConstructConfig:
    """A construction run (``configs/demo.yaml``). Relative paths are relative to the repo."""

    name: str = "demo"
    db: str = "data/autoverifier.duckdb"
    rulebank: str = "rulebank"
    start_from: str = "newest"  # newest | empty | <path to a release>
    fallback: str = "offline"
    fallback_config: dict[str, Any] = field(default_factory=dict)
    rounds: int = 3
    pool: str = "configs/pool.yaml"
    chunk_size: int = 500
    task_runner: str = "threads"  # threads | dask
    max_workers: int = 4  # thread runner
    dask_address: str | None = None  # dask: a scheduler address; None starts a local cluster
    llm_drafter: dict[str, Any] | None = None
    construction: RoundConfig = field(default_factory=RoundConfig)

    @classmethod
    def from_yaml(cls, path: str | os.PathLike[str]) -> ConstructConfig:
        data = yaml.safe_load(Path(path).read_text(encoding="utf-8")) or {}
        if not isinstance(data, dict):
            raise ValueError(f"{path}: a construction config must be a mapping")
        data = dict(data)
        rc = RoundConfig.from_dict(data.pop("construction", None))
        known = set(cls.__dataclass_fields__) - {"construction"}
        unknown = set(data) - known
        if unknown:
            raise ValueError(f"{path}: unknown keys {sorted(unknown)}")
        return cls(construction=rc, **data)

    def path(self, p: str) -> Path:
        """A configured path made absolute against the repository root."""
        return repo_path(p)

