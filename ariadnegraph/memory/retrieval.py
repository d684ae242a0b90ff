"""Retrieval algorithms over a :class:`KGView`, as plain functions (networkx style).

- :func:`semantic_search` — AriGraph appendix A, algorithm 2: BFS from the query where each expansion
  takes the ``width`` facts most similar to the current query, up to ``depth`` levels.
- :func:`stma_retrieve` — STMA algorithm 1 + appendix C.2: top-``n`` entities by cosine similarity, then
  their ``k``-hop neighbourhood, and the facts among those entities.
- :func:`order_by_time` — DAVIS §3.4: show retrieved facts in the order they became true.
"""

from __future__ import annotations

from collections import deque
from collections.abc import Callable, Iterable, Sequence

import numpy as np

from .embeddings import VectorIndex
from .facts import Fact
from .temporal_kg import KGView

EmbedFn = Callable[[Sequence[str]], np.ndarray]


def semantic_search(
    query: str | Sequence[str],
    view: KGView,
    fact_index: VectorIndex,
    embed: EmbedFn,
    depth: int = 2,
    width: int = 5,
) -> list[Fact]:
    """AriGraph semantic search. Returns facts in the order the BFS found them (no duplicates).

    ``fact_index`` holds one vector per fact id of ``view`` (other ids are ignored). A query vertex at
    distance ≥ ``depth`` is not expanded, so ``depth=1`` returns just the top-``width`` facts for the
    query. Every vertex is enqueued once (the algorithm's "if v not in L"). Queries of one BFS level
    are embedded and scored together, so the cost is ``depth`` matrix products of
    (queries × facts × dim), not one per query.
    """
    queries = [query] if isinstance(query, str) else list(query)
    allowed = None if len(fact_index) == len(view) else set(view.facts)
    found: dict[int, Fact] = {}
    distance: dict[str, int] = {}
    frontier: list[str] = []
    for q in queries:
        if q not in distance:
            distance[q] = 0
            frontier.append(q)
    level = 0
    while frontier and level < depth:
        hits = fact_index.top_k(embed(frontier), width, allowed)
        next_frontier: list[str] = []
        for ranked in hits:
            for fact_id, _ in ranked:
                fact = view.facts.get(fact_id)  # type: ignore[arg-type]
                if fact is None:
                    continue
                found.setdefault(fact.id, fact)
                for vertex in (fact.subject, fact.object):
                    if vertex not in distance:
                        distance[vertex] = level + 1
                        next_frontier.append(vertex)
        frontier = next_frontier
        level += 1
    return list(found.values())


def k_hop_nodes(view: KGView, sources: Iterable[str], k: int, directed: bool = False) -> set[str]:
    """Entities within ``k`` edges of any source (STMA algorithm 3), sources included.

    One multi-source BFS over the view's adjacency; ``directed=False`` follows edges both ways, since
    "A west of B" makes B reachable from A as much as A from B.
    """
    graph = view.graph
    seen = {s for s in sources if s in graph}
    queue = deque((s, 0) for s in seen)
    succ, pred = graph._succ, graph._pred  # plain dict adjacency: avoids view objects on the hot path
    while queue:
        node, dist = queue.popleft()
        if dist >= k:
            continue
        neighbours = succ[node].keys() if directed else (succ[node].keys() | pred[node].keys())
        for nxt in neighbours:
            if nxt not in seen:
                seen.add(nxt)
                queue.append((nxt, dist + 1))
    return seen


def stma_retrieve(
    query: str,
    view: KGView,
    entity_index: VectorIndex,
    embed: EmbedFn,
    n: int = 8,
    k: int = 3,
    directed: bool = False,
) -> list[Fact]:
    """STMA retrieval: facts among the ``k``-hop neighbourhood of the ``n`` entities closest to ``query``.

    ``entity_index`` holds one vector per entity key; only entities present in ``view`` compete.
    Returns facts oldest first. Cost: one matrix product over entities plus a BFS over the visited part.
    """
    present = set(view.graph.nodes)
    allowed = None if len(entity_index) == len(present) else present
    top = [key for key, _ in entity_index.top_k(embed([query]), n, allowed)[0]]
    nodes = k_hop_nodes(view, top, k, directed)
    graph = view.graph
    facts = [
        data["fact"]
        for u in nodes
        for v, edges in graph._succ[u].items()
        if v in nodes
        for data in edges.values()
    ]
    return sorted(facts, key=lambda f: f.id)


def order_by_time(facts: Iterable[Fact], newest_first: bool = False) -> list[Fact]:
    """Sort by when facts became true, then when they were recorded (DAVIS's temporal ordering)."""
    ordered = sorted(facts, key=lambda f: (f.valid_from, f.recorded_at, f.id))
    return ordered[::-1] if newest_first else ordered
