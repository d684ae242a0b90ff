"""Perception for TextWorldExpress games: what an observation shows, read from its regular sentences.

TextWorldExpress describes a room in a fixed grammar: "You are in the kitchen.", then clauses ("In one part of the
room you see X", "There is also X", "You also see X") where X is "a stove", "a fridge that is closed", "An open
fridge, that contains some cilantro, and some raw red tuna", "an open kitchen cupboard, that is empty", "a counter
that has a knife, and a cookbook on it", "a dining chair, that has nothing on it"; then the exits: "To the South you
see a closed frosted-glass door.", "Through an open frosted-glass door, to the North you see the kitchen.", "To the
East you see the corridor." Placing says "You put the 27g of steel in the box."; opening says "You open the fridge.
The fridge contains some cilantro." or "It's empty inside.", and "You open the screen door, revealing the backyard."
for a door ('open door to north': the backyard lies north); closing says "You close the fridge." or "You close the
screen door to the backyard." Its valid commands list 'take X' for every thing in reach (without where from) and
'open'/'close' whatever the state, so the text says where and whether open; things are named as the 'take' and
'examine' commands name them ("raw red tuna" is taken as "red tuna"; carried, the "raw chicken wing" of the inventory
is examined as "chicken wing").
"""

from __future__ import annotations

import re

from ...memory.spatial import EXIT_RELATION, door_relation
from ...vocabulary import DIRECTIONS
from .base import Observed, Sighting, Triplet

_DIRECTION = "|".join(DIRECTIONS)
_ROOM = re.compile(r"\bYou are in the (?P<room>[^.]+)\.")
_CLAUSE = re.compile(
    r"(?:In (?:one|another) part of the room you see|There is also|You also see) (?P<what>.+?)(?:\.\s|\.$|\s*\n|$)",
    re.I,
)
_CONTAINS = re.compile(r"^(?:an? )?(?P<state>open|closed)?\s*(?P<holder>.+?), that contains (?P<things>.+)$", re.I)
_EMPTY = re.compile(r"^(?:an? )?(?P<state>open|closed)?\s*(?P<holder>.+?), that is empty$", re.I)
_HAS_ON = re.compile(r"^(?:an? )?(?P<holder>.+?),? that has (?P<things>.+?) on it$", re.I)
_STATE = re.compile(r"^(?:an? )?(?P<thing>.+?),? that is (?P<state>open|closed|locked)$", re.I)
_OPENED = re.compile(r"\bThe (?P<holder>[^.]+?) contains (?P<things>[^.]+)\.", re.I)
_OPEN_EMPTY = re.compile(r"\bYou open the (?P<holder>[^.]+?)\. It's empty inside", re.I)
_OPEN_DOOR = re.compile(r"\bYou open the (?P<door>[^.,]+?), revealing the (?P<room>[^.]+?)\.", re.I)
_CLOSE = re.compile(r"\bYou close the (?P<thing>[^.]+?)(?: to the [^.]+?)?\.", re.I)
_PUT = re.compile(r"\bYou put the (?P<thing>[^.]+?) (?P<relation>in|on) the (?P<holder>[^.]+?)\.", re.I)
_DOOR_COMMAND = re.compile(rf"^open door to (?P<dir>{_DIRECTION})$", re.I)
_EXIT = re.compile(
    rf"(?:Through an? (?P<via_state>open|closed|locked) (?P<via>[^,]+?), to|To) the (?P<dir>{_DIRECTION}) you see "
    rf"(?:the (?P<room>[^.]+?)|an? (?P<state>open|closed|locked) (?P<door>[^.]+?))\.",
    re.I,
)
_LIST = re.compile(r",\s*(?:and\s+)?|\s+and\s+", re.I)
_ARTICLE = re.compile(r"^(?:a|an|the|some)\s+", re.I)
_NAMING = re.compile(r"^(?:take|examine) (?P<thing>.+)$")  # 'examine X' names what is carried too


def _things(listed: str) -> list[str]:
    return [_ARTICLE.sub("", p.strip()).strip() for p in _LIST.split(listed) if p.strip() and p.strip() != "nothing"]


def _name(text: str, named: list[str]) -> str:
    """A thing as the commands name it: the longest 'take' or 'examine' target the text's name ends with ("raw red
    tuna": "red tuna"; carried, "raw chicken wing": "chicken wing"), else the text's name without its article."""
    name = _ARTICLE.sub("", text.strip()).strip().lower()
    fits = [t for t in named if name == t or name.endswith(" " + t)]
    return max(fits, key=len) if fits else name


def sighting(seen: Observed) -> Sighting:
    """The facts an observation of a TextWorldExpress game shows, and the holders it shows whole."""
    found = _ROOM.search(seen.text)
    room = (found["room"].strip().lower() if found else None) or (seen.location or "").lower() or None
    named = [m["thing"] for c in seen.valid if (m := _NAMING.match(" ".join(c.lower().split())))]
    facts: dict[Triplet, None] = {}
    shown: set[str] = set()

    def place(things: str, relation: str, holder: str) -> None:
        for thing in _things(things):
            facts[(_name(thing, named), relation, holder)] = None
        shown.add(holder)

    if found and room:
        shown.add(room)
        for clause in _CLAUSE.finditer(seen.text[found.end() :]):
            what = clause["what"].strip()
            if m := _CONTAINS.match(what):
                holder = _name(m["holder"], named)
                place(m["things"], "in", holder)
                facts[(holder, "is", (m["state"] or "open").lower())] = None
            elif m := _EMPTY.match(what):
                holder = _name(m["holder"], named)
                shown.add(holder)
                if m["state"]:
                    facts[(holder, "is", m["state"].lower())] = None
            elif m := _HAS_ON.match(what):
                holder = _name(m["holder"], named)
                place(m["things"], "on", holder)
            elif m := _STATE.match(what):
                holder = _name(m["thing"], named)
                facts[(holder, "is", m["state"].lower())] = None
            else:
                holder = _name(what, named)
            facts[(holder, "in", room)] = None
    for m in _OPENED.finditer(seen.text):
        holder = _name(m["holder"], named)
        place(m["things"], "in", holder)
        facts[(holder, "is", "open")] = None
    for m in _OPEN_EMPTY.finditer(seen.text):
        holder = _name(m["holder"], named)
        shown.add(holder)
        facts[(holder, "is", "open")] = None
    for m in _CLOSE.finditer(seen.text):
        facts[(_name(m["thing"], named), "is", "closed")] = None
    for m in _PUT.finditer(seen.text):  # "You put the 27g of steel in the box."
        facts[(_name(m["thing"], named), m["relation"].lower(), _name(m["holder"], named))] = None
    for m in _OPEN_DOOR.finditer(seen.text):
        door = m["door"].strip().lower()
        facts[(door, "is", "open")] = None
        way = _DOOR_COMMAND.match(" ".join((seen.command or "").split()))
        if room and way:
            direction = way["dir"].lower()
            facts[(room, door_relation(direction), door)] = None
            facts[(m["room"].strip().lower(), f"{direction} of", room)] = None
    if room:
        for m in _EXIT.finditer(seen.text):
            direction = m["dir"].lower()
            facts[(room, EXIT_RELATION, direction)] = None
            door, state = (m["via"], m["via_state"]) if m["via"] else (m["door"], m["state"])
            if door:
                facts[(room, door_relation(direction), door.lower())] = None
                facts[(door.lower(), "is", state.lower())] = None
            if m["room"]:
                facts[(m["room"].strip().lower(), f"{direction} of", room)] = None
    if seen.inventory is not None:
        for thing in seen.inventory:
            facts[(_name(thing, named), "in", "inventory")] = None
        shown.add("inventory")
    return Sighting(tuple(facts), frozenset(shown))
