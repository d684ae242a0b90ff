"""Temporal knowledge-graph memory: facts that open and close over steps, episodes, retrieval, storage.

The names below are imported from their modules when first used (PEP 562), so a module that needs one light part of
memory (its facts, its conflict rules) does not load the vector store and the embeddings (Chroma: about a second)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from ..lazy import lazy_exports

if TYPE_CHECKING:
    from .conflicts import NO_RULES, ConflictRules
    from .embeddings import CachedEmbedder, HashingEmbeddings, VectorIndex, make_embeddings
    from .episodic import Episode, episodic_relevance, episodic_search
    from .facts import Fact, Triplet
    from .normalize import EntityNormalizer, normalize_relation, singularize
    from .retrieval import k_hop_nodes, order_by_time, semantic_search, stma_retrieve
    from .spatial import PLAYER, shortest_path, unexplored_exits
    from .store import EventLog, MemoryCorrupted, MemoryWriteFailed, VectorServerUnavailable
    from .temporal_kg import FactChange, KGView, TemporalKG
    from .world import WorldMemory

__all__ = [
    "CachedEmbedder",
    "ConflictRules",
    "Episode",
    "EntityNormalizer",
    "EventLog",
    "Fact",
    "FactChange",
    "HashingEmbeddings",
    "KGView",
    "MemoryCorrupted",
    "MemoryWriteFailed",
    "VectorServerUnavailable",
    "NO_RULES",
    "PLAYER",
    "TemporalKG",
    "Triplet",
    "VectorIndex",
    "WorldMemory",
    "episodic_relevance",
    "episodic_search",
    "k_hop_nodes",
    "make_embeddings",
    "normalize_relation",
    "order_by_time",
    "semantic_search",
    "shortest_path",
    "singularize",
    "stma_retrieve",
    "unexplored_exits",
]


_MODULE_OF = {
    "NO_RULES": "conflicts",
    "ConflictRules": "conflicts",
    "CachedEmbedder": "embeddings",
    "HashingEmbeddings": "embeddings",
    "VectorIndex": "embeddings",
    "make_embeddings": "embeddings",
    "Episode": "episodic",
    "episodic_relevance": "episodic",
    "episodic_search": "episodic",
    "Fact": "facts",
    "Triplet": "facts",
    "EntityNormalizer": "normalize",
    "normalize_relation": "normalize",
    "singularize": "normalize",
    "k_hop_nodes": "retrieval",
    "order_by_time": "retrieval",
    "semantic_search": "retrieval",
    "stma_retrieve": "retrieval",
    "PLAYER": "spatial",
    "shortest_path": "spatial",
    "unexplored_exits": "spatial",
    "EventLog": "store",
    "MemoryCorrupted": "store",
    "MemoryWriteFailed": "store",
    "VectorServerUnavailable": "store",
    "FactChange": "temporal_kg",
    "KGView": "temporal_kg",
    "TemporalKG": "temporal_kg",
    "WorldMemory": "world",
}


__getattr__ = lazy_exports(__name__, _MODULE_OF)
