"""Residual clustering and embedders.

UMAP compiles for 30-40 s on first use, so exactly one test path (the module-scoped
``umap_result`` fixture) runs it; everything else uses key grouping, stubs of the UMAP and
HDBSCAN steps, or the embedders alone.
"""

from __future__ import annotations

import json
import random
from types import SimpleNamespace

import numpy as np
import pytest

import tasks.construct.cluster as cluster_mod
from tasks.construct.cluster import cluster_residuals, feature_key, is_direct_error, nearest_neighbours
from tasks.construct.embed import (
    OpenAIEmbedder,
    SentenceTransformerEmbedder,
    TfidfSvdEmbedder,
    l2_normalise,
    make_embedder,
)

_GROUP_TEXTS = {
    "frac": lambda rng: f"ref=\\frac{{{rng.randint(1, 9)}}}{{{rng.randint(2, 9)}}} ans=0.{rng.randint(10, 99)} fraction decimal",
    "unit": lambda rng: f"ref={rng.randint(1, 999)} meters per second ans={rng.randint(1, 999)} km/h unit conversion",
    "mcq": lambda rng: f"ref=option ({rng.choice('ABCD')}) ans=choice {rng.choice('ABCD')} letter mapping",
}


def residual(i: int, group: str, *, text: str | None = None, error_type: str = "fallback_false_fail",
             answer_object: str = "number", surface_form: str = "plain", domain: str = "math") -> dict:
    return {
        "example_id": f"{group}-{i:03d}",
        "index": i,
        "text": text if text is not None else f"{group} {i}",
        "error_type": error_type,
        "answer_object": answer_object,
        "surface_form": surface_form,
        "domain": domain,
        "group": group,
    }


def three_groups(n_per_group: int = 20, seed: int = 0) -> list[dict]:
    """Three clearly separated text groups that share one feature key (key grouping sees one group)."""
    rng = random.Random(seed)
    out = []
    for g, make in _GROUP_TEXTS.items():
        for _ in range(n_per_group):
            out.append(residual(len(out), g, text=make(rng)))
    rng.shuffle(out)
    return out


@pytest.fixture(scope="module")
def umap_result():
    """The one UMAP + HDBSCAN run of the test session: 60 residuals in 3 clear groups."""
    residuals = three_groups()
    return residuals, cluster_residuals(residuals, min_cluster_size=5, seed=0)


def test_umap_hdbscan_recovers_three_clear_groups(umap_result):
    residuals, result = umap_result
    assert result.method == "umap_hdbscan"
    assert result.n_residuals == 60
    group_of = {r["example_id"]: r["group"] for r in residuals}
    found = [c for c in result.clusters if c.method == "umap_hdbscan"]
    assert len(found) >= 3
    top = result.clusters[:3]
    assert {group_of[c.example_ids[0]] for c in top} == {"frac", "unit", "mcq"}
    for c in found:  # every embedded cluster is pure in its text group
        assert len({group_of[e] for e in c.example_ids}) == 1
    # nothing lost, nothing duplicated, ids in rank order
    all_ids = [e for c in result.clusters for e in c.example_ids]
    assert sorted(all_ids) == sorted(group_of)
    assert [c.cluster_id for c in result.clusters] == [f"c{k}" for k in range(len(result.clusters))]
    assert [c.size for c in result.clusters] == sorted((c.size for c in result.clusters), reverse=True)
    assert result.params["n_neighbors"] == cluster_mod.umap_neighbours(60)
    assert result.to_dict()["clusters"][0]["cluster_id"] == "c0"


_SECOND_PROCESS = """
import json, sys
sys.path.insert(0, sys.argv[1]); sys.path.insert(0, sys.argv[2])
from test_cluster import three_groups
from tasks.construct.cluster import cluster_residuals
from numba.core.dispatcher import Dispatcher
import umap.layouts, umap.umap_
res = cluster_residuals(three_groups(), min_cluster_size=5, seed=0)
hits = sum(sum(v.stats.cache_hits.values()) for m in (umap.layouts, umap.umap_) for v in vars(m).values()
           if isinstance(v, Dispatcher))
print(json.dumps({"clusters": [c.example_ids for c in res.clusters], "hits": hits}))
"""


def test_umap_compilation_is_cached_and_reused_by_a_second_process(umap_result):
    """The UMAP path turns numba's file cache on for umap's functions; a new process loads them
    (cache hits, no compilation) and finds the same clusters."""
    import subprocess
    import sys
    from pathlib import Path

    import umap.layouts
    from numba.core.caching import FunctionCache

    from tasks.construct import jit_cache

    _, result = umap_result
    st = jit_cache.status()
    if st["folder"] is None:
        pytest.skip("the project's caches are off (AUTOVERIFIER_CACHE_DIR=off)")
    assert st["functions"] > 50
    assert isinstance(umap.layouts._nb_optimize_layout_euclidean_single_epoch._cache, FunctionCache)
    assert list(Path(st["folder"]).rglob("layouts.*.nbi"))  # the layout optimiser was written to the cache
    here = Path(__file__).resolve().parent
    out = subprocess.run([sys.executable, "-c", _SECOND_PROCESS, str(here), str(here.parent)],
                         capture_output=True, text=True, timeout=300, check=True)
    second = json.loads(out.stdout.strip().splitlines()[-1])
    assert second["hits"] > 0
    assert second["clusters"] == [c.example_ids for c in result.clusters]


def test_zero_residuals_give_an_empty_result():
    result = cluster_residuals([])
    assert result.clusters == [] and result.method == "empty" and result.n_residuals == 0


def test_small_sets_are_grouped_by_key_without_embedding():
    class Exploding:
        name = "exploding"

        def embed(self, texts):
            raise AssertionError("a small set must not be embedded")

    residuals = (
        [residual(i, "a", answer_object="fraction") for i in range(5)]
        + [residual(i, "b", answer_object="unit", error_type="direct_false_pass") for i in range(3)]
        + [residual(i, "c", answer_object="choice") for i in range(3)]
    )
    result = cluster_residuals(residuals, embedder=Exploding(), min_cluster_size=5)
    assert result.method == "key_grouping"
    assert "grouped by feature key" in result.note
    assert [c.size for c in result.clusters] == [5, 3, 3]
    # same size and purity: the direct-error group ranks above the fallback-error group
    assert result.clusters[1].key_summary["answer_object"] == [("unit", 3)]
    assert result.clusters[1].severity == 1.0 and result.clusters[2].severity == 0.0
    assert result.clusters[1].score > result.clusters[2].score
    assert all(c.method == "key_grouping" and c.purity == 1.0 for c in result.clusters)
    assert result.clusters[0].indices == [0, 1, 2, 3, 4]


def test_threshold_follows_min_cluster_size():
    residuals = [residual(i, "a") for i in range(16)]
    # 16 >= 15 but < 2 * 10: still key grouping
    assert cluster_residuals(residuals, min_cluster_size=10).method == "key_grouping"


def _stub_reduce(x, *, dims, seed):
    return x[:, :2]


def test_all_noise_falls_back_to_key_grouping(monkeypatch):
    monkeypatch.setattr(cluster_mod, "reduce_umap", _stub_reduce)
    monkeypatch.setattr(cluster_mod, "hdbscan_labels", lambda z, *, min_cluster_size: np.full(len(z), -1))
    residuals = [residual(i, "a", answer_object=("x" if i % 3 else "y")) for i in range(30)]
    result = cluster_residuals(residuals)
    assert result.method == "key_grouping" and result.n_noise == 30
    assert "only noise" in result.note
    assert [c.size for c in result.clusters] == [20, 10]


def test_noise_points_are_grouped_by_key_so_nothing_is_lost(monkeypatch):
    monkeypatch.setattr(cluster_mod, "reduce_umap", _stub_reduce)
    labels = np.array([0] * 12 + [1] * 8 + [-1] * 10)
    monkeypatch.setattr(cluster_mod, "hdbscan_labels", lambda z, *, min_cluster_size: labels)
    residuals = [residual(i, "g", answer_object="noise" if i >= 20 else "n") for i in range(30)]
    result = cluster_residuals(residuals)
    assert result.method == "umap_hdbscan" and result.n_noise == 10
    assert [(c.size, c.method) for c in result.clusters] == [
        (12, "umap_hdbscan"),
        (10, "key_grouping"),
        (8, "umap_hdbscan"),
    ]
    assert sum(c.size for c in result.clusters) == 30


def test_failing_umap_falls_back_to_key_grouping_with_the_reason(monkeypatch):
    def broken(x, *, dims, seed):
        raise ValueError("degenerate input")

    monkeypatch.setattr(cluster_mod, "reduce_umap", broken)
    residuals = [residual(i, "a", answer_object=("x" if i % 2 else "y")) for i in range(20)]
    result = cluster_residuals(residuals)
    assert result.method == "key_grouping" and "degenerate input" in result.note
    assert sum(c.size for c in result.clusters) == 20


def test_purity_breaks_size_ties(monkeypatch):
    monkeypatch.setattr(cluster_mod, "reduce_umap", _stub_reduce)
    labels = np.array([0] * 10 + [1] * 10)
    monkeypatch.setattr(cluster_mod, "hdbscan_labels", lambda z, *, min_cluster_size: labels)
    mixed = [residual(i, "m", answer_object=("p" if i % 2 else "q")) for i in range(10)]
    pure = [residual(i + 10, "p", answer_object="p") for i in range(10)]
    result = cluster_residuals(mixed + pure)
    assert result.clusters[0].example_ids[0].startswith("p-") and result.clusters[0].purity == 1.0
    assert result.clusters[1].purity == 0.5


def test_ranking_is_deterministic():
    residuals = [residual(i, f"g{i % 4}", answer_object=f"o{i % 4}") for i in range(12)]
    a = cluster_residuals(residuals)
    b = cluster_residuals(list(reversed(residuals)))
    assert [c.example_ids for c in a.clusters] == [c.example_ids for c in b.clusters]


@pytest.mark.parametrize(
    ("bad", "error"),
    [
        ("not a list", TypeError),
        ([{"text": "no id"}], ValueError),
        ([{"example_id": "a"}], ValueError),
        ([{"example_id": "a", "text": 3}], TypeError),
        ([{"example_id": "a", "text": "x"}, {"example_id": "a", "text": "y"}], ValueError),
    ],
)
def test_bad_residuals_are_clear_errors(bad, error):
    with pytest.raises(error):
        cluster_residuals(bad)


def test_direct_error_detection():
    assert is_direct_error({"error_type": "direct_false_pass"})
    assert not is_direct_error({"error_type": "fallback_false_fail"})
    assert is_direct_error({"decided_by": "mod_fraction"})
    assert not is_direct_error({"decided_by": "fallback:offline"})
    assert is_direct_error({"direct": True, "error_type": "fallback_false_fail"})
    assert feature_key({"error_type": "e", "answer_object": None}) == ("e", "", "")


# --- embedders ---------------------------------------------------------------------------------


def test_tfidf_embedder_is_normalised_deterministic_and_meaningful():
    rng = random.Random(1)
    texts = [_GROUP_TEXTS[g](rng) for g in ("frac", "unit", "mcq") for _ in range(10)]
    a = TfidfSvdEmbedder(seed=3).embed(texts)
    b = TfidfSvdEmbedder(seed=3).embed(texts)
    assert a.shape == (30, min(64, 29))
    assert np.allclose(np.linalg.norm(a, axis=1), 1.0)
    assert np.array_equal(a, b)
    sim = a @ a.T
    same = sim[:10, 1:10].mean()
    other = sim[:10, 10:].mean()
    assert same > other + 0.3


def test_tfidf_embedder_edge_cases():
    emb = TfidfSvdEmbedder(max_dims=8)
    assert emb.embed([]).shape == (0, 8)
    one = emb.embed(["only one"])
    assert one.shape[0] == 1 and np.isclose(np.linalg.norm(one), 1.0)
    blank = emb.embed(["", "   ", "text"])
    assert blank.shape[0] == 3 and np.allclose(np.linalg.norm(blank, axis=1), 1.0)
    with pytest.raises(TypeError):
        emb.embed("a string, not a list")  # type: ignore[arg-type]
    with pytest.raises(TypeError):
        emb.embed(["ok", None])  # type: ignore[list-item]


def test_l2_normalise_keeps_zero_rows():
    out = l2_normalise(np.array([[3.0, 4.0], [0.0, 0.0]]))
    assert np.allclose(out, [[0.6, 0.8], [0.0, 0.0]])


def test_make_embedder():
    assert isinstance(make_embedder("tfidf", max_dims=4), TfidfSvdEmbedder)
    with pytest.raises(ValueError, match="unknown embedder"):
        make_embedder("word2vec")


def test_openai_embedder_needs_a_key(monkeypatch):
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    with pytest.raises(RuntimeError, match="OPENAI_API_KEY"):
        make_embedder("openai")


class _ScriptedEmbeddings:
    """Answers like the embeddings endpoint (items out of order) and records each batch."""

    def __init__(self) -> None:
        self.batches: list[list[str]] = []

    def create(self, *, model: str, input: list[str]):  # noqa: A002 - the client's keyword
        self.batches.append(list(input))
        data = [SimpleNamespace(index=i, embedding=[float(len(t)), 1.0, 0.0]) for i, t in enumerate(input)]
        return SimpleNamespace(data=list(reversed(data)))


def test_openai_embedder_batches_orders_and_normalises():
    fake = _ScriptedEmbeddings()
    emb = OpenAIEmbedder("m", client=SimpleNamespace(embeddings=fake), batch_size=2)
    texts = ["a", "bbb", "", "cc", "ddddd"]
    out = emb.embed(texts)
    assert [len(b) for b in fake.batches] == [2, 2, 1]
    assert fake.batches[1][0] == "<empty>"  # empty text is replaced, never sent empty
    expected = l2_normalise(np.array([[1, 1, 0], [3, 1, 0], [7, 1, 0], [2, 1, 0], [5, 1, 0]], dtype=float))
    assert np.allclose(out, expected)


def test_sentence_transformer_backend_reports_missing_extra(monkeypatch):
    monkeypatch.setenv("HF_HUB_OFFLINE", "1")
    try:
        import sentence_transformers  # noqa: F401
    except ImportError:
        emb = make_embedder("sentence-transformers", model_name="/nonexistent/model")
        assert isinstance(emb, SentenceTransformerEmbedder)
        assert emb.local_files_only is True  # offline: never attempts a download
        with pytest.raises(RuntimeError, match="embeddings"):
            emb.embed(["x"])
    else:  # pragma: no cover - only where the extra is installed
        pytest.skip("sentence-transformers is installed; the missing-extra path cannot be exercised")


def test_nearest_neighbours_finds_similar_items_outside_the_cluster():
    rng = random.Random(2)
    items = [
        {"example_id": f"{g}{i}", "text": _GROUP_TEXTS[g](rng), "label": i % 2 == 0}
        for g in ("frac", "unit", "mcq")
        for i in range(8)
    ]
    cluster_ids = ["frac0", "frac1", "frac2"]
    near = nearest_neighbours(cluster_ids, items, k=4, embedder=TfidfSvdEmbedder())
    assert len(near) == 4
    assert all(n["example_id"].startswith("frac") and n["example_id"] not in cluster_ids for n in near)
    sims = [n["similarity"] for n in near]
    assert sims == sorted(sims, reverse=True)
    # a pool of opposite-label candidates only, with the cluster's own items given separately
    opposite = [it for it in items if not it["label"]]
    near2 = nearest_neighbours(cluster_ids, opposite, k=2, query_items=items)
    assert len(near2) == 2 and all(not n["label"] for n in near2)
    assert nearest_neighbours(cluster_ids, items, k=0) == []
    with pytest.raises(ValueError, match="without items"):
        nearest_neighbours(["missing"], items, k=1)
