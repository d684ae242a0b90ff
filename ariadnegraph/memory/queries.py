"""The memory's read side: what the agent, the KG tools and the evaluations ask a :class:`~.world.WorldMemory`.

``MemoryQueries`` holds the query API (views as of a step, AriGraph's semantic and episodic search, STMA's
retrieval, the map, names and facts); ``world.py`` holds the storage side (the event log, snapshots, Chroma,
the one write per step) and mixes this in, so a reader learns the API here and a change to storage stays there.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import Any, cast

from . import objects, spatial
from .embeddings import CachedEmbedder, VectorIndex
from .episodic import Episode, EpisodeStore, episodic_search
from .facts import Fact, Triplet
from .objects import HistoryDigest
from .retrieval import order_by_time, semantic_search, stma_retrieve
from .temporal_kg import KGView, TemporalKG
from .transitions import DatedFact, dated


class MemoryQueries:
    """The query API over the state a WorldMemory keeps (it sets these attributes when it opens)."""

    kg: TemporalKG
    digest: HistoryDigest  # what object memory asks of the whole history, kept as facts are stored
    episodes: EpisodeStore
    embedder: CachedEmbedder
    fact_index: VectorIndex  # open facts only
    entity_index: VectorIndex  # every entity ever seen, by key
    episode_index: VectorIndex  # every episode, by step
    _episodes_by_fact: dict[int, list[int]] | None  # fact id -> steps of the episodes linked to it (None: not built)
    _last_episode: int | None  # the newest episode's step (None: not yet known)

    # -- views -------------------------------------------------------------------------------------
    def current(self) -> KGView:
        return self.kg.current()

    # -- object memory over the whole history, now (a view as of a past step reads its history instead) -----------
    def visited_rooms(self) -> list[str]:
        """Rooms the player has been in, in order of first visit (``spatial.visited_locations`` over every fact)."""
        return self.digest.visited()

    def ever_open(self) -> set[str]:
        """Things memory has ever seen open (``objects.ever_open`` over every fact)."""
        return self.digest.ever_open()

    def last_seen(self, thing: str) -> Fact | None:
        """The newest placement of ``thing`` (a key) ever recorded, open or closed (``objects.last_seen``)."""
        fact_id = self.digest.last_placed(thing)
        return None if fact_id is None else self.kg.get(fact_id)

    def leads(self, here: str | None) -> list[objects.Lead]:
        """Where to search next, nearest first from ``here`` (``objects.leads``)."""
        return objects.leads(self.current(), here, self.ever_open(), set(self.visited_rooms()))

    def as_of(self, step: int) -> KGView:
        return self.kg.as_of(step)

    def _view(self, as_of: int | None) -> KGView:
        return self.kg.current() if as_of is None else self.kg.as_of(as_of)

    def _fact_index_for(self, view: KGView) -> VectorIndex:
        if view.step is None:
            return self.fact_index
        index = VectorIndex(self.fact_index.dim)
        facts = list(view.facts.values())
        for fact, vector in zip(facts, self.embedder.embed([f.text() for f in facts])):
            index.add(fact.id, vector)
        return index

    def _index_episode(self, episode: Episode) -> None:
        if self._episodes_by_fact is None:
            return  # not built yet: built whole on first use
        for fact_id in episode.fact_ids:
            self._episodes_by_fact.setdefault(fact_id, []).append(episode.step)

    def _episodes_linked_to(self, fact_ids: Iterable[int], step: int | None) -> list[Episode]:
        """Episodes (until ``step``) linked to any of the facts: the only ones eq. 1 scores above 0."""
        if self._episodes_by_fact is None:
            self._episodes_by_fact = {}
            for s in sorted(self.episodes):
                self._index_episode(self.episodes[s])
        steps = {s for i in fact_ids for s in self._episodes_by_fact.get(i, ())}
        return [self.episodes[s] for s in sorted(steps) if step is None or s <= step]

    def episodes_until(self, step: int | None) -> list[Episode]:
        return [e for s, e in sorted(self.episodes.items()) if step is None or s <= step]

    # -- retrieval ---------------------------------------------------------------------------------
    def semantic_search(
        self, query: str | Sequence[str], depth: int = 2, width: int = 5, as_of: int | None = None
    ) -> list[Fact]:
        view = self._view(as_of)
        return semantic_search(query, view, self._fact_index_for(view), self.embedder.embed, depth, width)

    def stma_retrieve(
        self, query: str, n: int = 8, k: int = 3, as_of: int | None = None, directed: bool = False
    ) -> list[Fact]:
        view = self._view(as_of)
        return stma_retrieve(query, view, self.entity_index, self.embedder.embed, n, k, directed)

    def episodic_search(
        self,
        facts: Iterable[Fact | int],
        k: int = 2,
        query: str | None = None,
        similarity_weight: float = 0.0,
        as_of: int | None = None,
    ) -> list[tuple[Episode, float]]:
        """AriGraph episodic search over the given facts; optionally boosted by similarity to ``query``."""
        ids = [f.id if isinstance(f, Fact) else f for f in facts]
        similarity = None
        if query is not None and similarity_weight > 0 and len(self.episode_index):
            ranked = self.episode_index.top_k(self.embedder.embed([query]), len(self.episode_index))[0]
            similarity = {cast(int, step): score for step, score in ranked}
        # Without a similarity bonus only episodes linked to the facts can score: look those up
        # instead of scanning every episode (same result, O(linked) instead of O(all episodes)).
        episodes = self.episodes_until(as_of) if similarity else self._episodes_linked_to(ids, as_of)
        return episodic_search(ids, episodes, k, similarity, similarity_weight)

    def similar_episodes(self, query: str, k: int = 3, before: int | None = None) -> list[tuple[Episode, float]]:
        """Top-``k`` past observations by similarity to ``query`` (the RAG baseline's retrieval)."""
        allowed = None if before is None else {s for s in self.episodes if s < before}
        ranked = self.episode_index.top_k(self.embedder.embed([query]), k, allowed)[0]
        return [(self.episodes[step], score) for step, score in ranked]  # type: ignore[index]

    def episode_relevance(self, query: str, before: int) -> dict[int, float]:
        """Every past observation's similarity to ``query`` (cosine), by step (the Simulacra baseline scores them)."""
        allowed = {s for s in self.episodes if s < before}
        if not allowed:
            return {}
        ranked = self.episode_index.top_k(self.embedder.embed([query]), len(allowed), allowed)[0]
        return {cast(int, step): float(score) for step, score in ranked}

    def history(self, as_of: int | None = None) -> list[Fact]:
        """Every fact recorded, open or closed, as memory knew them at step ``as_of`` (None: now)."""
        return self.kg.history(as_of)

    def timeline(self, entity: str, as_of: int | None = None) -> list[Fact]:
        """Every fact recorded about ``entity``, open or closed, in time order, as memory knew them at ``as_of``."""
        key = self.kg.normalizer.key(entity)
        return order_by_time(f for f in self.kg.history(as_of) if key in (f.subject_key, f.object_key))

    # -- spatial -----------------------------------------------------------------------------------
    def location(self, as_of: int | None = None) -> str | None:
        key = spatial.current_location(self._view(as_of))
        return self.kg.entity_name(key) if key else None

    def path(self, start: str, goal: str, as_of: int | None = None) -> list[tuple[str, str]] | None:
        """Moves ``[(direction, room name), ...]`` between two known locations, or None."""
        moves = spatial.shortest_path(self._view(as_of), self.kg.normalizer.key(start), self.kg.normalizer.key(goal))
        return None if moves is None else [(d, self.kg.entity_name(r)) for d, r in moves]

    def reachable_places(self, start: str, as_of: int | None = None) -> list[str]:
        """Names of the known places reachable from ``start`` along known exits, nearest first."""
        return [
            self.kg.entity_name(k) for k in spatial.reachable_places(self._view(as_of), self.kg.normalizer.key(start))
        ]

    def unexplored_exits(self, location: str | None = None, as_of: int | None = None) -> dict[str, list[str]]:
        """Unexplored exits of one location, or of every visited location when none is given."""
        view = self._view(as_of)
        if location is not None:
            return {
                self.kg.entity_name(self.kg.normalizer.key(location)): spatial.unexplored_exits(
                    view, self.kg.normalizer.key(location)
                )
            }
        visited = self.visited_rooms() if as_of is None else spatial.visited_locations(self.kg.history(as_of))
        found = spatial.all_unexplored_exits(view, visited)
        return {self.kg.entity_name(k): v for k, v in found.items()}

    # -- the KG's names and facts, for readers outside memory/ (they never reach into self.kg) ------------
    def key(self, name: str) -> str:
        """The normalised key that ``name`` is stored under."""
        return self.kg.normalizer.key(name)

    def entity_name(self, key: str) -> str:
        return self.kg.entity_name(key)

    def fact(self, fact_id: int) -> Fact:
        return self.kg.get(fact_id)

    @property
    def all_facts(self) -> list[Fact]:
        """Every fact ever recorded, open or closed."""
        return self.kg.all_facts

    @property
    def entities(self) -> dict[str, str]:
        return self.kg.entities

    @property
    def last_step(self) -> int:
        return self.kg.last_step

    @property
    def last_episode(self) -> int:
        """The step of the newest episode (-1: none yet): how far the memory has recorded the run."""
        if self._last_episode is None:
            self._last_episode = max(self.episodes, default=-1)
        return self._last_episode

    def __len__(self) -> int:
        return len(self.kg)

    # -- facts about the memory --------------------------------------------------------------------
    def stats(self) -> dict[str, int]:
        return {
            "facts_total": len(self.kg),
            "facts_open": len(self.kg.current()),
            "entities": len(self.kg.entities),
            "episodes": len(self.episodes),
            "embedded_texts": self.embedder.calls,
        }

    def snapshot(self, step: int | None = None) -> dict[str, Any]:
        """Plain-data picture of the memory at ``step`` (for equality checks, reports and tests)."""
        view = self._view(step)
        return {
            "facts": sorted((f.id, f.subject, f.relation, f.object, f.valid_from) for f in view.facts.values()),
            "episodes": [e.to_dict() for e in self.episodes_until(step)],
        }


def lasting_facts(memory: MemoryQueries) -> list[Triplet]:
    """The open facts about the world, oldest first, without the player's own place and inventory (they
    do not hold at the start of another episode): what a later trial or run may start from."""
    player, inventory = memory.key(spatial.PLAYER), memory.key("inventory")
    facts = order_by_time(memory.current().facts.values())
    return [
        f.triplet for f in facts if f.subject_key != player and f.object_key != inventory and f.subject_key != inventory
    ]


def dated_transitions(memory: MemoryQueries, source: str) -> list[DatedFact]:
    """Every fact the run recorded, open or closed, dated by its step and the command played there
    (DAVIS's training transitions): history for another run's world model, never its current state."""
    actions = {step: episode.action for step, episode in memory.episodes.items()}
    return dated(memory.all_facts, source, actions)
