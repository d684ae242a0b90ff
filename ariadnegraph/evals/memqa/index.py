"""Timeline index and event index of an episode (EMemBench §3.2).

The *timeline* holds, per step, what the question templates read: the action, the observation, the
score, the player's location and the inventory *after* that step (step 0 is the start, before any
action). The *event index* is derived from it: item gains and losses, arrivals in and departures from
locations, successful moves (the map walked), mentions in observations and in the logged reasons.

The same :class:`Timeline` serves two masters: built from a run's trajectory + oracle it gives the
ground truth; built from what an answerer was shown (a transcript, KG tool results) it is what the
scripted answerer can know. Steps may therefore be missing and fields unknown (None): every event is
derived only where the needed steps are known, so a partial view never invents an event.
"""

from __future__ import annotations

import re
from collections import deque
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from functools import cached_property
from typing import Any

from ...envs.families.scienceworld import ROOMS as SCIENCEWORLD_ROOMS  # its locations when no facts are logged
from ...envs.text import direction_of_command, parse_location

_NOT_ENTITIES = {"P", "I", "RECIPE"}
_DIRECTIONAL = re.compile(r"^(?:north|south|east|west)_of$")


def norm(name: str | None) -> str:
    """Comparison key of a name: lower case, single spaces."""
    return " ".join((name or "").lower().split())


@dataclass(frozen=True)
class StepState:
    """One step: the action taken and what held after it (None = not known to whoever built it)."""

    step: int
    action: str | None
    observation: str
    score: float | None = None
    location: str | None = None
    inventory: tuple[str, ...] | None = None
    reason: str | None = None  # the reasoning the agent logged for this step's command
    valid: tuple[str, ...] | None = None  # the valid commands it was shown after this step (for the next one)


def mentions(text: str, keyword: str) -> bool:
    """Whole-word, case-insensitive mention of ``keyword`` in ``text``."""
    return (
        bool(keyword)
        and re.search(rf"(?<![\w-]){re.escape(keyword.lower())}(?![\w-])", (text or "").lower()) is not None
    )


class Timeline:
    """Steps by index plus the events derived from them (see module doc)."""

    def __init__(self, steps: Iterable[StepState]) -> None:
        self.by_step: dict[int, StepState] = {s.step: s for s in steps}
        self.order: list[int] = sorted(self.by_step)

    def __len__(self) -> int:
        return len(self.order)

    def __contains__(self, step: int) -> bool:
        return step in self.by_step

    def get(self, step: int) -> StepState | None:
        return self.by_step.get(step)

    def at(self, step: int) -> StepState:
        """The state of a step the timeline holds (a KeyError for one it does not)."""
        return self.by_step[step]

    @property
    def first(self) -> int:
        return self.order[0] if self.order else 0

    @property
    def last(self) -> int:
        return self.order[-1] if self.order else -1

    def upto(self, horizon: int | None) -> "Timeline":
        """The prefix ``0..horizon`` (query-horizon control): later steps do not exist for it."""
        if horizon is None:
            return self
        return Timeline(s for t, s in self.by_step.items() if t <= horizon)

    def window(self, first: int, last: int) -> list[StepState]:
        return [self.by_step[t] for t in self.order if first <= t <= last]

    def location(self, step: int) -> str | None:
        s = self.by_step.get(step)
        return s.location if s else None

    def inventory(self, step: int) -> tuple[str, ...] | None:
        s = self.by_step.get(step)
        return s.inventory if s else None

    # -- events --------------------------------------------------------------------------------------
    def _pairs(self) -> Iterable[tuple[StepState, StepState]]:
        """Consecutive known steps (t-1, t)."""
        for t in self.order:
            prev = self.by_step.get(t - 1)
            if prev is not None:
                yield prev, self.by_step[t]

    @cached_property
    def gains(self) -> dict[str, list[int]]:
        """Item key -> steps at which it entered the inventory (items held at the start are not gained)."""
        found: dict[str, list[int]] = {}
        for prev, cur in self._pairs():
            if prev.inventory is None or cur.inventory is None:
                continue
            before = {norm(i) for i in prev.inventory}
            for item in dict.fromkeys(norm(i) for i in cur.inventory):
                if item not in before:
                    found.setdefault(item, []).append(cur.step)
        return found

    @cached_property
    def arrivals(self) -> dict[str, list[int]]:
        """Location key -> steps at which the player started being there (the start counts, at step 0)."""
        found: dict[str, list[int]] = {}
        start = self.by_step.get(0)
        if start is not None and start.location:
            found.setdefault(norm(start.location), []).append(0)
        for prev, cur in self._pairs():
            if prev.location and cur.location and norm(prev.location) != norm(cur.location):
                found.setdefault(norm(cur.location), []).append(cur.step)
        return found

    @cached_property
    def departures(self) -> dict[str, list[int]]:
        """Location key -> steps whose action took the player out of it."""
        found: dict[str, list[int]] = {}
        for prev, cur in self._pairs():
            if prev.location and cur.location and norm(prev.location) != norm(cur.location):
                found.setdefault(norm(prev.location), []).append(cur.step)
        return found

    @cached_property
    def moves(self) -> list[tuple[int, str, str, str]]:
        """Successful moves ``(step, from, direction, to)``: a direction command that changed the room."""

        found = []
        for prev, cur in self._pairs():
            direction = direction_of_command(cur.action)
            if direction and prev.location and cur.location and norm(prev.location) != norm(cur.location):
                found.append((cur.step, norm(prev.location), direction, norm(cur.location)))
        return found

    @cached_property
    def names(self) -> dict[str, str]:
        """Key -> surface name, for answers (first spelling seen)."""
        found: dict[str, str] = {}
        for t in self.order:
            s = self.by_step[t]
            for name in [s.location or "", *(s.inventory or ())]:
                if name:
                    found.setdefault(norm(name), name)
        return found

    def name(self, key: str) -> str:
        return self.names.get(key, key)

    @cached_property
    def exits(self) -> dict[str, dict[str, str]]:
        """The map walked: room -> direction -> room (directed, as traversed)."""
        graph: dict[str, dict[str, str]] = {}
        for _, a, direction, b in self.moves:
            graph.setdefault(a, {})[direction] = b
        return graph

    @cached_property
    def neighbours(self) -> dict[str, set[str]]:
        """The map walked, undirected: a door walked through can be walked back."""
        graph: dict[str, set[str]] = {}
        for _, a, _, b in self.moves:
            graph.setdefault(a, set()).add(b)
            graph.setdefault(b, set()).add(a)
        return graph

    def distances(self, source: str) -> dict[str, int]:
        """Moves from ``source`` to every room reachable on the walked map (BFS)."""
        source = norm(source)
        if source not in self.neighbours:
            return {}
        dist = {source: 0}
        queue = deque([source])
        while queue:
            room = queue.popleft()
            for nxt in sorted(self.neighbours.get(room, ())):
                if nxt not in dist:
                    dist[nxt] = dist[room] + 1
                    queue.append(nxt)
        return dist

    def mention_steps(self, keyword: str) -> list[int]:
        """Steps whose observation mentions ``keyword``."""
        return [t for t in self.order if mentions(self.by_step[t].observation, keyword)]

    def reason_steps(self, keyword: str) -> list[int]:
        """Steps whose logged reason mentions ``keyword`` (EMemBench's keyword templates key on the reason)."""
        return [t for t in self.order if mentions(self.by_step[t].reason or "", keyword)]

    @cached_property
    def text(self) -> str:
        """Everything the episode said or did, lower case: to check a value never occurred."""
        parts = []
        for t in self.order:
            s = self.by_step[t]
            parts += [s.action or "", s.observation, s.reason or "", s.location or "", *(s.inventory or ())]
        return "\n".join(parts).lower()


@dataclass(frozen=True)
class Episode:
    """A run's ground-truth timeline and the game's vocabulary (values that exist in the game)."""

    run_id: str
    env: str
    timeline: Timeline
    items: tuple[str, ...]  # object names the game holds
    locations: tuple[str, ...]  # room names the game holds


def inventory_from(record: Mapping[str, Any]) -> tuple[str, ...]:
    """True inventory: TextWorld facts ``in X I`` (base names), else the logged inventory list."""
    facts = record.get("facts") or []
    if facts:
        return tuple(sorted(f[1] for f in facts if len(f) == 3 and f[0] == "in" and f[2] == "I"))
    return tuple(sorted(record.get("inventory") or ()))


def location_from(record: Mapping[str, Any], observation: str) -> str | None:
    return (
        record.get("location")
        or parse_location(record.get("look") or record.get("description") or "")
        or parse_location(observation)
    )


def game_vocabulary(oracle: Sequence[Mapping[str, Any]]) -> tuple[list[str], list[str]]:
    """(items, locations) that exist in the game, from the oracle facts of every logged step."""
    rooms: dict[str, str] = {}
    things: dict[str, str] = {}
    for record in oracle:
        for fact in record.get("facts") or []:
            pred, args = fact[0], [a for a in fact[1:] if a not in _NOT_ENTITIES and not a.startswith("ingredient_")]
            if pred == "at" and len(fact) == 3 and fact[1] != "P":
                rooms.setdefault(norm(fact[2]), fact[2])
                things.setdefault(norm(fact[1]), fact[1])
            elif pred == "at" and len(fact) == 3:
                rooms.setdefault(norm(fact[2]), fact[2])
            elif _DIRECTIONAL.match(pred):
                for a in args:
                    rooms.setdefault(norm(a), a)
            elif (
                pred in ("in", "on")
                and len(fact) == 3
                and fact[1] not in _NOT_ENTITIES
                and not fact[1].startswith("ingredient_")
            ):
                things.setdefault(norm(fact[1]), fact[1])
        if record.get("look") is not None:  # ScienceWorld: no facts, a fixed set of rooms
            for room in SCIENCEWORLD_ROOMS:
                rooms.setdefault(room, room)
    for key in rooms:
        things.pop(key, None)
    return sorted(things.values()), sorted(rooms.values())
