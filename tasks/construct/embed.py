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

:class:`CachedEmbedder` keeps what an embedder computed on disk, so a round does not embed the
same texts again: a model embedder's vector per text (``per_text = True``: a text's vector does
not depend on the other texts), a corpus-fitted embedder's (TF-IDF + SVD) whole matrix per exact
list of texts (a text's vector depends on every text it was fitted with). Keys are the
embedder's settings and the texts' SHA-256, so a cached matrix equals a fresh one.
"""

from __future__ import annotations

import hashlib
import json
import os
import tempfile
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
    per_text = False  # fitted on each call's texts

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
    per_text = True

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
    per_text = True

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


def embedder_fingerprint(emb: Embedder) -> str:
    """A short hash of what decides an embedder's vectors: its class, name and plain settings
    (and scikit-learn's version for the corpus-fitted TF-IDF + SVD)."""
    settings = {k: v for k, v in sorted(vars(emb).items())
                if not k.startswith("_") and isinstance(v, str | int | float | bool | tuple | type(None))}
    ident = {"class": f"{type(emb).__module__}.{type(emb).__qualname__}", "name": getattr(emb, "name", ""),
             "settings": settings}
    if isinstance(emb, TfidfSvdEmbedder):
        import sklearn

        ident["sklearn"] = sklearn.__version__
    return hashlib.sha256(json.dumps(ident, sort_keys=True, default=str).encode()).hexdigest()[:16]


def _text_hash(text: str) -> str:
    return hashlib.sha256(text.encode("utf-8", "surrogatepass")).hexdigest()


class CachedEmbedder:
    """``inner`` with its results kept in ``folder`` (``<folder>/<embedder fingerprint>/``).

    Per-text embedders (``inner.per_text``) store one vector per text and embed only the texts
    not stored yet; the others store one matrix per exact list of texts (the newest
    ``max_sets`` kept). An unreadable or mismatched file is recomputed and rewritten; a folder
    that cannot be written leaves the cache out (the result is the same, only slower).
    ``hits``/``misses`` count texts (per text) or calls (per list).
    """

    def __init__(self, inner: Embedder, folder: str | os.PathLike[str], *, max_sets: int = 32) -> None:
        self.inner = inner
        self.name = getattr(inner, "name", type(inner).__name__)
        self.per_text = bool(getattr(inner, "per_text", False))
        self.folder = Path(folder) / embedder_fingerprint(inner)
        self.max_sets = int(max_sets)
        self.hits = 0
        self.misses = 0

    def embed(self, texts: list[str]) -> np.ndarray:
        docs = _clean_texts(texts)
        if not docs:
            return self.inner.embed(list(texts))
        return self._per_text(list(texts), docs) if self.per_text else self._per_set(list(texts), docs)

    def _per_set(self, texts: list[str], docs: list[str]) -> np.ndarray:
        h = hashlib.sha256()
        for t in docs:
            h.update(f"{len(t)}:".encode())
            h.update(t.encode("utf-8", "surrogatepass"))
        path = self.folder / f"set-{h.hexdigest()}.npy"
        cached = _load(path, rows=len(docs))
        if cached is not None:
            self.hits += 1
            return cached
        self.misses += 1
        x = np.asarray(self.inner.embed(texts))
        if _save(path, x):
            self._prune()
        return x

    def _per_text(self, texts: list[str], docs: list[str]) -> np.ndarray:
        keys = [_text_hash(t) for t in docs]
        rows: dict[str, np.ndarray] = {}
        for k in dict.fromkeys(keys):
            v = _load(self.folder / k[:2] / f"{k}.npy")
            if v is not None and v.ndim == 1:
                rows[k] = v
        todo = [k for k in dict.fromkeys(keys) if k not in rows]
        self.hits += sum(1 for k in keys if k in rows)
        self.misses += len(keys) - sum(1 for k in keys if k in rows)
        if todo:
            first = {k: i for i, k in reversed(list(enumerate(keys)))}
            fresh = np.asarray(self.inner.embed([texts[first[k]] for k in todo]))
            for k, v in zip(todo, fresh, strict=True):
                rows[k] = v
                _save(self.folder / k[:2] / f"{k}.npy", v)
        dims = {rows[k].shape[0] for k in keys}
        if len(dims) != 1:  # stored vectors of another size: embed the whole list afresh
            return np.asarray(self.inner.embed(texts))
        return np.stack([rows[k] for k in keys])

    def _prune(self) -> None:
        sets = sorted(self.folder.glob("set-*.npy"), key=lambda p: p.stat().st_mtime, reverse=True)
        for old in sets[self.max_sets:]:
            old.unlink(missing_ok=True)


def _load(path: Path, rows: int | None = None) -> np.ndarray | None:
    try:
        x = np.load(path, allow_pickle=False)
    except (OSError, ValueError, EOFError):
        return None
    if rows is not None and (x.ndim != 2 or x.shape[0] != rows):
        return None
    return x


def _save(path: Path, x: np.ndarray) -> bool:
    """Write ``x`` atomically (a temporary file renamed); False when the folder cannot be written."""
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=".tmp-", suffix=".npy")
        with os.fdopen(fd, "wb") as f:
            np.save(f, np.asarray(x), allow_pickle=False)
        os.replace(tmp, path)
        return True
    except OSError:
        return False


def cached_embedder(emb: Embedder, folder: str | os.PathLike[str] | None = None) -> Embedder:
    """``emb`` with the on-disk cache in ``folder`` (default ``<cache root>/embeddings``, see
    :func:`tasks.paths.cache_root`), or ``emb`` itself when the project's caches are off."""
    if folder is None:
        from tasks.paths import cache_root

        root = cache_root()
        if root is None:
            return emb
        folder = root / "embeddings"
    return CachedEmbedder(emb, folder)


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
    "CachedEmbedder",
    "Embedder",
    "OpenAIEmbedder",
    "SentenceTransformerEmbedder",
    "TfidfSvdEmbedder",
    "cached_embedder",
    "embedder_fingerprint",
    "l2_normalise",
    "make_embedder",
]
