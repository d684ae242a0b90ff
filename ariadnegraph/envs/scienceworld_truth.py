"""ScienceWorld's true world state, for evaluation only (``ariadne fidelity``, never the agent): its object tree read
after every command and written in TextWorld's fact form (where each thing is, what holds it, which containers
are open)."""

from __future__ import annotations

import json
from collections.abc import Iterator, Mapping
from typing import Any

# Oracle.extra key: the truth says "in" for every holder, because ScienceWorld's object tree does not tell a
# support ("On the counter is: ...") from a container ("In the sink is: ...", "(containing ...)").
IN_OR_ON = "in_or_on"
# What every object is made of, never listed by a look: electrical connection points.
_PARTS = frozenset({"terminal 1", "terminal 2", "anode", "cathode"})
_AGENT, _INVENTORY = "agent", "inventory"


class ScienceWorldTruth:
    """Reads an episode's true state from its JVM, after each command: ``getObjectTree`` (a JSON string of every
    object, about 50-100 ms) and, only when the objects or their names changed, the names the game accepts for
    each (``getAllObjectIdsTypesReferentsLUTJSON``, about 45 ms)."""

    def __init__(self) -> None:
        self._named: dict[str, str] = {}  # uuid -> name when the referents were read
        self._referents: dict[str, list[str]] = {}

    def read(self, server: Any) -> tuple[tuple[str, ...], ...]:
        try:
            tree = json.loads(server.getObjectTree(""))
        except ValueError:  # an uninitialised game answers with a message, not JSON
            return ()
        named = dict(_objects(tree))
        if named != self._named:
            lut = json.loads(server.getAllObjectIdsTypesReferentsLUTJSON())
            self._referents = {uuid: list(entry.get("referents") or ()) for uuid, entry in lut.items()}
            self._named = named
        return tree_facts(tree, self._referents)


def _contents(thing: dict[str, Any]) -> list[dict[str, Any]]:
    return [
        inner
        for inner in (thing.get("contents") or {}).values()
        if not inner.get("isDeleted") and inner.get("name") not in _PARTS
    ]


def _objects(thing: dict[str, Any]) -> Iterator[tuple[str, str]]:
    for inner in _contents(thing):
        yield inner["uuid"], inner["name"]
        yield from _objects(inner)


def tree_facts(tree: dict[str, Any], referents: Mapping[str, list[str]] | None = None) -> tuple[tuple[str, ...], ...]:
    """ScienceWorld's object tree (``getObjectTree``) as TextWorld facts: ``at(P, room)``, ``at(thing, room)``,
    ``in(thing, holder)`` (supports too: see :data:`IN_OR_ON`), ``in(thing, I)`` for what the agent carries,
    ``open``/``closed`` for what can be closed, and ``called(referent, name)``: the other names the game takes
    for a thing (``referents``: uuid -> names), where a name means one thing's name only ("red apple" is the
    apple; "living thing" means many). The rooms are the universe's direct contents; electrical terminals and
    deleted things are left out. Doors are not in the tree, so there are no exits."""
    facts: dict[tuple[str, ...], None] = {}
    names: dict[str, set[str]] = {}

    def place(holder: dict[str, Any], where: str, relation: str) -> None:
        for thing in _contents(holder):
            name = thing["name"]
            if name == _AGENT:
                facts[("at", "P", where)] = None
                for pocket in _contents(thing):
                    if pocket["name"] == _INVENTORY:
                        place(pocket, "I", "in")
                continue
            facts[(relation, name, where)] = None
            container = thing.get("propContainer") or {}
            if container.get("isClosable"):
                facts[("open" if container.get("isOpen") else "closed", name)] = None
            for referent in (referents or {}).get(thing["uuid"], ()):
                if referent != name:
                    names.setdefault(referent, set()).add(name)
            place(thing, name, "in")

    for room in _contents(tree):
        place(room, room["name"], "at")
    taken = {fact[1] for fact in facts if len(fact) == 3}  # a referent that is itself a thing's name is no alias
    for referent, meant in names.items():
        if len(meant) == 1 and referent not in taken:
            facts[("called", referent, next(iter(meant)))] = None
    return tuple(facts)
