"""The temporal knowledge graph: facts that open and close over steps, never deleted.

The live view (``current()``) is kept incrementally in a networkx ``MultiDiGraph`` so per-step
retrieval does not rebuild anything; ``as_of(step)`` builds a snapshot from the full fact history.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass
from typing import Any

import networkx as nx
import numpy as np

from .bulk import collector_paused
from .conflicts import ConflictRules
from .facts import Fact, Triplet
from .normalize import EntityNormalizer, normalize_relation

KG_EVENTS = ("fact", "close", "alias")  # event-log kinds that rebuild the KG (the log also holds episodes)


class EdgeTable:
    """The edges of a view as parallel numpy arrays (subject row, object row, fact id, fact).

    Neighbourhood walks over the whole graph (STMA's k hops, which run through hubs such as "open" or
    "north" and so reach most of the graph) become a few vectorised passes instead of a Python loop
    per node and edge. Kept incrementally for the live view: add and remove are O(1) (removal swaps
    in the last edge). Entity rows are never reused; an entity without edges simply reaches nothing.
    """

    def __init__(self) -> None:
        self.rows: dict[str, int] = {}  # entity key -> row
        self._subject = np.zeros(64, dtype=np.int32)
        self._object = np.zeros(64, dtype=np.int32)
        self._fact_id = np.zeros(64, dtype=np.int64)
        self._fact = np.full(64, None, dtype=object)
        self._position: dict[int, int] = {}  # fact id -> index in the arrays
        self._size = 0

    def __len__(self) -> int:
        return self._size

    def _row(self, key: str) -> int:
        row = self.rows.get(key)
        if row is None:
            row = self.rows[key] = len(self.rows)
        return row

    def add(self, fact: Fact) -> None:
        if fact.id in self._position:
            return
        if self._size == len(self._fact_id):
            capacity = 2 * self._size
            self._subject = np.resize(self._subject, capacity)
            self._object = np.resize(self._object, capacity)
            self._fact_id = np.resize(self._fact_id, capacity)
            self._fact = np.resize(self._fact, capacity)
        i = self._size
        self._subject[i], self._object[i] = self._row(fact.subject_key), self._row(fact.object_key)
        self._fact_id[i], self._fact[i] = fact.id, fact
        self._position[fact.id] = i
        self._size += 1

    def remove(self, fact_id: int) -> None:
        i = self._position.pop(fact_id, None)
        if i is None:
            return
        last = self._size - 1
        if i != last:
            self._subject[i], self._object[i] = self._subject[last], self._object[last]
            moved = int(self._fact_id[last])
            self._fact_id[i], self._fact[i] = moved, self._fact[last]
            self._position[moved] = i
        self._fact[last] = None
        self._size = last

    def facts_within(self, sources: Iterable[str], k: int, directed: bool = False) -> list[Fact]:
        """The facts whose two entities are within ``k`` edges of a source, oldest (lowest id) first.

        Same set as collecting the edges among :func:`k_hop_nodes`: each pass marks every entity one
        edge away from the marked ones (both ways unless ``directed``).
        """
        rows = [self.rows[s] for s in sources if s in self.rows]
        n = self._size
        if not rows or n == 0:
            return []
        subject, obj = self._subject[:n], self._object[:n]
        marked = np.zeros(len(self.rows), dtype=bool)
        marked[rows] = True
        count = int(np.count_nonzero(marked))
        for _ in range(k):
            if directed:
                marked[obj[marked[subject]]] = True
            else:
                touching = marked[subject] | marked[obj]
                marked[subject[touching]] = True
                marked[obj[touching]] = True
            grown = int(np.count_nonzero(marked))
            if grown == count:
                break
            count = grown
        inside = marked[subject] & marked[obj]
        ids = self._fact_id[:n][inside]
        return self._fact[:n][inside][np.argsort(ids, kind="stable")].tolist()


class KGView:
    """A read-only set of facts that hold at one moment, with a graph over their entities.

    Nodes are canonical entity keys (attribute ``name`` holds the display form); each fact is an edge
    ``subject_key -> object_key`` keyed by fact id (attribute ``fact``). ``edge_table`` holds the same
    edges as numpy arrays for vectorised walks.
    """

    def __init__(
        self,
        facts: dict[int, Fact],
        graph: nx.MultiDiGraph | Callable[[], nx.MultiDiGraph],
        step: int | None,
        edge_table: EdgeTable | Callable[[], EdgeTable] | None = None,
    ) -> None:
        self._facts = facts
        self._graph = graph  # or what builds it, on first use
        self.step = step  # None for the live view
        self._edge_table = edge_table

    @property
    def graph(self) -> nx.MultiDiGraph:
        if not isinstance(self._graph, nx.MultiDiGraph):
            self._graph = self._graph()
        return self._graph

    @classmethod
    def build(cls, facts: Iterable[Fact], step: int | None = None, names: dict[str, str] | None = None) -> "KGView":
        graph = nx.MultiDiGraph()
        table = EdgeTable()
        by_id: dict[int, Fact] = {}
        for fact in facts:
            _add_edge(graph, fact, names)
            table.add(fact)
            by_id[fact.id] = fact
        return cls(by_id, graph, step, table)

    @property
    def facts(self) -> dict[int, Fact]:
        return self._facts

    @property
    def edge_table(self) -> EdgeTable:
        if callable(self._edge_table):
            self._edge_table = self._edge_table()
        if self._edge_table is None:  # a view made from a bare graph: index its edges once
            table = EdgeTable()
            for _, _, fact in self.graph.edges(data="fact"):
                table.add(fact)
            self._edge_table = table
        return self._edge_table

    def __len__(self) -> int:
        return len(self._facts)

    def __iter__(self) -> Iterator[Fact]:
        return iter(sorted(self._facts.values(), key=lambda f: f.id))

    def __contains__(self, triplet: object) -> bool:
        return any(f.triplet == triplet for f in self._facts.values())

    def entity_name(self, key: str) -> str:
        return self.graph.nodes[key].get("name", key) if key in self.graph else key

    def triplets(self) -> set[Triplet]:
        return {f.triplet for f in self._facts.values()}

    def keys(self) -> set[tuple[str, str, str]]:
        return {f.key for f in self._facts.values()}

    def find(
        self, subject_key: str | None = None, relation: str | None = None, object_key: str | None = None
    ) -> list[Fact]:
        """Facts matching every given canonical part, oldest first. Uses the graph's adjacency when it can."""
        if subject_key is not None:
            if subject_key not in self.graph:
                return []
            candidates = (d["fact"] for _, _, d in self.graph.out_edges(subject_key, data=True))
        elif object_key is not None:
            if object_key not in self.graph:
                return []
            candidates = (d["fact"] for _, _, d in self.graph.in_edges(object_key, data=True))
        else:
            candidates = (fact for fact in self._facts.values())
        found = [
            f
            for f in candidates
            if (relation is None or f.relation == relation)
            and (subject_key is None or f.subject_key == subject_key)
            and (object_key is None or f.object_key == object_key)
        ]
        return sorted(found, key=lambda f: f.id)

    def incident(self, key: str) -> list[Fact]:
        """Every fact touching entity ``key`` (as subject or object), oldest first."""
        if key not in self.graph:
            return []
        facts = {d["fact"].id: d["fact"] for _, _, d in self.graph.out_edges(key, data=True)}
        facts.update({d["fact"].id: d["fact"] for _, _, d in self.graph.in_edges(key, data=True)})
        return sorted(facts.values(), key=lambda f: f.id)


def _add_edge(graph: nx.MultiDiGraph, fact: Fact, names: dict[str, str] | None = None) -> None:
    for key, name in ((fact.subject_key, fact.subject), (fact.object_key, fact.object)):
        if key not in graph:
            graph.add_node(key, name=(names or {}).get(key, name))
    graph.add_edge(fact.subject_key, fact.object_key, key=fact.id, fact=fact)


@dataclass(frozen=True)
class FactChange:
    """What one update did: facts opened, facts closed (as they are after closing), facts reaffirmed."""

    added: tuple[Fact, ...] = ()
    closed: tuple[Fact, ...] = ()
    kept: tuple[Fact, ...] = ()


class TemporalKG:
    """All facts ever recorded, with an incrementally maintained view of the ones that hold now."""

    def __init__(self, normalizer: EntityNormalizer | None = None, rules: ConflictRules | None = None) -> None:
        self.normalizer = normalizer or EntityNormalizer()
        self.rules = rules if rules is not None else ConflictRules()
        self._facts: dict[int, Fact] = {}  # every fact, open or closed, by id
        self._open: dict[tuple[str, str, str], int] = {}  # canonical key -> id of the open fact
        self._names: dict[str, str] = {}  # entity key -> first display name
        # the open facts as a graph and as arrays; None while not built (after a snapshot: on first use)
        self._live_graph: nx.MultiDiGraph | None = nx.MultiDiGraph()
        self._live_table: EdgeTable | None = EdgeTable()
        self._live_facts: dict[int, Fact] = {}
        # called with each fact as it is stored, new or put back from disk: indexes over the whole history kept as
        # facts come (facts are never removed, and closing one changes none of its subject, relation, object, steps)
        self.watchers: list[Callable[[Fact], None]] = []
        self._next_id = 1
        self.last_step = 0

    # -- reading -----------------------------------------------------------------------------------
    def __len__(self) -> int:
        return len(self._facts)

    @property
    def all_facts(self) -> list[Fact]:
        """Every fact ever recorded, open and closed, in recording order."""
        return [self._facts[i] for i in sorted(self._facts)]

    def get(self, fact_id: int) -> Fact:
        return self._facts[fact_id]

    def entity_name(self, key: str) -> str:
        return self._names.get(key, key)

    @property
    def entities(self) -> dict[str, str]:
        """Canonical key -> display name of every entity ever seen."""
        return dict(self._names)

    def current(self) -> KGView:
        """The facts that hold now. Live: it reflects later updates too; copy with ``as_of`` to freeze."""
        return KGView(
            self._live_facts,
            self._live_graph if self._live_graph is not None else lambda: self._live,
            None,
            self._live_table if self._live_table is not None else lambda: self._live_edges,
        )

    @property
    def _live(self) -> nx.MultiDiGraph:
        """The open facts' graph, built from them on first use after a snapshot restore."""
        if self._live_graph is None:
            graph = nx.MultiDiGraph()
            with collector_paused():
                for fact_id in sorted(self._live_facts):
                    _add_edge(graph, self._live_facts[fact_id], self._names)
            self._live_graph = graph
        return self._live_graph

    @property
    def _live_edges(self) -> EdgeTable:
        if self._live_table is None:
            table = EdgeTable()
            for fact_id in sorted(self._live_facts):
                table.add(self._live_facts[fact_id])
            self._live_table = table
        return self._live_table

    def history(self, as_of: int | None = None) -> list[Fact]:
        """Every fact recorded, open and closed, in recording order, as memory knew them at step ``as_of``
        (None: now): nothing recorded later, and a fact closed later still open (:meth:`Fact.known_at`)."""
        if as_of is None:
            return self.all_facts
        known = (self._facts[i].known_at(as_of) for i in sorted(self._facts))
        return [fact for fact in known if fact is not None]

    def as_of(self, step: int) -> KGView:
        """The facts that held at ``step``, exactly as memory knew them then (:meth:`Fact.held_at`)."""
        return KGView.build((f for f in self.history(step) if f.valid_at(step)), step, self._names)

    def find_open(self, subject: str, relation: str, obj: str) -> Fact | None:
        key = (self.normalizer.key(subject), normalize_relation(relation), self.normalizer.key(obj))
        fact_id = self._open.get(key)
        return self._facts[fact_id] if fact_id is not None else None

    # -- writing -----------------------------------------------------------------------------------
    def make_fact(self, subject: str, relation: str, obj: str, step: int, source: int | None = None) -> Fact:
        """A new (not yet stored) fact with canonical keys filled in."""
        subject, obj = self.normalizer.clean(subject), self.normalizer.clean(obj)
        canonical_relation = normalize_relation(relation)
        if not subject or not obj or not canonical_relation:
            raise ValueError(f"incomplete triplet: ({subject!r}, {relation!r}, {obj!r})")
        s_key, o_key = self.normalizer.key(subject), self.normalizer.key(obj)
        return Fact(
            id=self._next_id,
            subject=self._names.get(s_key, subject),
            relation=canonical_relation,
            object=self._names.get(o_key, obj),
            subject_key=s_key,
            object_key=o_key,
            valid_from=step,
            recorded_at=step,
            source=source,
        )

    def update(
        self,
        step: int,
        triplets: Iterable[Triplet],
        outdated: Iterable[int | Triplet] = (),
        source: int | None = None,
        invalidate: bool = True,
        by_rules: bool = True,
    ) -> FactChange:
        """Record what was observed at ``step``.

        ``outdated`` names facts (ids or triplets) a caller knows to be false now; contradicted facts
        found by the conflict rules are closed too, unless ``by_rules`` is off (AriGraph: only what the model
        names is closed). A triplet that is already open is kept, not duplicated. With ``invalidate`` off nothing
        is closed: the KG only appends timestamped facts (DAVIS), and readers take the newest. Returns what changed
        so callers can log and embed exactly that.
        """
        if step < self.last_step:
            raise ValueError(f"step {step} is before the last recorded step {self.last_step}")
        self.last_step = step
        added: list[Fact] = []
        kept: list[Fact] = []
        closed: list[Fact] = []
        for item in outdated if invalidate else ():
            fact = self._resolve_open(item)
            if fact is not None:
                closed.append(self._close(fact, step))
        seen: set[tuple[str, str, str]] = set()
        for subject, relation, obj in triplets:
            candidate = self.make_fact(subject, relation, obj, step, source)
            if candidate.key in seen:
                continue
            seen.add(candidate.key)
            existing = self._open.get(candidate.key)
            if existing is not None:
                kept.append(self._facts[existing])
                continue
            for other in self._conflicting(candidate) if invalidate and by_rules else ():
                if other.key not in seen:  # two facts of the same step never close each other
                    closed.append(self._close(other, step))
            added.append(self._store(candidate))
        return FactChange(tuple(added), tuple(closed), tuple(kept))

    def _resolve_open(self, item: int | Triplet) -> Fact | None:
        if isinstance(item, int):
            fact = self._facts.get(item)
            return fact if fact is not None and fact.is_open else None
        return self.find_open(*item)

    def _conflicting(self, new: Fact) -> list[Fact]:
        """Open facts the rules say ``new`` contradicts.

        ConflictRules only relate facts sharing the subject, or (object-exclusive relations) sharing
        object and relation. So candidates are the subject's outgoing edges and, for those relations,
        the object's incoming ones -- never every fact touching the object: hubs such as "open",
        "north" or "inventory" touch thousands.
        """
        succ, pred = self._live._succ, self._live._pred
        candidates: dict[int, Fact] = {}
        for edges in succ.get(new.subject_key, {}).values():
            for fact_id, data in edges.items():
                candidates[fact_id] = data["fact"]
        if new.relation in self.rules.object_exclusive:
            for edges in pred.get(new.object_key, {}).values():
                for fact_id, data in edges.items():
                    if data["fact"].relation == new.relation:
                        candidates[fact_id] = data["fact"]
        return [f for f in candidates.values() if self.rules.contradicts(new, f)]

    def _store(self, fact: Fact) -> Fact:
        self._names.setdefault(fact.subject_key, fact.subject)
        self._names.setdefault(fact.object_key, fact.object)
        self._facts[fact.id] = fact
        self._next_id = max(self._next_id, fact.id + 1)
        if fact.is_open:
            self._open[fact.key] = fact.id
            self._live_facts[fact.id] = fact
            if self._live_graph is not None:
                _add_edge(self._live_graph, fact, self._names)
            if self._live_table is not None:
                self._live_table.add(fact)
        for watch in self.watchers:
            watch(fact)
        return fact

    def _close(self, fact: Fact, step: int) -> Fact:
        closed = fact.closed(step)
        self._facts[fact.id] = closed
        self._open.pop(fact.key, None)
        graph, table = self._live, self._live_edges  # built (if they were not) while the fact is still open
        self._live_facts.pop(fact.id, None)
        table.remove(fact.id)
        graph.remove_edge(fact.subject_key, fact.object_key, key=fact.id)
        succ, pred = graph._succ, graph._pred
        for key in (fact.subject_key, fact.object_key):
            # degree 0, checked in O(1): degree() would sum over all neighbours of hubs like "closed"
            if key in succ and not succ[key] and not pred[key]:
                graph.remove_node(key)
        return closed

    # -- replay (persistence) ----------------------------------------------------------------------
    def restore_fact(self, fact: Fact) -> None:
        """Put back a fact exactly as logged (used when reopening from disk)."""
        self.last_step = max(self.last_step, fact.recorded_at)
        self._store(fact)

    def restore_all(self, facts: Iterable[Fact], names: dict[str, str], next_id: int, last_step: int) -> None:
        """Put back a whole saved state at once (a snapshot): every fact as it is now, open or closed.
        The open facts' graph and arrays are built when first used."""
        self._live_graph, self._live_table = None, None
        self._names.update(names)
        for fact in facts:
            self._store(fact)
        self._next_id = max(self._next_id, next_id)
        self.last_step = max(self.last_step, last_step)

    def snapshot_state(self) -> tuple[list[Fact], dict[str, str], int, int]:
        """What ``restore_all`` takes: every fact (in id order), the display names, the next id, the last step."""
        return self.all_facts, dict(self._names), self._next_id, self.last_step

    def restore_close(self, fact_id: int, step: int) -> Fact:
        self.last_step = max(self.last_step, step)
        return self._close(self._facts[fact_id], step)

    def restore_event(self, kind: str, payload: dict[str, Any]) -> Fact | None:
        """Apply one logged KG event (one of :data:`KG_EVENTS`) as recorded; the fact it added or closed."""
        if kind == "fact":
            fact = Fact.from_dict(payload)
            self.restore_fact(fact)
            return fact
        if kind == "close":
            return self.restore_close(payload["id"], payload["step"])
        if kind == "alias":
            self.normalizer.add_alias(payload["alias"], payload["canonical"])
            return None
        raise ValueError(f"not a KG event: {kind!r}")
