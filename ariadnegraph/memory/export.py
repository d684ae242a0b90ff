"""The temporal knowledge graph as a networkx graph, and that graph as a file (GraphML or node-link JSON).

One node per entity (its canonical key; attribute ``name`` is the display form), one edge per fact
(``subject_key -> object_key``, keyed by the fact id) carrying the fact's relation, surface forms and
its times: ``valid_from``, ``valid_to`` (absent while the fact holds), ``recorded_at`` and ``source_step``
(absent when the fact came from no observation). GraphML has no null, so an absent time is left out
rather than written as a sentinel; and XML 1.0 cannot hold most control characters, which a game's text can
put in a fact: GraphML writes each as its escape (``\\x01``), so the file parses.
"""

from __future__ import annotations

import json
import re
from typing import TYPE_CHECKING, Any

import networkx as nx

if TYPE_CHECKING:  # (a type only: `ariadne --help` lists the formats without loading memory's stores)
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


# what XML 1.0 cannot hold (its Char production) of what a memory can: C0 controls but tab and newlines, U+FFFE-F
NOT_XML = re.compile("[\x00-\x08\x0b\x0c\x0e-\x1f\ufffe\uffff]")


def xml_text(value: Any) -> Any:
    """``value`` with what XML 1.0 cannot hold written as its escape (``\\x01``, ``\\uffff``); not text: as it is."""
    if not isinstance(value, str):
        return value
    return NOT_XML.sub(lambda m: f"\\x{ord(m[0]):02x}" if ord(m[0]) < 0x100 else f"\\u{ord(m[0]):04x}", value)


def _xml_safe(graph: nx.MultiDiGraph) -> nx.MultiDiGraph:
    """A copy of ``graph`` whose node ids, keys and attributes XML can hold."""
    safe = nx.MultiDiGraph(**{k: xml_text(v) for k, v in graph.graph.items()})
    safe.add_nodes_from((xml_text(n), {k: xml_text(v) for k, v in data.items()}) for n, data in graph.nodes(data=True))
    safe.add_edges_from(
        (xml_text(u), xml_text(v), xml_text(key), {k: xml_text(x) for k, x in data.items()})
        for u, v, key, data in graph.edges(keys=True, data=True)
    )
    return safe


def graph_text(graph: nx.MultiDiGraph, fmt: str) -> str:
    """``graph`` as GraphML or as networkx's node-link JSON."""
    if fmt == "graphml":
        return "\n".join(nx.generate_graphml(_xml_safe(graph))) + "\n"
    if fmt == "json":
        return json.dumps(nx.node_link_data(graph, edges="edges"), indent=1, sort_keys=True) + "\n"
    raise ValueError(f"unknown graph format '{fmt}': use {' or '.join(EXPORT_FORMATS)}")
