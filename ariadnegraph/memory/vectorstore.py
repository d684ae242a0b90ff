"""Chroma as the durable home of memory vectors (embedded ``PersistentClient`` or a server by URL).

Collections are created with our own embedding function, registered under a name Chroma records in
the collection config, so a reopened collection rebuilds it without touching Chroma's default (which
downloads a model and fails offline). Vectors are always passed in explicitly; the function exists so
Chroma never falls back to its default.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Any
from urllib.parse import urlparse

import numpy as np
from chromadb.api.types import Documents, EmbeddingFunction
from chromadb.utils.embedding_functions import register_embedding_function
from langchain_core.embeddings import Embeddings

from .embeddings import embeddings_spec, make_embeddings

CHROMA_URL_ENV = "ARIADNE_CHROMA_URL"


@register_embedding_function
class AriadneEmbeddingFunction(EmbeddingFunction[Documents]):
    """Chroma adapter for any embeddings :func:`make_embeddings` can build."""

    def __init__(self, spec: str = "hashing") -> None:
        self.spec = spec
        self._embeddings: Embeddings | None = None

    def __call__(self, input: Documents) -> Any:  # noqa: A002 - Chroma's parameter name
        if self._embeddings is None:
            self._embeddings = make_embeddings(self.spec)
        return [np.asarray(v, dtype=np.float32) for v in self._embeddings.embed_documents(list(input))]

    @staticmethod
    def name() -> str:
        return "ariadnegraph"

    def get_config(self) -> dict[str, Any]:
        return {"spec": self.spec}

    @staticmethod
    def build_from_config(config: dict[str, Any]) -> "AriadneEmbeddingFunction":
        return AriadneEmbeddingFunction(config.get("spec", "hashing"))

    def default_space(self) -> str:  # type: ignore[override]
        return "cosine"


def make_client(path: str | Path | None = None, url: str | None = None):
    """A Chroma client: HTTP when ``url`` is given, persistent at ``path``, else in-process ephemeral."""
    import chromadb
    from chromadb.config import Settings

    settings = Settings(anonymized_telemetry=False, allow_reset=False)
    if url:
        parsed = urlparse(url)
        return chromadb.HttpClient(
            host=parsed.hostname or "localhost",
            port=parsed.port or (443 if parsed.scheme == "https" else 8000),
            ssl=parsed.scheme == "https",
            settings=settings,
        )
    if path is not None:
        return chromadb.PersistentClient(path=str(path), settings=settings)
    return chromadb.EphemeralClient(settings=settings)


class ChromaVectors:
    """Vectors of one memory, in three collections: facts, entities and episodes."""

    KINDS = ("facts", "entities", "episodes")

    def __init__(self, client, namespace: str, embeddings) -> None:
        self._client = client
        function = AriadneEmbeddingFunction(embeddings_spec(embeddings))
        try:
            self._collections = {
                kind: client.get_or_create_collection(
                    name=f"{namespace}-{kind}",
                    embedding_function=function,
                    configuration={"hnsw": {"space": "cosine"}},
                )
                for kind in self.KINDS
            }
        except BaseException:
            self.close()  # the caller never gets the object to close
            raise

    def add(self, kind: str, ids: Sequence[str], texts: Sequence[str], vectors: np.ndarray) -> None:
        if ids:
            self._collections[kind].upsert(ids=list(ids), documents=list(texts), embeddings=np.asarray(vectors))

    def load(self, kind: str) -> dict[str, tuple[str, np.ndarray]]:
        """Everything stored of ``kind``: id → (text, vector)."""
        got = self._collections[kind].get(include=["documents", "embeddings"])
        return {
            i: (doc, np.asarray(vec, dtype=np.float32))
            for i, doc, vec in zip(
                got["ids"], got["documents"] or [], got["embeddings"] if got["embeddings"] is not None else []
            )
        }

    def close(self) -> None:
        """Release the client: Chroma keeps one ``System`` per path (its SQLite and index files open), counts
        the clients using it and stops it when the last is closed (``Client.close``, chromadb >= 1.5.2), so a
        closed memory holds no descriptor on its files while another memory open on the same path works on."""
        if self._client is not None:
            self._collections = {}
            client, self._client = self._client, None  # a second close is a no-op
            client.close()

    def query(self, kind: str, vector: np.ndarray, k: int) -> list[tuple[str, float]]:
        """Nearest stored items by cosine distance, via Chroma's own index."""
        collection = self._collections[kind]
        if collection.count() == 0:
            return []
        got = collection.query(query_embeddings=[np.asarray(vector)], n_results=min(k, collection.count()))
        return list(zip(got["ids"][0], [1.0 - d for d in got["distances"][0]]))
