"""The temporal knowledge graph as a networkx graph, and that graph as a file (GraphML or node-link JSON).

One node per entity (its canonical key; attribute ``name`` is the display form), one edge per fact
(``subject_key -> object_key``, keyed by the fact id) carrying the fact's relation, surface forms and
its times: ``valid_from``, ``valid_to`` (absent while the fact holds), ``recorded_at`` and ``source_step``
(absent when the fact came from no observation). GraphML has no null, so an absent time is left out
rather than written as a sentinel.
"""

from __future__ import annotations

import json
from typing import Any

import networkx as nx

from .world import WorldMemory

EXPORT_FORMATS = ("graphml", "json")


def kg_graph(memory: WorldMemory, as_of: int | None = None) -> nx.MultiDiGraph:
    """Every fact memory ever held (``as_of=None``: the whole history, closed facts included), or the
    facts that held at step ``as_of`` as memory knew them then."""
    facts = memory.all_facts if as_of is None else list(memory.as_of(as_of))
    names = memory.entities
    graph = nx.MultiDiGraph()
    if as_of is None:
        graph.add_nodes_from((key, {"name": name}) for key, name in sorted(names.items()))
    else:
        graph.graph["as_of"] = as_of
    for fact in sorted(facts, key=lambda f: f.id):
        for key, surface in ((fact.subject_key, fact.subject), (fact.object_key, fact.object)):
            if key not in graph:
                graph.add_node(key, name=names.get(key, surface))
        attributes: dict[str, Any] = {
            "fact": fact.id,
            "relation": fact.relation,
            "subject": fact.subject,
            "object": fact.object,
            "valid_from": fact.valid_from,
            "recorded_at": fact.recorded_at,
        }
        if fact.valid_to is not None:
            attributes["valid_to"] = fact.valid_to
        if fact.source is not None:
            attributes["source_step"] = fact.source
        graph.add_edge(fact.subject_key, fact.object_key, key=fact.id, **attributes)
    return graph


def graph_text(graph: nx.MultiDiGraph, fmt: str) -> str:
    """``graph`` as GraphML or as networkx's node-link JSON."""
    if fmt == "graphml":
        return "\n".join(nx.generate_graphml(graph)) + "\n"
    if fmt == "json":
        return json.dumps(nx.node_link_data(graph, edges="edges"), indent=1, sort_keys=True) + "\n"
    raise ValueError(f"unknown graph format '{fmt}': use {' or '.join(EXPORT_FORMATS)}")
