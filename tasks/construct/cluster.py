"""Cluster residuals into recurring error patterns: embed, UMAP, HDBSCAN, rank.

>>> result = cluster_residuals(residuals)                      # doctest: +SKIP
>>> [(c.cluster_id, c.size, c.method) for c in result.clusters[:2]]  # doctest: +SKIP
[('c0', 41, 'umap_hdbscan'), ('c1', 17, 'umap_hdbscan')]

Each residual is a dict with at least ``example_id``, ``text`` (the compact feature string
to embed), ``error_type``, ``answer_object``, ``surface_form`` and ``domain``.

Paths, all deterministic for a fixed ``seed``:

* no residuals: an empty result (``method="empty"``);
* fewer than ``max(15, 2 * min_cluster_size)`` residuals: no embedding; residuals are grouped
  by their exact feature key ``(error_type, answer_object, surface_form)``
  (``method="key_grouping"``);
* otherwise: embed, UMAP to ``umap_dims`` dimensions (cosine metric, ``n_neighbors`` =
  ``sqrt(n)`` clipped to [5, 30]), HDBSCAN (``sklearn.cluster.HDBSCAN``). If HDBSCAN finds
  only noise, the whole set falls back to key grouping; otherwise its noise points are
  grouped by key, so no residual is lost. Should UMAP or HDBSCAN fail on degenerate input
  (every text identical, say), the set is grouped by key and ``note`` says why.

Ranking is lexicographic: size, then key purity (the share of the cluster's most common
feature key), then severity (the share of direct errors, i.e. wrong PASS/FAIL by a code
module, which rank above fallback errors), then the smallest example id. ``score`` encodes
that order in one number: ``size + (100 * round(purity, 2) * 101 + 100 * round(severity, 2)) / 101**2``.
"""

from __future__ import annotations

import math
import time
import warnings
from collections import Counter
from collections.abc import Sequence
from dataclasses import asdict, dataclass, field
from typing import Any, Literal

import numpy as np

from tasks.construct.embed import Embedder, TfidfSvdEmbedder

Method = Literal["umap_hdbscan", "key_grouping"]
KEY_FIELDS: tuple[str, ...] = ("error_type", "answer_object", "surface_form")
SUMMARY_FIELDS: tuple[str, ...] = ("error_type", "answer_object", "surface_form", "domain")
MIN_EMBED_RESIDUALS = 15


@dataclass
class Cluster:
    """One recurring pattern: its residuals, rank score and a summary of their features."""

    cluster_id: str
    example_ids: list[str]
    size: int
    score: float
    key_summary: dict[str, list[tuple[str, int]]]
    method: Method
    purity: float = 0.0
    severity: float = 0.0
    indices: list[int] = field(default_factory=list)

    def to_dict(self) -> dict[str, Any]:
        d = asdict(self)
        d["key_summary"] = {k: [list(p) for p in v] for k, v in self.key_summary.items()}
        return d


@dataclass
class ClusterResult:
    """Ranked clusters plus how they were found."""

    clusters: list[Cluster]
    method: str  # "umap_hdbscan" | "key_grouping" | "empty"
    n_residuals: int
    n_noise: int = 0
    note: str = ""
    params: dict[str, Any] = field(default_factory=dict)
    elapsed_s: float = 0.0

    def to_dict(self) -> dict[str, Any]:
        d = asdict(self)
        d["clusters"] = [c.to_dict() for c in self.clusters]
        return d


# --- helpers -----------------------------------------------------------------------------------


def _validate(residuals: Sequence[dict[str, Any]]) -> None:
    if not isinstance(residuals, list | tuple):
        raise TypeError(f"residuals must be a list of dicts, not {type(residuals).__name__}")
    seen: set[str] = set()
    for i, r in enumerate(residuals):
        if not isinstance(r, dict):
            raise TypeError(f"residuals[{i}] is {type(r).__name__}, not dict")
        for k in ("example_id", "text"):
            if k not in r:
                raise ValueError(f"residuals[{i}] has no {k!r}")
        if not isinstance(r["text"], str):
            raise TypeError(f"residuals[{i}]['text'] must be a str")
        eid = str(r["example_id"])
        if eid in seen:
            raise ValueError(f"duplicate example_id {eid!r} in residuals")
        seen.add(eid)


def feature_key(r: dict[str, Any]) -> tuple[str, ...]:
    """The exact grouping key of a residual: ``(error_type, answer_object, surface_form)``."""
    return tuple(str(r.get(k, "") or "") for k in KEY_FIELDS)


def is_direct_error(r: dict[str, Any]) -> bool:
    """True when a code module (not the fallback) made the wrong decision."""
    if isinstance(r.get("direct"), bool):
        return r["direct"]
    et = str(r.get("error_type", "") or "")
    if et.startswith("direct"):
        return True
    if et.startswith("fallback"):
        return False
    by = str(r.get("decided_by", "") or "")
    return bool(by) and not by.startswith("fallback")


def _make_cluster(members: list[dict[str, Any]], method: Method) -> Cluster:
    keys = Counter(feature_key(r) for r in members)
    purity = keys.most_common(1)[0][1] / len(members)
    severity = sum(is_direct_error(r) for r in members) / len(members)
    summary = {
        f: sorted(Counter(str(r.get(f, "") or "") for r in members).items(), key=lambda kv: (-kv[1], kv[0]))[:5]
        for f in SUMMARY_FIELDS
    }
    ids = sorted(str(r["example_id"]) for r in members)
    p, s = round(purity, 2), round(severity, 2)
    score = len(members) + (round(100 * p) * 101 + round(100 * s)) / 101**2
    indices = sorted(int(r["index"]) for r in members if isinstance(r.get("index"), int))
    return Cluster("", ids, len(members), round(score, 6), summary, method, round(purity, 4), round(severity, 4), indices)


def _rank(clusters: list[Cluster]) -> list[Cluster]:
    ranked = sorted(clusters, key=lambda c: (-c.size, -round(c.purity, 2), -round(c.severity, 2), c.example_ids[0]))
    for k, c in enumerate(ranked):
        c.cluster_id = f"c{k}"
    return ranked


def group_by_key(residuals: Sequence[dict[str, Any]]) -> list[list[dict[str, Any]]]:
    """Residuals grouped by their exact feature key, in first-seen order."""
    groups: dict[tuple[str, ...], list[dict[str, Any]]] = {}
    for r in residuals:
        groups.setdefault(feature_key(r), []).append(r)
    return list(groups.values())


def umap_neighbours(n: int) -> int:
    """UMAP's ``n_neighbors`` for ``n`` points: ``sqrt(n)`` clipped to [5, 30] and below ``n``."""
    return max(2, min(n - 1, max(5, min(30, round(math.sqrt(n))))))


def reduce_umap(x: np.ndarray, *, dims: int, seed: int) -> np.ndarray:
    """UMAP (cosine, PCA init, 200 epochs) to ``dims`` dimensions with a fixed ``random_state``
    (numba's compilation cached on disk across processes: ``tasks/construct/jit_cache.py``)."""
    from tasks.construct.jit_cache import umap_with_cache

    umap = umap_with_cache()
    n = x.shape[0]
    dims = max(2, min(dims, n - 2))
    reducer = umap.UMAP(
        n_components=dims,
        n_neighbors=umap_neighbours(n),
        min_dist=0.0,
        metric="cosine",
        random_state=seed,
        n_jobs=1,
        low_memory=True,
        init="pca",  # the spectral init is not reproducible from run to run above ~2,000 points
        n_epochs=200,
    )
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return np.asarray(reducer.fit_transform(x), dtype=np.float64)


def hdbscan_labels(z: np.ndarray, *, min_cluster_size: int) -> np.ndarray:
    """``sklearn.cluster.HDBSCAN`` labels (-1 = noise)."""
    from sklearn.cluster import HDBSCAN

    model = HDBSCAN(min_cluster_size=max(2, min_cluster_size), min_samples=None, copy=True)
    return np.asarray(model.fit_predict(z))


# --- the step ----------------------------------------------------------------------------------


def cluster_residuals(
    residuals: list[dict[str, Any]],
    *,
    embedder: Embedder | None = None,
    min_cluster_size: int = 5,
    umap_dims: int = 5,
    seed: int = 0,
) -> ClusterResult:
    """Group residuals into ranked recurring patterns (see the module docstring for the paths)."""
    _validate(residuals)
    if min_cluster_size < 2:
        raise ValueError("min_cluster_size must be >= 2")
    t0 = time.perf_counter()
    n = len(residuals)
    params: dict[str, Any] = {"min_cluster_size": min_cluster_size, "umap_dims": umap_dims, "seed": seed}
    if n == 0:
        return ClusterResult([], "empty", 0, note="no residuals", params=params)

    threshold = max(MIN_EMBED_RESIDUALS, 2 * min_cluster_size)
    if n < threshold:
        clusters = _rank([_make_cluster(g, "key_grouping") for g in group_by_key(residuals)])
        note = f"{n} residuals < {threshold}: grouped by feature key without embedding"
        return ClusterResult(clusters, "key_grouping", n, 0, note, params, round(time.perf_counter() - t0, 3))

    emb = embedder or TfidfSvdEmbedder(seed=seed)
    params["embedder"] = getattr(emb, "name", type(emb).__name__)
    x = emb.embed([r["text"] for r in residuals])
    if x.shape[0] != n:
        raise RuntimeError(f"embedder returned {x.shape[0]} rows for {n} texts")
    params["n_neighbors"] = umap_neighbours(n)
    try:
        z = reduce_umap(x, dims=min(umap_dims, max(2, x.shape[1])), seed=seed)
        labels = hdbscan_labels(z, min_cluster_size=min_cluster_size)
    except Exception as e:  # degenerate geometry (e.g. every text identical): key grouping, with the reason
        clusters = _rank([_make_cluster(g, "key_grouping") for g in group_by_key(residuals)])
        note = f"UMAP/HDBSCAN failed ({type(e).__name__}: {str(e)[:200]}): grouped by feature key"
        return ClusterResult(clusters, "key_grouping", n, 0, note, params, round(time.perf_counter() - t0, 3))
    noise = [r for r, lab in zip(residuals, labels, strict=True) if lab < 0]
    if len(noise) == n:
        clusters = _rank([_make_cluster(g, "key_grouping") for g in group_by_key(residuals)])
        note = "HDBSCAN found only noise: grouped by feature key"
        return ClusterResult(clusters, "key_grouping", n, n, note, params, round(time.perf_counter() - t0, 3))

    found: dict[int, list[dict[str, Any]]] = {}
    for r, lab in zip(residuals, labels, strict=True):
        if lab >= 0:
            found.setdefault(int(lab), []).append(r)
    clusters = [_make_cluster(m, "umap_hdbscan") for m in found.values()]
    clusters += [_make_cluster(g, "key_grouping") for g in group_by_key(noise)]
    note = f"{len(found)} HDBSCAN clusters; {len(noise)} noise residuals grouped by feature key"
    return ClusterResult(_rank(clusters), "umap_hdbscan", n, len(noise), note, params, round(time.perf_counter() - t0, 3))


def nearest_neighbours(
    query_ids: Sequence[str],
    candidate_items: Sequence[dict[str, Any]],
    k: int,
    embedder: Embedder | None = None,
    *,
    query_items: Sequence[dict[str, Any]] | None = None,
) -> list[dict[str, Any]]:
    """The ``k`` candidates nearest to a cluster (cosine), e.g. counterexample candidates.

    ``candidate_items`` are dicts with ``example_id`` and ``text``. The cluster's items are
    those of ``query_ids``, looked up in ``query_items`` when given, else in
    ``candidate_items`` (they are then excluded from the answer). Each candidate's distance to
    the cluster is its highest cosine similarity to any cluster item; ties break by id.
    Returns up to ``k`` candidate dicts (copies) with an added ``similarity``.
    """
    if k < 1:
        return []
    wanted = [str(q) for q in query_ids]
    wanted_set = set(wanted)
    pool = list(query_items) if query_items is not None else list(candidate_items)
    by_id = {str(it["example_id"]): it for it in pool}
    missing = [q for q in wanted if q not in by_id]
    if missing:
        raise ValueError(f"query ids without items: {missing[:5]}")
    queries = [by_id[q] for q in wanted]
    others = [it for it in candidate_items if str(it["example_id"]) not in wanted_set]
    if not queries or not others:
        return []
    emb = embedder or TfidfSvdEmbedder()
    vecs = emb.embed([str(it["text"]) for it in queries] + [str(it["text"]) for it in others])
    ranked = rank_by_similarity(vecs[: len(queries)], vecs[len(queries) :], [str(it["example_id"]) for it in others], k)
    return [{**others[j], "similarity": round(sim, 6)} for j, sim in ranked]


def rank_by_similarity(query_vecs: np.ndarray, candidate_vecs: np.ndarray, candidate_ids: Sequence[str],
                       k: int) -> list[tuple[int, float]]:
    """``(candidate index, similarity)`` of the ``k`` candidates closest to any query vector
    (highest cosine on L2-normalised rows); ties break by candidate id."""
    if k < 1 or not len(query_vecs) or not len(candidate_vecs):
        return []
    sim = (candidate_vecs @ query_vecs.T).max(axis=1)
    order = sorted(range(len(candidate_ids)), key=lambda j: (-round(float(sim[j]), 9), str(candidate_ids[j])))
    return [(j, float(sim[j])) for j in order[:k]]


__all__ = [
    "Cluster",
    "ClusterResult",
    "cluster_residuals",
    "feature_key",
    "group_by_key",
    "is_direct_error",
    "nearest_neighbours",
    "rank_by_similarity",
]
