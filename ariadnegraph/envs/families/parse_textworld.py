"""Perception for TextWorld games: what an observation shows, read from its valid commands and its door sentences.

TextWorld describes a room with randomised filler ("Look out! It's a- oh, never mind, it's just a fridge."), but
its valid commands are regular and list everything the player can see and reach: ``take X from Y`` (X is in or on
Y), ``take X`` (on the floor), ``open Y`` / ``close Y`` / ``unlock Y with K`` (Y closed, open, locked),
``examine T`` (T is here), ``drop X`` (X is carried). What a text says a key opens is kept too (a treasure hunt's
notes: "The key 2 unlocks Red locker."). So the room, the supports and the open containers are shown
whole each step, and a closed container shows nothing of what it holds. Doors and exits behind them come from the
text ("There is a closed frosted-glass door leading west."): a closed door lists no 'go' command. Where a game lists
no valid commands, the text's own sentences stand in ("On the counter you see a knife and an apple.", "You open the
fridge, revealing a carrot.", "The fridge contains a carrot.", "There is a coin on the floor."), and the inventory the
env read from the game ("You pick up the keycard" ends a treasure hunt: no command is listed after it).
"""

from __future__ import annotations

import re
from collections.abc import Iterable

from ...memory.objects import UNLOCKS
from ...memory.spatial import EXIT_RELATION, door_relation
from ...vocabulary import DIRECTIONS
from .base import Observed, Sighting, Triplet

INVENTORY = "inventory"
_DIRECTION = "|".join(DIRECTIONS)
_TAKE_FROM = re.compile(r"^take (?P<thing>.+?) from (?P<holder>.+)$")
_TAKE = re.compile(r"^take (?P<thing>.+)$")
_OPEN = re.compile(r"^open (?P<thing>.+)$")
_CLOSE = re.compile(r"^close (?P<thing>.+)$")
_UNLOCK = re.compile(r"^unlock (?P<thing>.+?) with .+$")
_EXAMINE = re.compile(r"^(?:examine|x) (?P<thing>.+)$")
_DROP = re.compile(r"^drop (?P<thing>.+)$")
_SUPPORT = re.compile(r"^put .+? on (?P<holder>.+)$")
_CONTAINER = re.compile(r"^insert .+? into (?P<holder>.+)$")
_DOOR = re.compile(
    rf"\bThere is an? (?:(?P<state>open|closed|locked) )?(?P<door>[\w' -]+?) leading (?P<dir>{_DIRECTION})\b", re.I
)
# the text's own sentences, for games that list no valid commands
_ON = re.compile(r"\bOn the (?P<holder>[\w' -]+?),? you (?:can )?(?:see|make out|spot) (?P<things>[^.!?]+)[.!?]", re.I)
_SEEN_ON = re.compile(r"\bYou (?:can )?(?:see|make out) (?P<things>[^.!?]+?) on the (?P<holder>[\w' -]+?)[.!?]", re.I)
_CONTAINS = re.compile(r"\bThe (?P<holder>[\w' -]+?) contains (?P<things>[^.!?]+)[.!?]", re.I)
_REVEALING = re.compile(r"\bYou open the (?P<holder>[\w' -]+?), revealing (?P<things>[^.!?]+)[.!?]", re.I)
_FLOOR = re.compile(r"\bThere is an? (?P<thing>[\w' -]+?) on the floor\b", re.I)
# what a text says a key opens ("The key 2 unlocks Red locker.", "The key 1 lying in room A opens the white locker.")
_KEY_OPENS = re.compile(
    r"\bThe (?P<key>key \w+|[\w-]+ key)(?: lying [^.!?]*?)? (?:opens|unlocks) (?:the )?(?P<lock>[\w' -]+?)"
    r"(?: (?:in|at) [^.!?]*)?[.!?]",  # the lock's name, not where it is ("... Red locker in Room C.")
    re.I,
)
# ... and a lock's key named in the sentence after it ("... from the golden locker. It opens with a golden key")
_OPENS_WITH = re.compile(
    r"\b(?P<lock>[\w-]+ [\w-]+)\. It (?:opens|unlocks) with (?:a|an|the) (?P<key>[\w-]+ key)\b", re.I
)
_LIST = re.compile(r",\s*(?:and\s+)?|\s+and\s+(?=(?:a|an|the|some)\s)", re.I)
_ARTICLE = re.compile(r"^(?:a|an|the|some)\s+", re.I)


def names(listed: str) -> list[str]:
    """ "a knife, a red apple and some salt" -> ["knife", "red apple", "salt"] (Inform gives each item an article, so
    a name holding "and" survives: "a salt and pepper shakers")."""
    return [_ARTICLE.sub("", part.strip()).strip() for part in _LIST.split(listed) if part.strip()]


def _matches(pattern: re.Pattern[str], commands: Iterable[str]) -> list[re.Match[str]]:
    return [m for c in commands if (m := pattern.match(" ".join(c.lower().split()))) is not None]


def sighting(seen: Observed) -> Sighting:
    """The facts an observation of a TextWorld game shows, and the holders it shows whole (see the module)."""
    room = seen.location
    facts: dict[Triplet, None] = {}
    shown: set[str] = set()
    valid = list(seen.valid)
    openable = {m["thing"] for m in _matches(_OPEN, valid)} | {m["thing"] for m in _matches(_CLOSE, valid)}
    openable |= {m["thing"] for m in _matches(_UNLOCK, valid)} | {m["holder"] for m in _matches(_CONTAINER, valid)}
    doors = {m["door"].lower(): m for m in _DOOR.finditer(seen.text)}
    if room:
        for door, found in doors.items():
            facts[(room, EXIT_RELATION, found["dir"].lower())] = None
            facts[(room, door_relation(found["dir"].lower()), door)] = None
            if found["state"]:
                facts[(door, "is", found["state"].lower())] = None
    for pattern in (_KEY_OPENS, _OPENS_WITH):
        for m in pattern.finditer(seen.text):
            facts[(m["key"].lower(), UNLOCKS, m["lock"].lower())] = None
    if valid:
        held = {m["thing"] for m in _matches(_DROP, valid)}
        for thing in held:
            facts[(thing, "in", INVENTORY)] = None
        shown.add(INVENTORY)
        for m in _matches(_TAKE_FROM, valid):
            facts[(m["thing"], "in" if m["holder"] in openable else "on", m["holder"])] = None
            shown.add(m["holder"])
        placed = {m["thing"] for m in _matches(_TAKE_FROM, valid)}
        for m in _matches(_TAKE, valid):
            if m["thing"] not in placed and " from " not in m["thing"] and room:
                facts[(m["thing"], "in", room)] = None
        for m in _matches(_OPEN, valid):
            facts[(m["thing"], "is", "closed")] = None
        for m in _matches(_CLOSE, valid):
            facts[(m["thing"], "is", "open")] = None
            shown.add(m["thing"])  # an open container lists what it holds as 'take X from' it
        for m in _matches(_UNLOCK, valid):
            facts[(m["thing"], "is", "locked")] = None
        for m in _matches(_SUPPORT, valid):
            shown.add(m["holder"])
        for m in _matches(_EXAMINE, valid):
            thing = m["thing"]
            if room and thing not in held and thing not in placed and thing not in doors:
                facts.setdefault((thing, "in", room), None)
        # a support seen with nothing to take from it is shown whole too: the room lists every support it has
        shown |= {thing for (thing, relation, where) in facts if relation == "in" and where == room}
        shown -= {thing for thing in openable if (thing, "is", "open") not in facts}
        shown -= set(doors)  # a door holds nothing
        if room:
            shown.add(room)
    else:
        for pattern in (_ON, _SEEN_ON):
            for m in pattern.finditer(seen.text):
                holder = m["holder"].lower()
                for thing in names(m["things"]):
                    facts[(thing.lower(), "on", holder)] = None
                shown.add(holder)
        for pattern in (_CONTAINS, _REVEALING):
            for m in pattern.finditer(seen.text):
                holder = m["holder"].lower()
                for thing in names(m["things"]):
                    facts[(thing.lower(), "in", holder)] = None
                facts[(holder, "is", "open")] = None
                shown.add(holder)
        if room:
            for m in _FLOOR.finditer(seen.text):
                facts[(m["thing"].lower(), "in", room)] = None
        if seen.inventory is not None:  # the game's own inventory, where no 'drop' command lists it (the last step)
            for thing in seen.inventory:
                facts[(thing.lower(), "in", INVENTORY)] = None
            shown.add(INVENTORY)
    return Sighting(tuple(facts), frozenset(shown))
