"""Episodic memory: one vertex per observation, linked to the facts extracted from it (AriGraph §2)."""

from __future__ import annotations

import math
from collections.abc import Callable, Iterable, Iterator, Mapping, MutableMapping
from dataclasses import dataclass, field

from .bulk import collector_paused


@dataclass(frozen=True)
class Episode:
    """An observation the agent received at ``step`` (and the action that led to it, if any)."""

    step: int
    text: str
    action: str | None = None
    fact_ids: frozenset[int] = field(default_factory=frozenset)
    score: float | None = None  # the game's score after it, where the game keeps one (None: not recorded)

    def to_dict(self) -> dict:
        data = {"step": self.step, "text": self.text, "action": self.action, "fact_ids": sorted(self.fact_ids)}
        return data if self.score is None else {**data, "score": self.score}  # (a log written before keeps its form)

    @classmethod
    def from_dict(cls, data: Mapping) -> "Episode":
        return cls(
            data["step"], data["text"], data.get("action"), frozenset(data.get("fact_ids", ())), data.get("score")
        )


def episodic_relevance(matched: int, total: int) -> float:
    """AriGraph eq. 1: ``n/max(N,1) * log2(max(N,1))``.

    ``matched`` (n) is how many query facts the episode is linked to, ``total`` (N) how many facts it
    holds. The log factor favours informative observations and is zero for an episode with exactly
    one fact, which adds nothing beyond that fact.
    """
    n_total = max(total, 1)
    return matched / n_total * math.log2(n_total)


def episodic_search(
    fact_ids: Iterable[int],
    episodes: Iterable[Episode],
    k: int,
    similarity: Mapping[int, float] | None = None,
    similarity_weight: float = 0.0,
) -> list[tuple[Episode, float]]:
    """The ``k`` episodes most relevant to the given facts, best first.

    Score is eq. 1, plus ``similarity_weight * similarity[step]`` when a query-similarity map is given
    (our addition; weight 0 reproduces the paper). Episodes linked to none of the facts and with no
    similarity bonus are not returned. Ties go to the more recent episode. Cost: O(sum of episode sizes).
    """
    wanted = set(fact_ids)
    scored: list[tuple[float, int, Episode]] = []
    for episode in episodes:
        matched = len(wanted & episode.fact_ids)
        bonus = similarity_weight * similarity.get(episode.step, 0.0) if similarity else 0.0
        if matched == 0 and bonus <= 0.0:
            continue
        scored.append((episodic_relevance(matched, len(episode.fact_ids)) + bonus, episode.step, episode))
    scored.sort(key=lambda item: (-item[0], -item[1]))
    return [(episode, score) for score, _, episode in scored[:k]]


class EpisodeStore(MutableMapping[int, Episode]):
    """Episodes by step. A snapshot's episodes are built on first read (tens of thousands of episodes
    take about half a second), so reopening a large memory does not pay for them until they are used;
    writing (a replayed or new step) does not build them."""

    def __init__(self) -> None:
        self._data: dict[int, Episode] = {}
        self._deferred: Callable[[], Iterable[Episode]] | None = None

    def defer(self, load: Callable[[], Iterable[Episode]]) -> None:
        self._deferred = load

    def _ready(self) -> dict[int, Episode]:
        if self._deferred is not None:
            load, self._deferred = self._deferred, None
            with collector_paused():
                loaded = {episode.step: episode for episode in load()}
            loaded.update(self._data)  # steps recorded since the snapshot come after its own
            self._data = loaded
        return self._data

    def __getitem__(self, step: int) -> Episode:
        return self._ready()[step]

    def __setitem__(self, step: int, episode: Episode) -> None:
        self._data[step] = episode

    def __delitem__(self, step: int) -> None:
        del self._ready()[step]

    def __iter__(self) -> Iterator[int]:
        return iter(self._ready())

    def __len__(self) -> int:
        return len(self._ready())

    def __contains__(self, step: object) -> bool:
        return step in self._data or step in self._ready()
