"""Object memory: where each thing was last seen, what is closed, and what is still unsearched, read off the KG.

Perception (a game family's parser, envs/families/) writes what each observation shows as facts in the vocabulary
of :mod:`.spatial` and this module: ``(thing, in|on, holder)`` where a holder is a room, a container, a support or
the inventory; ``(thing, is, open|closed|locked)``; ``(room, "<direction> door", door)``. These functions answer
what an agent needs to find a thing: its place now (or when last seen) and the way there, and, for a thing never
seen, the frontier: containers never seen open, doors still closed, exits not yet taken, nearest first.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass

from ..vocabulary import OPPOSITE
from . import spatial
from .facts import Fact, Triplet
from .temporal_kg import KGView

PLACEMENTS = frozenset({"in", "on"})
INVENTORY = "inventory"
CLOSED = frozenset({"closed", "locked"})
UNLOCKS = "unlocks"  # a key and the lock a text said it opens ("The key 2 unlocks Red locker.")
FOCUSED = "focused"  # (thing, is, focused): the game said the player's attention is on it (ScienceWorld's focus)


class HistoryDigest:
    """What object memory asks of the whole history each step, kept as the KG stores each fact
    (``TemporalKG.watchers``), so a step does not read the history again: where the player has been (each room's
    first visit), what was ever seen open, and each thing's newest placement. Each answers what the function of the
    same name answers over ``memory.all_facts`` (``spatial.visited_locations``, ``ever_open``, ``last_seen``), which
    views as of a past step still use."""

    def __init__(self) -> None:
        self._first_visits: dict[str, tuple[int, int]] = {}  # room -> (valid_from, id) of the first fact there
        self._seen_open: set[str] = set()
        self._last_placed: dict[str, tuple[int, int]] = {}  # thing -> (valid_from, id) of its newest placement

    def add(self, fact: Fact) -> None:
        order = (fact.valid_from, fact.id)
        if fact.subject_key == spatial.PLAYER and fact.relation in ("in", "at"):
            first = self._first_visits.get(fact.object_key)
            if first is None or order < first:
                self._first_visits[fact.object_key] = order
        if fact.relation == "is" and fact.object_key == "open":
            self._seen_open.add(fact.subject_key)
        if fact.relation in PLACEMENTS:
            newest = self._last_placed.get(fact.subject_key)
            if newest is None or order > newest:
                self._last_placed[fact.subject_key] = order

    def visited(self) -> list[str]:
        """Rooms the player has been in, in order of first visit."""
        return sorted(self._first_visits, key=self._first_visits.__getitem__)

    def ever_open(self) -> set[str]:
        return set(self._seen_open)

    def last_placed(self, thing: str) -> int | None:
        """The id of the newest placement of ``thing`` (a key) ever recorded, open or closed."""
        newest = self._last_placed.get(thing)
        return None if newest is None else newest[1]


def departed(view: KGView, facts: Iterable[Triplet], shown: Iterable[str], key: Callable[[str], str]) -> list[Fact]:
    """The open placements that an observation shows are no longer true: things memory placed in a holder the
    observation shows whole (``shown``: the room, an open container, a support, the inventory) that it does not
    place there now (taken, eaten, moved by someone else)."""
    shown_keys = {key(holder) for holder in shown}
    placed_now = {(key(s), key(o)) for s, relation, o in facts if relation in PLACEMENTS}
    return [
        f
        for f in view.facts.values()
        if f.relation in PLACEMENTS
        and f.object_key in shown_keys
        and f.subject_key != spatial.PLAYER
        and (f.subject_key, f.object_key) not in placed_now
    ]


def placement(view: KGView, thing: str) -> Fact | None:
    """Where memory holds ``thing`` (a key) is now: its newest open placement."""
    found = [f for f in view.find(subject_key=thing) if f.relation in PLACEMENTS]
    return max(found, key=lambda f: (f.valid_from, f.id)) if found else None


def contents(view: KGView, holder: str) -> list[str]:
    """The names of what memory holds is in or on ``holder`` (a key) now."""
    return [view.entity_name(f.subject_key) for f in view.find(object_key=holder) if f.relation in PLACEMENTS]


def last_seen(history: Iterable[Fact], thing: str) -> Fact | None:
    """The newest placement of ``thing`` (a key) memory ever recorded, open or closed: where it was last seen."""
    found = [f for f in history if f.subject_key == thing and f.relation in PLACEMENTS]
    return max(found, key=lambda f: (f.valid_from, f.id)) if found else None


def room_of(view: KGView, holder: str, places: set[str] | None = None) -> str | None:
    """The room a holder is in (a key), following placements up (the knife on the counter in the kitchen); the
    inventory is where the player is; None when memory does not place it in a room."""
    places = spatial.locations(view) if places is None else places
    seen: set[str] = set()
    while holder not in places:
        if holder == INVENTORY:
            return spatial.current_location(view)
        if holder in seen:
            return None
        seen.add(holder)
        up = placement(view, holder)
        if up is None:
            return None
        holder = up.object_key
    return holder


def carried(view: KGView, thing: str, places: set[str] | None = None) -> bool:
    """Whether memory has ``thing`` in the inventory, itself or inside what is carried (the caesium in the paper cup
    the player picked up)."""
    places = spatial.locations(view) if places is None else places
    seen: set[str] = set()
    up = placement(view, thing)
    while up is not None and up.object_key not in places and up.object_key not in seen:
        if up.object_key == INVENTORY:
            return True
        seen.add(up.object_key)
        up = placement(view, up.object_key)
    return False


def focused_names(view: KGView) -> list[str]:
    """The names of the things the game said the player focused on (as its answer names them: "pea plant")."""
    return [view.entity_name(f.subject_key) for f in view.find(object_key=FOCUSED) if f.relation == "is"]


def state_of(view: KGView, thing: str) -> str | None:
    """Whether ``thing`` (a key) is open, closed or locked, as memory holds it now (None: never said)."""
    found = [f for f in view.find(subject_key=thing, relation="is") if f.object_key in ("open", *CLOSED)]
    return max(found, key=lambda f: (f.valid_from, f.id)).object_key if found else None


def locks_to_open(view: KGView, opened: set[str]) -> list[tuple[str, str, str | None]]:
    """Each lock a text said a held key opens, never seen open (``opened``: what memory ever saw open): (the key, the
    lock, its state now; keys), the key read first first."""
    found = []
    for fact in sorted(view.find(relation=UNLOCKS), key=lambda f: (f.valid_from, f.id)):
        held = placement(view, fact.subject_key)
        if held is not None and held.object_key == INVENTORY and fact.object_key not in opened:
            found.append((fact.subject_key, fact.object_key, state_of(view, fact.object_key)))
    return found


def door_keys(view: KGView) -> set[str]:
    """Every thing memory knows as a door on an exit."""
    return {f.object_key for f in view.facts.values() if spatial.door_direction(f.relation)}


def ever_open(history: Iterable[Fact]) -> set[str]:
    """Things memory has ever seen open (a container seen open was searched: what it held was listed)."""
    return {f.subject_key for f in history if f.relation == "is" and f.object_key == "open"}


def _named_exits(view: KGView, room: str, visited: set[str]) -> list[str]:
    """Exits that name the room they lead to, where the player has not been."""
    return [
        f.object_key
        for f in view.find(subject_key=room, relation=spatial.EXIT_RELATION)
        if f.object_key not in OPPOSITE and f.object_key not in visited
    ]


@dataclass(frozen=True)
class Lead:
    """A place to search for a thing not seen yet: a container never seen open, a closed door, an exit not taken."""

    kind: str  # "container" | "door" | "exit"
    name: str  # the container's or door's name, the exit's direction, or the room a named exit or one move reaches
    room: str  # the room it is in (a key)
    command: str  # what searches it once there: "open fridge", "open screen door", "go south"


def leads(view: KGView, here: str | None, opened: set[str], visited: set[str]) -> list[Lead]:
    """Where to search next, nearest first (by moves from ``here``): containers never seen open (``opened``: what
    memory ever saw open), closed doors on exits whose far side is unknown, and exits never taken (``visited``: the
    rooms the player has been in)."""
    places = spatial.locations(view)
    doors = door_keys(view)
    found: list[tuple[int, Lead]] = []

    def distance(room: str) -> int | None:
        if here is None:
            return 0
        moves = [] if room == here else spatial.shortest_path(view, here, room)
        return None if moves is None else len(moves)

    for f in view.facts.values():
        if f.relation == "is" and f.object_key in CLOSED and f.subject_key not in doors and f.subject_key not in opened:
            room = room_of(view, f.subject_key, places)
            d = distance(room) if room else None
            if room is not None and d is not None:
                name = view.entity_name(f.subject_key)
                found.append((d, Lead("container", name, room, f"open {name}")))
    for room in sorted(places):
        d = distance(room)
        if d is None:
            continue
        known, on_exits = spatial.exits(view, room), spatial.doors(view, room)
        for direction, door in on_exits.items():
            if known.get(direction) is None and state_of(view, door) in CLOSED:
                name = view.entity_name(door)
                found.append((d, Lead("door", name, room, f"open {name}")))
        for direction in spatial.unexplored_exits(view, room):
            if direction not in on_exits or state_of(view, on_exits[direction]) not in CLOSED:
                found.append((d, Lead("exit", direction, room, f"go {direction}")))
        for other in _named_exits(view, room, visited):  # worlds that name the room an exit leads to (ScienceWorld)
            name = view.entity_name(other)
            shut = next(
                (f.object_key for f in view.find(subject_key=room, relation=spatial.door_relation(f"to {name}"))), None
            )
            if shut is not None and state_of(view, shut) in CLOSED:  # no 'go to' is valid through a closed door
                found.append((d, Lead("door", view.entity_name(shut), room, f"open door to {name}")))
            else:
                found.append((d, Lead("exit", name, room, f"go to {name}")))
    found.sort(key=lambda item: (item[0], ("container", "door", "exit").index(item[1].kind), item[1].name))
    return [lead for _, lead in found]
