"""Perception for ScienceWorld: what a look shows, read from its regular listing.

ScienceWorld answers 'look around' (and arriving in a room) with one thing a line::

    This room is called the kitchen. In it, you see:
        a counter. On the counter is: a bowl (containing a red apple, a banana), a drawer.
        a fridge. The fridge door is closed.
        a glass jar (containing a substance called sodium chloride)
    You also see:
        A door to the bathroom (that is open)

so each line is a thing in the room, what it holds (``On/In the X is: ...``, ``(containing ...)``, nested, and
"On the bed is: a mattress. On the mattress is: a white pillow."), whether its door is open, and the doors name the
rooms next door. Outdoors the header reads "This outside location is called the outside. Here you see:". A listed
thing may carry its state after a comma ("a switch, which is off, a blue wire"): that clause is no thing. Opening
and closing answer "The fridge is now open.", a focus "You focus on the pea plant.". ScienceWorld moves by room
name ('go to bathroom'), so a room's exits are the rooms its doors lead to: ``(room, "has exit", other room)`` with
the door's state.
"""

from __future__ import annotations

import re

from ...memory.objects import FOCUSED
from ...memory.spatial import EXIT_RELATION, door_relation
from .base import Observed, Sighting, Triplet

_ROOM = re.compile(r"This [\w ]+? is called the (?P<room>[^.]+)\.")  # "This room", "This outside location"
_THING_LINE = re.compile(r"^\t(?P<line>.+)$", re.M)
_DOOR_LINE = re.compile(r"^\s*A door to the (?P<room>.+?) \(that is (?P<state>open|closed|locked)\)", re.M | re.I)
_HOLDS = re.compile(r"(?P<prep>On|In) the (?P<holder>[^:]+?) is: (?P<things>.*?)\.*\s*$")
_NEXT_HOLDER = re.compile(r"\.\s+(?=(?:On|In) the [^:]+? is: )")  # "... a mattress. On the mattress is: ..."
_STATE_CLAUSE = re.compile(r"^(?:which|currently)\b", re.I)  # "which is off": a listed thing's state, no thing
_NOW = re.compile(r"\bThe (?P<thing>[^.]+?) is now (?P<state>open|closed)\.")
FOCUS_ANSWER = re.compile(r"\bYou focus on the (?P<thing>[^.\n]+)\.")  # the answer names it short: "the pea plant"
_DOOR_STATE = re.compile(r"The (?P<holder>[^.]+?) door is (?P<state>open|closed|locked)")
_ARTICLE = re.compile(r"^(?:a|an|the|some)\s+(?:substance called\s+)?", re.I)
# "a substance called water" in a look; "substance called gallium" in the inventory (the env drops its articles)
_CALLED = re.compile(r"^(?:(?:a|an)\s+)?substance called\s+", re.I)


def _split_top(listed: str) -> list[str]:
    """A comma list split at the top level only: "a bowl (containing a, b), a drawer" -> two parts."""
    parts: list[str] = []
    current: list[str] = []
    depth = 0
    for char in listed:
        depth += char == "("
        depth -= char == ")"
        if char == "," and depth == 0:
            parts.append("".join(current))
            current = []
        else:
            current.append(char)
    parts.append("".join(current))
    return [p.strip() for p in parts if p.strip() and p.strip() != "nothing" and not _STATE_CLAUSE.match(p.strip())]


# "a pea plant in the adult stage with a short height": the valid commands name it "adult pea plant"
_STAGED = re.compile(r"^(?P<name>.+?) in the (?P<stage>[a-z]+) stage\b", re.I)


def _thing(text: str) -> tuple[str, str | None]:
    """A listed thing's name, as the valid commands name it ("adult pea plant" for "a pea plant in the adult stage
    with a short height"), and what it contains ("a bowl (containing a red apple, a banana)")."""
    head, _, inside = text.partition(" (containing ")
    name = head.split(",")[0].split(". ")[0].strip().rstrip(".")
    name = _CALLED.sub("", name)
    name = _ARTICLE.sub("", name).strip()
    if staged := _STAGED.match(name):
        name = f"{staged['stage'].lower()} {staged['name']}"
    return name, (inside[:-1] if inside.endswith(")") else inside) or None


def _place(listed: str, relation: str, holder: str, facts: dict[Triplet, None], shown: set[str]) -> None:
    shown.add(holder)
    for part in _split_top(listed):
        name, inside = _thing(part)
        if not name or name == "nothing":
            continue
        facts[(name, relation, holder)] = None
        if inside is not None:
            _place(inside, "in", name, facts, shown)


_DOOR_TO = re.compile(r"^door to the (?P<room>.+)$", re.I)
_DOOR_COMMAND = re.compile(r"^(?:open|close) door to (?:the )?(?P<room>.+)$", re.I)


def room_door(room: str, other: str) -> str:
    """The door of ``room`` to ``other``: each room's own ("the door to the kitchen" from the hallway is not the one
    from the outside; one name for both had the hallway's open door read as closed when the outside's was)."""
    return f"{room} door to the {other}"


def room_here(seen: Observed) -> str | None:
    """The room the observation is in: the one its look names, else the one the env says."""
    found = _ROOM.search(seen.text)
    return found["room"].strip() if found else seen.location


def sighting(seen: Observed) -> Sighting:
    """The facts a ScienceWorld observation shows (a look), and the holders it shows whole."""
    found = _ROOM.search(seen.text)
    facts: dict[Triplet, None] = {}
    shown: set[str] = set()
    if found:
        room = found["room"].strip()
        shown.add(room)
        listing = seen.text[found.end() :].split("You also see:")[0]
        for line in _THING_LINE.finditer(listing):
            text = line["line"].strip()
            name, inside = _thing(text.split(". ")[0])  # "a counter. On the counter is: ...": the thing, then its load
            if not name or name == "agent":
                continue
            facts[(name, "in", room)] = None
            if inside is not None:
                _place(inside, "in", name, facts, shown)
            for sentence in _NEXT_HOLDER.split(text):
                if held := _HOLDS.search(sentence):
                    _place(held["things"], "on" if held["prep"] == "On" else "in", held["holder"].strip(), facts, shown)
            if state := _DOOR_STATE.search(text):
                facts[(name, "is", state["state"])] = None
                if state["state"] != "open":
                    shown.discard(name)
        for door in _DOOR_LINE.finditer(seen.text):
            other = door["room"].strip()
            facts[(room, EXIT_RELATION, other)] = None
            facts[(room, door_relation(f"to {other}"), room_door(room, other))] = None  # which door the exit has
            facts[(room_door(room, other), "is", door["state"].lower())] = None
    for now in _NOW.finditer(seen.text):
        thing = now["thing"].strip()
        # "The door is now open." (after 'open door to kitchen'): this room's door to the kitchen
        opened = _DOOR_TO.match(thing) or (_DOOR_COMMAND.match(seen.command or "") if thing.lower() == "door" else None)
        if opened and (here := room_here(seen)):
            thing = room_door(here, opened["room"])
        facts[(thing, "is", now["state"])] = None
    for focus in FOCUS_ANSWER.finditer(seen.text):
        facts[(focus["thing"].strip(), "is", FOCUSED)] = None
    if seen.inventory is not None:
        for thing in seen.inventory:
            facts[(_thing(thing)[0], "in", "inventory")] = None
        shown.add("inventory")
    return Sighting(tuple(facts), frozenset(shown))
