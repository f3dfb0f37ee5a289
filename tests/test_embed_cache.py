"""Embeddings cached on disk (``tasks/construct/embed.py:CachedEmbedder``): a cached result equals
a fresh one, a changed input misses, and a new instance (a new process) reads what an earlier one wrote."""

from __future__ import annotations

import numpy as np

from tasks.construct.embed import CachedEmbedder, TfidfSvdEmbedder, cached_embedder, embedder_fingerprint

TEXTS = [f"ref=\\frac{{{i}}}{{{i + 1}}} || {i / (i + 1):.3f} || what is the fraction {i}" for i in range(1, 40)]


class CountingEmbedder:
    """A per-text embedder that records which texts it was asked to embed."""

    name = "counting"
    per_text = True

    def __init__(self, dims: int = 4) -> None:
        self.dims = dims
        self.calls: list[list[str]] = []

    def embed(self, texts):
        self.calls.append(list(texts))
        return np.array([[len(t), sum(map(ord, t)) % 97, t.count(" "), 1.0][: self.dims] for t in texts], dtype=float)


def test_corpus_fitted_embeddings_are_cached_per_exact_list(tmp_path):
    fresh = TfidfSvdEmbedder(seed=0).embed(TEXTS)
    emb = CachedEmbedder(TfidfSvdEmbedder(seed=0), tmp_path)
    assert not emb.per_text
    first = emb.embed(TEXTS)
    assert np.array_equal(first, fresh) and (emb.hits, emb.misses) == (0, 1)
    again = CachedEmbedder(TfidfSvdEmbedder(seed=0), tmp_path)  # a new process: reads the file
    assert np.array_equal(again.embed(TEXTS), fresh) and (again.hits, again.misses) == (1, 0)
    # one text changed: the whole fit changes, so the list misses and is computed afresh
    changed = [*TEXTS[:-1], "something else entirely"]
    assert np.array_equal(again.embed(changed), TfidfSvdEmbedder(seed=0).embed(changed))
    assert again.misses == 1
    # other settings: another folder, never the first's vectors
    other = CachedEmbedder(TfidfSvdEmbedder(seed=1), tmp_path)
    assert other.folder != again.folder
    assert embedder_fingerprint(TfidfSvdEmbedder(seed=1)) != embedder_fingerprint(TfidfSvdEmbedder(seed=0))


def test_per_text_embedders_embed_only_new_texts(tmp_path):
    inner = CountingEmbedder()
    emb = CachedEmbedder(inner, tmp_path)
    texts = ["a b", "c", "a b", "d e f"]
    first = emb.embed(texts)
    assert inner.calls == [["a b", "c", "d e f"]]  # a repeated text is embedded once
    assert np.array_equal(first, CountingEmbedder().embed(texts))
    second = CachedEmbedder(CountingEmbedder(), tmp_path)
    out = second.embed(["d e f", "g", "c"])
    assert second.inner.calls == [["g"]] and second.hits == 2 and second.misses == 1
    assert np.array_equal(out, CountingEmbedder().embed(["d e f", "g", "c"]))


def test_a_damaged_cache_file_is_recomputed(tmp_path):
    emb = CachedEmbedder(TfidfSvdEmbedder(seed=0), tmp_path)
    fresh = emb.embed(TEXTS)
    for f in emb.folder.glob("set-*.npy"):
        f.write_bytes(b"not an array")
    again = CachedEmbedder(TfidfSvdEmbedder(seed=0), tmp_path)
    assert np.array_equal(again.embed(TEXTS), fresh) and again.misses == 1
    assert np.array_equal(CachedEmbedder(TfidfSvdEmbedder(seed=0), tmp_path).embed(TEXTS), fresh)  # rewritten


def test_caches_off_gives_the_embedder_itself(monkeypatch, tmp_path):
    inner = TfidfSvdEmbedder()
    monkeypatch.setenv("AUTOVERIFIER_CACHE_DIR", "off")
    assert cached_embedder(inner) is inner
    monkeypatch.setenv("AUTOVERIFIER_CACHE_DIR", str(tmp_path))
    emb = cached_embedder(inner)
    assert isinstance(emb, CachedEmbedder) and emb.folder.parent == tmp_path / "embeddings"


def test_old_sets_are_pruned(tmp_path):
    emb = CachedEmbedder(TfidfSvdEmbedder(seed=0), tmp_path, max_sets=2)
    for k in range(4):
        emb.embed([*TEXTS, f"extra {k}"])
    assert len(list(emb.folder.glob("set-*.npy"))) == 2
