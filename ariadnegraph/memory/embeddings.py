"""Embeddings for memory search: pluggable LangChain embeddings, an offline default, a cache, an index.

``make_embeddings("hashing")`` (the default) needs no download: it hashes words and character
trigrams into a fixed-size vector, so "grill"/"grilled" and "red apple"/"apple" land close together.
Any LangChain provider works with ``"provider:model"`` (e.g. ``openai:text-embedding-3-small``).
Every text is embedded once: :class:`CachedEmbedder` keeps vectors by text, and :class:`VectorIndex`
keeps the rows searched with one matrix product per batch of queries.
"""

from __future__ import annotations

import re
import zlib
from collections.abc import Hashable, Iterable, Sequence

import numpy as np
from langchain_core.embeddings import Embeddings

DEFAULT_EMBEDDINGS = "hashing"
_TOKEN = re.compile(r"[a-z0-9]+")


class HashingEmbeddings(Embeddings):
    """Deterministic, download-free embeddings from hashed words and character trigrams.

    Not a semantic model: it captures lexical overlap, which is what text-game entity names need.
    crc32 is used instead of ``hash()`` so vectors are identical across processes and runs.
    """

    def __init__(self, dim: int = 256) -> None:
        if dim < 8:
            raise ValueError("hashing embeddings need at least 8 dimensions")
        self.dim = dim

    @property
    def spec(self) -> str:
        return f"hashing:{self.dim}"

    def _features(self, text: str) -> Iterable[tuple[str, float]]:
        words = _TOKEN.findall(text.lower())
        for word in words:
            yield "w:" + word, 1.0
            padded = f"#{word}#"
            for i in range(len(padded) - 2):
                yield "c:" + padded[i : i + 3], 0.5

    def embed_one(self, text: str) -> np.ndarray:
        vector = np.zeros(self.dim, dtype=np.float32)
        for feature, weight in self._features(text):
            h = zlib.crc32(feature.encode())
            vector[h % self.dim] += weight if (h >> 31) & 1 else -weight
        norm = float(np.linalg.norm(vector))
        return vector / norm if norm else vector

    def embed_documents(self, texts: list[str]) -> list[list[float]]:
        return [self.embed_one(t).tolist() for t in texts]

    def embed_query(self, text: str) -> list[float]:
        return self.embed_one(text).tolist()


def make_embeddings(spec: str | None = None) -> Embeddings:
    """Build embeddings from ``"hashing[:DIM]"`` or a LangChain ``"provider:model"`` string."""
    spec = (spec or DEFAULT_EMBEDDINGS).strip()
    if spec == "hashing" or spec.startswith("hashing:"):
        _, _, dim = spec.partition(":")
        return HashingEmbeddings(int(dim) if dim else 256)
    if ":" not in spec:
        raise ValueError(f"embedding model '{spec}' names no provider; use 'provider:model' or 'hashing'")
    from langchain.embeddings import init_embeddings

    return init_embeddings(spec)


def embeddings_spec(embeddings: Embeddings) -> str:
    """The string that rebuilds ``embeddings`` with :func:`make_embeddings` (recorded on disk)."""
    spec = getattr(embeddings, "spec", None)
    if spec:
        return spec
    model = getattr(embeddings, "model", None) or getattr(embeddings, "model_name", None)
    provider = type(embeddings).__module__.split(".")[0].replace("langchain_", "")
    return f"{provider}:{model}" if model else type(embeddings).__name__


class CachedEmbedder:
    """Embeds each distinct text once and returns unit-length float32 vectors."""

    def __init__(self, embeddings: Embeddings) -> None:
        self.embeddings = embeddings
        self._cache: dict[str, np.ndarray] = {}
        self.calls = 0  # texts actually sent to the model: the cost that caching saves

    @property
    def dim(self) -> int | None:
        return next(iter(self._cache.values())).shape[0] if self._cache else getattr(self.embeddings, "dim", None)

    def remember(self, text: str, vector: Sequence[float]) -> None:
        """Seed the cache with a vector computed earlier (e.g. loaded back from Chroma)."""
        self._cache[text] = _unit(np.asarray(vector, dtype=np.float32))

    def embed(self, texts: Sequence[str]) -> np.ndarray:
        missing = [t for t in dict.fromkeys(texts) if t not in self._cache]
        if missing:
            self.calls += len(missing)
            if isinstance(self.embeddings, HashingEmbeddings):
                vectors = [self.embeddings.embed_one(t) for t in missing]
            else:
                vectors = self.embeddings.embed_documents(list(missing))
            for text, vector in zip(missing, vectors):
                self._cache[text] = _unit(np.asarray(vector, dtype=np.float32))
        if not texts:
            return np.zeros((0, self.dim or 0), dtype=np.float32)
        return np.stack([self._cache[t] for t in texts])

    def embed_one(self, text: str) -> np.ndarray:
        return self.embed([text])[0]


def _unit(vector: np.ndarray) -> np.ndarray:
    norm = float(np.linalg.norm(vector))
    return vector / norm if norm else vector


class VectorIndex:
    """Rows of unit vectors keyed by id; exact top-k by dot product (= cosine) for a batch of queries.

    Exact search over a contiguous float32 matrix: at game-memory sizes (≤100k rows) one matrix
    product beats an ANN index round-trip, and results are deterministic. Removal swaps in the last
    row, so add and remove are O(dim).
    """

    def __init__(self, dim: int) -> None:
        self.dim = dim
        self._matrix = np.zeros((64, dim), dtype=np.float32)
        self._ids: list[Hashable] = []
        self._row: dict[Hashable, int] = {}

    def __len__(self) -> int:
        return len(self._ids)

    def __contains__(self, item_id: Hashable) -> bool:
        return item_id in self._row

    @property
    def ids(self) -> list[Hashable]:
        return list(self._ids)

    def add(self, item_id: Hashable, vector: np.ndarray) -> None:
        if item_id in self._row:
            self._matrix[self._row[item_id]] = vector
            return
        if len(self._ids) == self._matrix.shape[0]:
            grown = np.zeros((self._matrix.shape[0] * 2, self.dim), dtype=np.float32)
            grown[: len(self._ids)] = self._matrix[: len(self._ids)]
            self._matrix = grown
        self._row[item_id] = len(self._ids)
        self._matrix[len(self._ids)] = vector
        self._ids.append(item_id)

    def remove(self, item_id: Hashable) -> None:
        row = self._row.pop(item_id, None)
        if row is None:
            return
        last = len(self._ids) - 1
        if row != last:
            moved = self._ids[last]
            self._matrix[row] = self._matrix[last]
            self._ids[row] = moved
            self._row[moved] = row
        self._ids.pop()

    def vector(self, item_id: Hashable) -> np.ndarray:
        return self._matrix[self._row[item_id]]

    def scores(self, queries: np.ndarray) -> np.ndarray:
        """Similarity of each query (rows) to every stored vector (columns, in ``ids`` order)."""
        return np.atleast_2d(queries) @ self._matrix[: len(self._ids)].T

    def top_k(self, queries: np.ndarray, k: int, allowed: set[Hashable] | None = None) -> list[list[tuple[Hashable, float]]]:
        """For each query row, the ``k`` most similar ids with scores, best first (ties: lower row)."""
        n = len(self._ids)
        queries = np.atleast_2d(queries)
        if n == 0 or k <= 0:
            return [[] for _ in range(queries.shape[0])]
        sims = self.scores(queries)
        if allowed is not None:
            mask = np.array([i in allowed for i in self._ids], dtype=bool)
            sims = np.where(mask, sims, -np.inf)
        k = min(k, n)
        results = []
        for row in sims:
            if k < n:
                part = np.argpartition(-row, k - 1)[:k]
            else:
                part = np.arange(n)
            order = part[np.lexsort((part, -row[part]))]
            results.append([(self._ids[j], float(row[j])) for j in order if np.isfinite(row[j])])
        return results
