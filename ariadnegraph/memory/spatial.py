"""The spatial layer: locations, exits and directions read off the KG (AriGraph appendix B).

Conventions the extractors write (relations are normalised, see ``normalize_relation``):

- ``(room, "has exit", direction)`` — the room has an exit that way (seen in its description);
- ``(A, "<direction> of", B)`` — going ``direction`` from B leads to A, e.g. ("hall", "east of", "kitchen");
- ``(PLAYER, "in", room)`` — where the agent is (``PLAYER`` is "player"; "you"/"i" alias to it);
- ``(room, "is", "location")`` — optional typing for rooms known by name only;
- ``(room, "<direction> door", door)`` with ``(door, "is", "open"|"closed"|"locked")`` — a door on that exit.

With ``assume_reversible`` (TextWorld maps are grids) "A east of B" also means B is west of A.
"""

from __future__ import annotations

from collections.abc import Iterable

import networkx as nx

from ..vocabulary import OPPOSITE
from .facts import Fact
from .temporal_kg import KGView

PLAYER = "player"
PLAYER_ALIASES = {"you": PLAYER, "i": PLAYER, "me": PLAYER, "agent": PLAYER}
EXIT_RELATION = "has exit"
_DOOR_SUFFIX = " door"


def door_relation(direction: str) -> str:
    """The relation a room has with the door on its exit ``direction``: ``(room, "west door", door)``."""
    return f"{direction}{_DOOR_SUFFIX}"


def door_direction(relation: str) -> str | None:
    """``"west door"`` -> ``"west"``; None for other relations."""
    head = relation[: -len(_DOOR_SUFFIX)] if relation.endswith(_DOOR_SUFFIX) else ""
    return head if head in OPPOSITE else None


def direction_of(relation: str) -> str | None:
    """``"east of"`` → ``"east"``; None for relations that are not directions."""
    if relation.endswith(" of"):
        head = relation[:-3].strip()
        return head if head in OPPOSITE else None
    return None


def is_exit_fact(fact: Fact) -> bool:
    return fact.relation == EXIT_RELATION and fact.object_key in OPPOSITE


def is_named_exit(fact: Fact) -> bool:
    """An exit that names the room it leads to, not a direction (ScienceWorld's "A door to the kitchen": its moves
    are 'go to kitchen')."""
    return fact.relation == EXIT_RELATION and fact.object_key not in OPPOSITE


def navigation_graph(view: KGView, assume_reversible: bool = True) -> nx.DiGraph:
    """Directed graph of rooms: edge ``B -> A`` with attribute ``direction`` when A is ``direction`` of B."""
    graph = nx.DiGraph()
    for fact in view.facts.values():
        if is_named_exit(fact):  # the move is 'go to ROOM' (its direction: "to ROOM"); the game lists the way back
            graph.add_edge(fact.subject_key, fact.object_key, direction=f"to {view.entity_name(fact.object_key)}")
            continue
        direction = direction_of(fact.relation)
        if direction is None:
            continue
        here, there = fact.object_key, fact.subject_key
        graph.add_edge(here, there, direction=direction)
        if assume_reversible and not graph.has_edge(there, here):
            graph.add_edge(there, here, direction=OPPOSITE[direction])
    return graph


def locations(view: KGView) -> set[str]:
    """Every entity the KG treats as a place (keys)."""
    places: set[str] = set()
    for fact in view.facts.values():
        if direction_of(fact.relation) is not None:
            places.update((fact.subject_key, fact.object_key))
        elif is_exit_fact(fact):
            places.add(fact.subject_key)
        elif is_named_exit(fact):
            places.update((fact.subject_key, fact.object_key))
        elif fact.subject_key == PLAYER and fact.relation in ("in", "at"):
            places.add(fact.object_key)
        elif fact.relation == "is" and fact.object_key == "location":
            places.add(fact.subject_key)
    return places


def current_location(view: KGView) -> str | None:
    """Key of the room the player is in, per the newest open ``(player, in, room)`` fact."""
    facts = [f for f in view.find(subject_key=PLAYER) if f.relation in ("in", "at")]
    return max(facts, key=lambda f: (f.valid_from, f.id)).object_key if facts else None


def exits(view: KGView, location: str) -> dict[str, str | None]:
    """Known exits of ``location``: direction → destination key (None while unexplored)."""
    found: dict[str, str | None] = {f.object_key: None for f in view.find(subject_key=location) if is_exit_fact(f)}
    graph = navigation_graph(view)
    if location in graph:
        for _, there, data in graph.out_edges(location, data=True):
            found[data["direction"]] = there
    return found


def doors(view: KGView, location: str) -> dict[str, str]:
    """The doors memory knows on ``location``'s exits: direction -> door key."""
    return {d: f.object_key for f in view.find(subject_key=location) if (d := door_direction(f.relation))}


def unexplored_exits(view: KGView, location: str, assume_reversible: bool = True) -> list[str]:
    """AriGraph algorithm 3: exit directions of ``location`` with no known room behind them.

    Outgoing exit facts of the location, minus the directions that an incoming direction fact
    ("X <dir> of location") already explains; with ``assume_reversible`` an outgoing direction fact
    ("location <dir> of X") explains the opposite direction too.
    """
    candidates = [f.object_key for f in view.find(subject_key=location) if is_exit_fact(f)]
    explained: set[str] = set()
    for fact in view.find(object_key=location):
        direction = direction_of(fact.relation)
        if direction:
            explained.add(direction)
    if assume_reversible:
        for fact in view.find(subject_key=location):
            direction = direction_of(fact.relation)
            if direction:
                explained.add(OPPOSITE[direction])
    return sorted(d for d in dict.fromkeys(candidates) if d not in explained)


def visited_locations(history: Iterable[Fact]) -> list[str]:
    """Rooms the player has been in, in order of first visit, from the full fact history."""
    ordered: dict[str, None] = {}
    for fact in sorted(history, key=lambda f: (f.valid_from, f.id)):
        if fact.subject_key == PLAYER and fact.relation in ("in", "at"):
            ordered.setdefault(fact.object_key, None)
    return list(ordered)


def all_unexplored_exits(view: KGView, visited: Iterable[str] | None = None) -> dict[str, list[str]]:
    """Unexplored exits of every visited location (``visited``, in order of first visit; None: every location memory
    knows) that still has some."""
    places = list(visited) if visited is not None else sorted(locations(view))
    result = {place: unexplored_exits(view, place) for place in places}
    return {place: dirs for place, dirs in result.items() if dirs}


def shortest_path(view: KGView, start: str, goal: str, assume_reversible: bool = True) -> list[tuple[str, str]] | None:
    """Moves from ``start`` to ``goal`` as ``[(direction, room_key), ...]``; ``[]`` if already there, None if
    unknown."""
    if start == goal:
        return []
    graph = navigation_graph(view, assume_reversible)
    if start not in graph or goal not in graph:
        return None
    try:
        rooms = nx.shortest_path(graph, start, goal)
    except nx.NetworkXNoPath:
        return None
    return [(graph.edges[a, b]["direction"], b) for a, b in zip(rooms, rooms[1:])]


def reachable_places(view: KGView, start: str, assume_reversible: bool = True) -> list[str]:
    """Keys of the places reachable from ``start`` along known exits, nearest first (``start`` excluded)."""
    graph = navigation_graph(view, assume_reversible)
    if start not in graph:
        return []
    distances = nx.single_source_shortest_path_length(graph, start)
    return [place for place, _ in sorted(distances.items(), key=lambda kv: (kv[1], kv[0])) if place != start]
