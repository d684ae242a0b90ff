"""Dated transitions: what the world model of DAVIS questions (§3.2-3.4, algorithm 2's graphQA).

DAVIS keeps every training transition in its temporal KG as tuples ``(v_i, e_j, v_k, τ)``: a fact and
the time it was introduced. Here a :class:`DatedFact` is such a tuple, dated by the run it came from
(a gold run, or this episode) and the step of that run, with the command that led to it. Facts of
other runs are history only: they are never part of a new episode's current state (``WorldMemory``
holds only the episode's own facts), they are only found by this search.

The search is §3.4's, as plain functions over a list of dated facts:

1. :func:`entity_types` / :func:`narrow`: the entities of the kinds the question is about;
2. :func:`top_entities`: the two of them most relevant to the question;
3. :func:`expand`: their neighbours, level by level, until nothing new is reached (the maximal
   subgraph), or until the subgraph holds ``limit`` facts;
4. :func:`in_time_order`: the subgraph's facts by run, then step, the sequence handed to the model.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from dataclasses import asdict, dataclass
from typing import Any

import numpy as np

from .facts import Fact, Triplet

THIS_EPISODE = "this episode"  # the source of the facts the running episode recorded itself
TOP_ENTITIES = 2  # §3.4: "the two most relevant entities"
SUBGRAPH_LIMIT = 60  # most facts one answer reads (a maximal subgraph through hubs can hold the whole graph)

# Entity kinds the search narrows to (DAVIS's PER/LOC types, for the worlds our games describe),
# read from the relations an entity takes part in.
PLACE, THING, STATE, DIRECTION, AGENT = "place", "thing", "state", "direction", "agent"
ENTITY_TYPES = (PLACE, THING, STATE, DIRECTION, AGENT)
_DIRECTIONS = frozenset(
    {"north", "south", "east", "west", "up", "down", "northeast", "northwest", "southeast", "southwest"}
)
_AGENTS = frozenset({"player", "you", "agent", "i"})


@dataclass(frozen=True)
class DatedFact:
    """``subject --relation--> object``, learned at ``step`` of run ``source`` after ``action``."""

    subject: str
    relation: str
    object: str
    source: str  # "gold:ENV:seed=N" (a gold run read into memory), or THIS_EPISODE
    step: int
    action: str | None = None

    @property
    def triplet(self) -> Triplet:
        return (self.subject, self.relation, self.object)

    def describe(self) -> str:
        """The line the model reads: when, after what, and the fact."""
        after = f" after '{self.action}'" if self.action else ""
        return f"[{self.source}, step {self.step}]{after}: {self.subject}, {self.relation}, {self.object}"

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> "DatedFact":
        return cls(
            str(data["subject"]),
            str(data["relation"]),
            str(data["object"]),
            str(data["source"]),
            int(data["step"]),
            data.get("action"),
        )


def dated(facts: Iterable[Fact], source: str, actions: dict[int, str | None]) -> list[DatedFact]:
    """A run's facts (open or closed: every transition it saw), dated by the step that introduced them;
    ``actions``: the command played at each step."""
    found = []
    for fact in sorted(facts, key=lambda f: (f.recorded_at, f.id)):
        step = fact.source if fact.source is not None else fact.recorded_at
        found.append(DatedFact(fact.subject, fact.relation, fact.object, source, step, actions.get(step)))
    return found


def _key(name: str) -> str:
    return " ".join(name.lower().split())


def entity_types(facts: Iterable[DatedFact]) -> dict[str, set[str]]:
    """Each entity's kinds, from the relations it takes part in (an entity may have several)."""
    kinds: dict[str, set[str]] = {}

    def mark(name: str, kind: str) -> None:
        kinds.setdefault(_key(name), set()).add(kind)

    for f in facts:
        subject, obj, relation = _key(f.subject), _key(f.object), _key(f.relation)
        for name in (subject, obj):
            if name in _AGENTS:
                mark(name, AGENT)
            elif name in _DIRECTIONS:
                mark(name, DIRECTION)
        if relation == "is":
            mark(obj, STATE)
        elif relation == "has exit" or (relation.endswith(" of") and relation.split()[0] in _DIRECTIONS):
            mark(subject, PLACE)
            if relation != "has exit":
                mark(obj, PLACE)
        elif subject in _AGENTS and relation in ("in", "at"):
            mark(obj, PLACE)
    for f in facts:  # what is nothing else is a thing (objects, containers, ingredients)
        for name in (_key(f.subject), _key(f.object)):
            if not kinds.get(name):
                kinds.setdefault(name, set()).add(THING)
    return kinds


def narrow(facts: Sequence[DatedFact], types: Iterable[str]) -> list[str]:
    """The entities of any of ``types`` (all entities when none of them is known), in the order first seen."""
    kinds = entity_types(facts)
    wanted = set(types) & set(ENTITY_TYPES)
    order = list(dict.fromkeys(_key(n) for f in facts for n in (f.subject, f.object)))
    chosen = [name for name in order if kinds.get(name, set()) & wanted]
    return chosen or order


EmbedFn = Callable[[Sequence[str]], np.ndarray]


def top_entities(
    question: str, candidates: Sequence[str], embed: EmbedFn, named: Sequence[str] = (), k: int = TOP_ENTITIES
) -> list[str]:
    """§3.4: the ``k`` candidates most relevant to ``question``: first the closest candidate to each entity
    the model ``named``, then the candidates closest to the question itself (cosine similarity; a
    candidate spelled as asked comes first)."""
    if not candidates:
        return []
    vectors = _unit(embed(list(candidates)))

    def ranked(text: str) -> list[str]:
        scores = vectors @ _unit(embed([text]))[0]
        exact = [c for c in candidates if c == _key(text)]
        return [*exact, *(candidates[i] for i in np.argsort(-scores, kind="stable").tolist())]

    chosen: list[str] = []
    for wish in (n for n in named if n.strip()):
        best = ranked(wish)[0]
        if best not in chosen and len(chosen) < k:
            chosen.append(best)
    for candidate in ranked(question):
        if len(chosen) >= k:
            break
        if candidate not in chosen:
            chosen.append(candidate)
    return chosen


def _unit(vectors: np.ndarray) -> np.ndarray:
    rows = np.asarray(vectors, dtype=np.float32)
    return rows / np.maximum(np.linalg.norm(rows, axis=1, keepdims=True), 1e-9)


def expand(
    facts: Sequence[DatedFact], seeds: Iterable[str], limit: int = SUBGRAPH_LIMIT, hops: int | None = None
) -> list[DatedFact]:
    """§3.4 step 1: the facts reached from ``seeds`` by adding neighbours, level by level, until no new
    entity is reached (``hops`` levels at most when given); a level that would pass ``limit`` facts adds
    its facts only up to it (the nearest levels are kept whole)."""
    by_entity: dict[str, list[int]] = {}
    for i, f in enumerate(facts):
        by_entity.setdefault(_key(f.subject), []).append(i)
        by_entity.setdefault(_key(f.object), []).append(i)
    reached = {_key(s) for s in seeds if _key(s) in by_entity}
    frontier, level = set(reached), 0
    taken: list[int] = []
    seen: set[int] = set()
    while frontier and len(taken) < limit and (hops is None or level < hops):
        new_entities: set[str] = set()
        for name in sorted(frontier):
            for i in by_entity[name]:
                if i in seen:
                    continue
                seen.add(i)
                if len(taken) < limit:
                    taken.append(i)
                for other in (_key(facts[i].subject), _key(facts[i].object)):
                    if other not in reached:
                        new_entities.add(other)
        reached |= new_entities
        frontier, level = new_entities, level + 1
    return [facts[i] for i in sorted(taken)]


def in_time_order(facts: Iterable[DatedFact], sources: Sequence[str] = ()) -> list[DatedFact]:
    """§3.4 step 2: by run (``sources``' order, the rest after them in name order, this episode last),
    then by step: each run's events in the order they happened."""
    rank = {source: i for i, source in enumerate(sources)}

    def when(f: DatedFact) -> tuple[int, str, int]:
        place = len(rank) + 1 if f.source == THIS_EPISODE else rank.get(f.source, len(rank))
        return (place, f.source, f.step)

    return sorted(facts, key=when)


def graph_search(
    question: str,
    facts: Sequence[DatedFact],
    embed: EmbedFn,
    types: Iterable[str],
    named: Sequence[str] = (),
    limit: int = SUBGRAPH_LIMIT,
) -> tuple[list[str], list[DatedFact]]:
    """Narrow, pick the top two, expand, order: (the two entities, the dated facts for the answer)."""
    facts = list(facts)
    seeds = top_entities(question, narrow(facts, types), embed, named)
    sources = list(dict.fromkeys(f.source for f in facts))
    return seeds, in_time_order(expand(facts, seeds, limit), sources)
