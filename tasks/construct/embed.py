"""Pluggable text embeddings for residual clustering.

An :class:`Embedder` turns texts into one L2-normalised row each. Three backends:

* ``"tfidf"`` (:class:`TfidfSvdEmbedder`, the default): character and word n-gram TF-IDF,
  reduced by truncated SVD to at most 64 dimensions. Fitted on the texts it is given, so it
  needs no model, no network and is deterministic for a fixed seed.
* ``"sentence-transformers"`` (:class:`SentenceTransformerEmbedder`): a local
  sentence-transformers model (the ``embeddings`` extra). Works offline from a model folder.
* ``"openai"`` (:class:`OpenAIEmbedder`): the OpenAI embeddings endpoint or any
  OpenAI-compatible server (``base_url``), batched.

>>> emb = make_embedder("tfidf")
>>> emb.embed(["2/4 vs 1/2", "0.5 vs 1/2", "mm vs cm"]).shape[0]
3
"""

from __future__ import annotations

import os
import warnings
from collections.abc import Sequence
from pathlib import Path
from typing import Any, Protocol, runtime_checkable

import numpy as np

EMPTY_TEXT = "<empty>"  # stands in for an empty string, so every text has at least one feature


@runtime_checkable
class Embedder(Protocol):
    """Anything with ``embed(texts) -> ndarray`` of shape ``(len(texts), dim)``, rows L2-normalised."""

    name: str

    def embed(self, texts: list[str]) -> np.ndarray: ...


def l2_normalise(x: np.ndarray) -> np.ndarray:
    """Rows scaled to unit length (all-zero rows stay zero)."""
    x = np.asarray(x, dtype=np.float64)
    if x.ndim != 2:
        raise ValueError(f"expected a 2-d array, got shape {x.shape}")
    norms = np.linalg.norm(x, axis=1, keepdims=True)
    return np.divide(x, norms, out=np.zeros_like(x), where=norms > 0)


def _clean_texts(texts: Sequence[str]) -> list[str]:
    if isinstance(texts, str):
        raise TypeError("embed() takes a list of texts, not a single string")
    out = []
    for i, t in enumerate(texts):
        if not isinstance(t, str):
            raise TypeError(f"texts[{i}] is {type(t).__name__}, not str")
        out.append(t if t.strip() else EMPTY_TEXT)
    return out


class TfidfSvdEmbedder:
    """Char (2-4, within word boundaries) and word (1-2) n-gram TF-IDF, then truncated SVD.

    ``max_dims`` caps the SVD size (it is also kept below the number of texts and features).
    The vectoriser and SVD are fitted on each call's texts: the embedding places one residual
    set in one space, which is all clustering needs. ``seed`` fixes the randomized SVD.
    """

    name = "tfidf"

    def __init__(
        self,
        *,
        max_dims: int = 64,
        seed: int = 0,
        char_ngrams: tuple[int, int] = (2, 4),
        word_ngrams: tuple[int, int] = (1, 2),
        max_features: int = 20_000,
    ) -> None:
        if max_dims < 1:
            raise ValueError("max_dims must be >= 1")
        self.max_dims = int(max_dims)
        self.seed = int(seed)
        self.char_ngrams = char_ngrams
        self.word_ngrams = word_ngrams
        self.max_features = int(max_features)

    def embed(self, texts: list[str]) -> np.ndarray:
        from scipy.sparse import hstack
        from sklearn.decomposition import TruncatedSVD
        from sklearn.feature_extraction.text import TfidfVectorizer

        docs = _clean_texts(texts)
        if not docs:
            return np.zeros((0, self.max_dims))
        char = TfidfVectorizer(
            analyzer="char_wb", ngram_range=self.char_ngrams, max_features=self.max_features, sublinear_tf=True
        )
        word = TfidfVectorizer(
            analyzer="word",
            ngram_range=self.word_ngrams,
            token_pattern=r"(?u)\b\w+\b|[^\w\s]",
            max_features=self.max_features,
            sublinear_tf=True,
        )
        m = hstack([char.fit_transform(docs), word.fit_transform(docs)]).tocsr()
        k = min(self.max_dims, m.shape[0] - 1, m.shape[1] - 1)
        if k < 1:  # one text, or a single feature: nothing to reduce
            return l2_normalise(m.toarray()[:, : self.max_dims])
        svd = TruncatedSVD(n_components=k, algorithm="randomized", n_iter=7, random_state=self.seed)
        with warnings.catch_warnings():  # identical texts: zero variance makes the (unused) ratios 0/0
            warnings.simplefilter("ignore", RuntimeWarning)
            return l2_normalise(svd.fit_transform(m))


class SentenceTransformerEmbedder:
    """A sentence-transformers model, loaded lazily; ``model_name`` may be a local folder.

    Offline use: pass a local path, or set ``HF_HUB_OFFLINE=1`` with the model in the cache;
    ``local_files_only`` defaults to True in both cases, so no download is attempted.
    """

    name = "sentence-transformers"

    def __init__(
        self,
        model_name: str,
        *,
        device: str = "cpu",
        batch_size: int = 64,
        local_files_only: bool | None = None,
    ) -> None:
        if not model_name:
            raise ValueError("model_name is required (a model id or a local folder)")
        self.model_name = model_name
        self.device = device
        self.batch_size = int(batch_size)
        if local_files_only is None:
            local_files_only = Path(model_name).exists() or os.environ.get("HF_HUB_OFFLINE") == "1"
        self.local_files_only = bool(local_files_only)
        self._model: Any = None

    def _load(self) -> Any:
        if self._model is None:
            try:
                from sentence_transformers import SentenceTransformer
            except ImportError as e:
                raise RuntimeError(
                    "the sentence-transformers backend needs the 'embeddings' extra: "
                    "pip install 'autoverifier[embeddings]'"
                ) from e
            self._model = SentenceTransformer(
                self.model_name, device=self.device, local_files_only=self.local_files_only
            )
        return self._model

    def embed(self, texts: list[str]) -> np.ndarray:
        docs = _clean_texts(texts)
        model = self._load()
        if not docs:
            return np.zeros((0, int(model.get_sentence_embedding_dimension() or 0)))
        vecs = model.encode(
            docs, batch_size=self.batch_size, normalize_embeddings=True, show_progress_bar=False, convert_to_numpy=True
        )
        return l2_normalise(vecs)


class OpenAIEmbedder:
    """Embeddings from the OpenAI API or an OpenAI-compatible server, in batches.

    The key comes from ``api_key`` or ``OPENAI_API_KEY``; with a ``base_url`` (a local vLLM or
    Ollama server) a missing key is allowed. ``client`` injects a ready client (tests use a
    scripted one).
    """

    name = "openai"

    def __init__(
        self,
        model: str = "text-embedding-3-small",
        base_url: str | None = None,
        *,
        api_key: str | None = None,
        batch_size: int = 256,
        timeout: float = 60.0,
        max_retries: int = 3,
        client: Any = None,
    ) -> None:
        if batch_size < 1:
            raise ValueError("batch_size must be >= 1")
        self.model = model
        self.base_url = base_url
        self.batch_size = int(batch_size)
        if client is None:
            key = api_key or os.environ.get("OPENAI_API_KEY")
            if not key and base_url is None:
                raise RuntimeError("the openai embedder needs OPENAI_API_KEY (or api_key=..., or a base_url)")
            try:
                from openai import OpenAI
            except ImportError as e:
                raise RuntimeError("the openai embedder needs the 'llm' extra: pip install 'autoverifier[llm]'") from e
            client = OpenAI(api_key=key or "not-needed", base_url=base_url, timeout=timeout, max_retries=max_retries)
        self._client = client

    def embed(self, texts: list[str]) -> np.ndarray:
        docs = _clean_texts(texts)
        rows: list[list[float]] = []
        for start in range(0, len(docs), self.batch_size):
            batch = docs[start : start + self.batch_size]
            resp = self._client.embeddings.create(model=self.model, input=batch)
            data = sorted(resp.data, key=lambda d: d.index)
            if len(data) != len(batch):
                raise RuntimeError(f"embedding endpoint returned {len(data)} vectors for {len(batch)} texts")
            rows.extend(list(d.embedding) for d in data)
        if not rows:
            return np.zeros((0, 0))
        return l2_normalise(np.asarray(rows, dtype=np.float64))


EMBEDDERS = {
    "tfidf": TfidfSvdEmbedder,
    "sentence-transformers": SentenceTransformerEmbedder,
    "openai": OpenAIEmbedder,
}


def make_embedder(name: str = "tfidf", **kw: Any) -> Embedder:
    """An embedder by name: ``"tfidf"`` | ``"sentence-transformers"`` | ``"openai"``."""
    try:
        cls = EMBEDDERS[name]
    except KeyError:
        raise ValueError(f"unknown embedder {name!r}; choose one of {', '.join(EMBEDDERS)}") from None
    return cls(**kw)


__all__ = [
    "EMBEDDERS",
    "Embedder",
    "OpenAIEmbedder",
    "SentenceTransformerEmbedder",
    "TfidfSvdEmbedder",
    "l2_normalise",
    "make_embedder",
]
