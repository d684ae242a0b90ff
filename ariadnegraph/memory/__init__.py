"""Temporal knowledge-graph memory: facts that open and close over steps, episodes, retrieval, storage."""

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
