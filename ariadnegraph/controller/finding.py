"""What the next step needs from memory, and the way to it (``object_memory`` presets).

The next step of a list read ("carrot", "slice the carrot", "roast the carrot") names things: the thing, the tool
it needs, the appliance it is done at (the game family says which, ``GameFamily.things_named``). For each, object
memory (memory/objects.py) says where it is now or was last seen and the way there, or, when it was never seen,
where to search next: the nearest container never seen open, closed door or exit not taken (the frontier). What
memory saw in another room the chooser walks to in code before asking the model (``way_to_seen``); the planner reads
the rest as the WHERE section, and the way forward (a step sent back with the replans used up, a stall) plays its
first command, so code walks the same frontier the planner was shown.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Callable, Collection, Sequence
from dataclasses import dataclass
from typing import NamedTuple

from .. import prompting as p
from ..envs.families import GameFamily
from ..memory import WorldMemory, spatial
from ..memory import objects as om

LEADS_SHOWN = 3  # places to search listed for a thing not seen yet


class Way(NamedTuple):
    """A command code plays toward what a step needs, why, and what it plays next without asking (``then``: the
    search of a lead one move away, once there: the move is worth only the search it leads to, and a chooser asked
    on arrival may move off before it)."""

    command: str
    why: str
    then: tuple[str, ...] = ()
    room: str | None = None  # where ``then`` is to be played (the lead's room, as memory names it)


@dataclass(frozen=True)
class Need:
    """One thing the next step names, as memory knows it."""

    thing: str  # as the step names it (a thing of the kind it names: as memory names it)
    held: bool = False
    holder: str | None = None  # the holder it is in or on now, or was last seen in (a name)
    relation: str = "in"  # in or on the holder
    room: str | None = None  # the room of that holder (a name); None when memory cannot say
    here: bool = False  # the room is the player's
    closed: bool = False  # the holder is a closed container
    shut: bool = False  # the thing itself is closed, and the family opens what a step uses (a blast furnace)
    gone: bool = False  # memory saw it there once, but not any more (taken away, eaten)
    step: int | None = None  # when it was seen there
    moves: tuple[tuple[str, str], ...] = ()  # the way from here to its room ("go east" into room)
    place: bool = False  # a room the step is done in (the thing is the room), not a thing to find
    told: bool = False  # a room the task says a thing the step names is in ("located around the kitchen")
    kind: str | None = None  # the kind the step names, when the thing is one memory saw of that kind ("living thing")
    picked: bool = False  # of its kind, the one the game said the player focused on: the one the task goes on with
    alike: tuple[str, ...] = ()  # the others of its kind in its room: which one the step means is the model's

    @property
    def label(self) -> str:
        """How WHERE names it: "adult bee (a living thing)" for one of a kind ("chameleon egg, parrot egg (each an
        animal)" for several in one room), else the thing."""
        return p.of_kind(", ".join([self.thing, *self.alike]), self.kind) if self.kind else self.thing


def needs(item: str, family: GameFamily, memory: WorldMemory, location: str | None, goal: str = "") -> list[Need]:
    """What memory knows of each thing ``item`` names (in the family's order: the thing, then its tool, appliance; a
    kind the family knows, "the living thing", as a thing memory saw of that kind), then of the room it is done in
    (the family's rules or the task, ``goal``, name it)."""
    view = memory.current()
    here = memory.key(location) if location else spatial.current_location(view)
    places = spatial.locations(view)
    found = []
    named = family.things_named(item)
    for thing in named:
        key, kind = memory.key(thing), None
        now = om.placement(view, key)
        seen = now or memory.last_seen(key)
        picked = False
        if seen is None and thing in family.kinds and (instance := _of_kind(thing, family, memory, places, here)):
            kind, key, now = thing, instance, om.placement(view, instance)
            thing, seen, picked = memory.entity_name(instance), now, _picked(instance, thing, family, memory, places)
        if seen is None:
            found.append(Need(thing))
            continue
        if now is not None and om.carried(view, key, places):  # in the inventory, or in a cup carried
            found.append(Need(thing, held=True, step=seen.valid_from, kind=kind, picked=picked))
            continue
        room = om.room_of(view, seen.object_key, places) if now is not None else None
        told = [memory.key(place) for place in family.where_told(thing, goal)]
        if told and room is not None and room not in told and not _the_one_left(key, told, memory, places):
            found.append(Need(thing))  # a thing of its name, not the one the task places: that room first
            continue
        moves = spatial.shortest_path(view, here, room) if here and room and room != here else None
        alike = _alike(key, kind, family, memory, places, room) if kind and not picked and room else ()
        found.append(
            Need(
                thing,
                holder=memory.entity_name(seen.object_key),
                relation=seen.relation,
                room=memory.entity_name(room) if room else None,
                here=room is not None and room == here,
                closed=om.state_of(view, seen.object_key) in om.CLOSED,
                shut=family.opens_what_it_uses and om.state_of(view, key) in om.CLOSED,
                gone=now is None,
                step=seen.valid_from,
                moves=tuple(moves or ()),
                kind=kind,
                picked=picked,
                alike=alike,
            )
        )
    told_rooms = {memory.key(room) for thing in named for room in family.where_told(thing, goal)}
    for room in family.places_named(item, goal):
        key = memory.key(room)
        if key not in places and key != here:
            found.append(Need(room, place=True, told=key in told_rooms))  # a room not found yet: search for it
            continue
        moves = spatial.shortest_path(view, here, key) if here and key != here else None
        name = memory.entity_name(key)
        found.append(
            Need(name, holder=name, room=name, here=key == here, moves=tuple(moves or ()), place=True,
                 told=key in told_rooms)
        )  # fmt: skip
    return found


def _of_kind(kind: str, family: GameFamily, memory: WorldMemory, places: set[str], here: str | None) -> str | None:
    """A thing memory places now that is of the kind ``kind`` names (the family says by its name): the one the game
    said the player focused on first (the task's later steps, "move the living thing to the red box", mean the one
    its focus chose, not another of the kind), then the one held (taken, it is the one the task goes on with), then
    the one here, then the one seen last; None when memory holds none."""
    view = memory.current()

    placed = {
        f.subject_key: f
        for f in view.facts.values()
        if f.relation in om.PLACEMENTS and f.subject_key != spatial.PLAYER and f.subject_key not in places
    }
    things = [thing for thing in placed if family.is_a(memory.entity_name(thing), kind)]
    if not things:
        return None
    return min(
        things,
        key=lambda t: (
            not _focused_on(t, memory),
            placed[t].object_key != om.INVENTORY,
            om.room_of(view, t, places) != here,
            -placed[t].valid_from,
        ),
    )


def _the_one_left(thing: str, told: Collection[str], memory: WorldMemory, places: set[str]) -> bool:
    """Whether a thing (a key) seen outside the rooms the task says it is in (``told``, keys) is the task's: carried
    out of one of them (taken after it was seen there, and carried on since), or those rooms searched and memory
    never saw it in one of them (memory keeps one entity a name: of two things of one name, the one seen first in
    the room the task names would be the other's once the other was seen)."""
    view = memory.current()
    placed = [f for f in memory.all_facts if f.subject_key == thing and f.relation in om.PLACEMENTS]
    there = [f.valid_from for f in placed if om.room_of(view, f.object_key, places) in told]
    if there and any(f.object_key == om.INVENTORY and f.valid_from >= min(there) for f in placed):
        return True
    return _searched(told, memory) and not there


def _searched(rooms: Collection[str], memory: WorldMemory) -> bool:
    """Whether each room (keys) was visited and holds no container never seen open: the room the task said a thing
    is in was searched, and a thing of its name seen elsewhere is the one left (where a task says a thing is names
    where to look first; once nothing there shows it, the one seen elsewhere is the only one to use)."""
    visited = set(memory.visited_rooms())
    unopened = {lead.room for lead in memory.leads(None) if lead.kind == "container"}
    return all(room in visited and room not in unopened for room in rooms)


def way_to_told(
    found: Sequence[Need], memory: WorldMemory, family: GameFamily, valid: Sequence[str]
) -> tuple[str, str] | None:
    """The first move toward the room the task says a thing the step names is in, while that thing is not seen and
    the room is not searched (code walked there before the model was asked; the search there is the way forward's),
    and why; None otherwise."""
    if not any(need.holder is None and not need.place for need in found):
        return None
    for need in found:
        if need.told and not need.here and need.room is not None and not _searched([memory.key(need.room)], memory):
            if move := _toward_seen(need, family, valid):
                return move
    return None


def _alike(
    thing: str, kind: str, family: GameFamily, memory: WorldMemory, places: set[str], room: str
) -> tuple[str, ...]:
    """The names of the other things of ``kind`` memory places now in ``room`` (a step that picks one of a kind by a
    criterion, "the animal with the longest life span", means one of them: which one is not code's to know)."""
    view = memory.current()
    others = {
        f.subject_key
        for f in view.facts.values()
        if f.relation in om.PLACEMENTS and f.subject_key not in (thing, spatial.PLAYER) and f.subject_key not in places
    }
    names = (memory.entity_name(o) for o in sorted(others) if om.room_of(view, o, places) == room)
    return tuple(name for name in names if family.is_a(name, kind))


def _picked(instance: str, kind: str, family: GameFamily, memory: WorldMemory, places: set[str]) -> bool:
    """Whether ``instance`` (a key) is the one of ``kind`` the game said the player focused on, and the only one its
    short answer could mean ("You focus on the pea plant." with two pea plants placed: which one is not known)."""
    if not _focused_on(instance, memory):
        return False
    view = memory.current()
    placed = {f.subject_key for f in view.facts.values() if f.relation in om.PLACEMENTS and f.subject_key not in places}
    alike = [t for t in placed if family.is_a(memory.entity_name(t), kind) and _focused_on(t, memory)]
    return alike == [instance]


def _focused_on(thing: str, memory: WorldMemory) -> bool:
    """Whether the game said the player focused on ``thing`` (a key): its answer names it short, "pea plant" for the
    "adult pea plant" a look lists."""
    name = " ".join(memory.entity_name(thing).lower().split())
    shorts = (" ".join(short.lower().split()) for short in om.focused_names(memory.current()))
    return any(name == short or name.endswith(f" {short}") for short in shorts)


def done_elsewhere(found: Sequence[Need], location: str | None, inventory: Sequence[str] = ()) -> bool:
    """Whether the step is done in a room (a place the family's rules or the task name: ``needs``) that is not the
    player's, with nothing it names here or in hand (memory's word, or the inventory's, whole words: without object
    memory nothing is placed): a thing of its name lying here is likely not the one meant (the task says where its
    thing is "located around"; ``needs`` reads it as not seen while that room is not searched). False where the
    player's room is not known."""
    rooms = [need for need in found if need.place]
    if not location or not rooms or any(need.here for need in rooms):
        return False
    held = f" {' | '.join(' '.join(thing.lower().split()) for thing in inventory)} "  # (no match across two things)
    things = [need for need in found if not need.place]
    return not any(n.held or n.here or f" {' '.join(n.thing.lower().split())} " in held for n in things)


def in_holder_command(item: str, found: Sequence[Need], family: GameFamily, valid: Sequence[str]) -> str | None:
    """The valid command that does the step on what it names, as memory knows it: the one of a kind the player
    focused on, by its name ("move the living thing to the red box": the adult pea plant), or a thing lying here in a
    holder, as the family's commands name it there (``GameFamily.named_by_holder``: ScienceWorld's "focus on
    substance in fountain" for the water); None when no command does."""
    for need in found:
        if need.kind is None or not need.picked or not (need.held or need.here):
            continue
        for name in _names_of_picked(need, family):
            named = re.sub(rf"\b{re.escape(need.kind)}\b", name, item, count=1, flags=re.IGNORECASE)
            # as the family words it, in order ("move X to red box" is not "move red box to X"), never the step as
            # written: "move X to the red box in the workshop" grounds to 'move X to workshop', the room, not the box
            wordings = (family.ground(wording, valid) for wording in family.phrasings(named))
            command = family.command_for_item(named, valid) or next(filter(None, wordings), None)
            if command is not None and set(name.lower().split()) <= set(command.lower().split()):
                return command  # (naming it whole: 'move living thing to red box' is not the one in flower pot 1)
    for need in found:
        if need.place or not need.here or need.holder is None or need.holder == need.room:
            continue
        for name in family.named_by_holder(need.thing, need.holder, valid):
            located = re.sub(rf"\b(?:the )?{re.escape(need.thing)}\b", name, item, count=1, flags=re.IGNORECASE)
            command = family.ground(located, valid) if located != item else None
            # the command must name it so: 'focus on fountain' is the holder, and a focus on it fails the task
            if command is not None and set(name.lower().split()) <= set(command.lower().split()):
                return command
    return None


def kind_choices(item: str, found: Sequence[Need], family: GameFamily, valid: Sequence[str]) -> tuple[str, list[str]]:
    """The kind the step names and the valid commands that do the step to each thing of it lying here, when several
    are and which one the step means is the model's (none picked: "focus on the animal with the longest life span"
    among a baby beaver, a brown bear and a mouse); ('', []) when no such choice is here. Code plays none of them: it
    stays for the model to choose (what the step needs is here, and a search elsewhere walks away from it and back)."""
    for need in found:
        if need.kind is None or need.picked or need.held or not need.here or not need.alike:
            continue  # (one of it here is no choice: the others may be elsewhere)
        head = re.split(rf"\b(?:the |an? )?{re.escape(need.kind)}\b", item, maxsplit=1, flags=re.IGNORECASE)[0]
        prefix = " ".join(word for word in head.lower().split() if word not in ("the", "a", "an")) + " "
        names = [set(name.lower().split()) for name in (need.thing, *need.alike)] if prefix.strip() else []
        # the valid commands of the step's verb naming one of them by words of its name: ScienceWorld's focus names a
        # chameleon egg "chameleon", a parrot egg "egg parrot", a baby wolf "baby baby wolf" ("egg" names two: none)
        fitting = {
            c: [i for i, words in enumerate(names) if set(c.lower()[len(prefix) :].split()) <= words]
            for c in valid
            if c.lower().startswith(prefix)
        }
        ones = [(fits[0], c) for c, fits in fitting.items() if len(fits) == 1]
        per_thing = Counter(i for i, _ in ones)
        commands = [c for i, c in ones if per_thing[i] == 1]  # (two commands for one thing: which is not known)
        if len(commands) > 1:
            return need.kind, commands
    return "", []


def _into(lead: om.Lead) -> str:
    """The room a lead goes into, where it names one: a named exit's lead is named after it, a door's command too."""
    return lead.name if lead.kind == "exit" else lead.command.partition(" door to ")[2]


def leads(
    memory: WorldMemory,
    location: str | None,
    toward: Sequence[Need] = (),
    family: GameFamily | None = None,
    valid: Sequence[str] = (),
) -> list[om.Lead]:
    """Where to search for what was never seen, nearest first; those in (or into) a room the step is done in
    (``toward``'s places: "the water is located around the kitchen") before the rest. Where the ``family`` reaches a
    room in one move (``GameFamily.reach``), a room never visited is a lead here, the move to it its command, in place
    of the walk to an exit or a door into it elsewhere."""
    view = memory.current()
    here = memory.key(location) if location else spatial.current_location(view)
    found = memory.leads(here)
    if family is not None and valid:
        found = _with_rooms_reached(found, memory, here, family, valid)
    rooms = {memory.key(need.room or need.thing) for need in toward if need.place}
    if not rooms:
        return found
    return sorted(found, key=lambda lead: lead.room not in rooms and memory.key(_into(lead)) not in rooms)


def _with_rooms_reached(
    found: list[om.Lead], memory: WorldMemory, here: str | None, family: GameFamily, valid: Sequence[str]
) -> list[om.Lead]:
    """``found`` with each room never visited that one move reaches as a lead here (after the leads here), and without
    the exits and doors into it elsewhere and the shut doors into it here; a room an open exit here goes into keeps
    that lead."""
    if here is None:  # where the player is not known, nothing is "here"
        return found
    visited = set(memory.visited_rooms())
    entered_here = {memory.key(_into(lead)) for lead in found if lead.room == here and lead.kind == "exit"}
    reached: dict[str, om.Lead] = {}
    for room, command in family.rooms_reached(valid).items():
        key = memory.key(room)
        if key in visited or key == here or key in entered_here:
            continue
        reached.setdefault(key, om.Lead("exit", room, here, command))
    if not reached:
        return found
    near = [
        lead for lead in found if lead.room == here and not (lead.kind == "door" and memory.key(_into(lead)) in reached)
    ]
    far = [lead for lead in found if lead.room != here and memory.key(_into(lead)) not in reached]
    return [*near, *reached.values(), *far]


def where_lines(
    found: Sequence[Need],
    searches: Sequence[om.Lead],
    memory: WorldMemory,
    location: str | None,
    playable: Callable[[str], bool] = lambda command: True,
    reach: Callable[[str], str | None] = lambda room: None,
    choices: tuple[str, Sequence[str]] = ("", ()),
) -> list[str]:
    """The WHERE section: each thing the next step needs, where memory has it and what gets it (prompting's lines).
    ``playable``: whether a search here is a valid command now (TWX's coin collector keeps its containers shut);
    ``reach``: the one move to a room, where the family has one (``GameFamily.reach``), shown as the way there;
    ``choices``: a kind and the commands that do the step to each of it here, when which one is the model's
    (``kind_choices``)."""

    def way(need: Need) -> list[str]:
        move = reach(need.room) if need.room and not need.here else None
        return [move] if move else [f"go {direction}" for direction, _ in need.moves]

    lines, unseen = [], []
    for need in found:
        if need.held:
            lines.append(p.where_line(need.label, "in your inventory"))
        elif need.gone:
            lines.append(p.where_line(need.thing, p.not_seen_text(need.holder)))
        elif need.holder is None:
            unseen.append(need.thing)
        elif need.place:
            lines.append(p.where_line(need.thing, p.room_text(need.here, way(need))))
        else:
            where = p.placed_text(need.relation, need.holder, need.room, need.here, need.closed, way(need))
            lines.append(p.where_line(need.label, where))
    if choices[1]:
        lines.append(p.choose_line(*choices))
    if unseen:  # what was never seen: where to search, here first (the commands as written), then elsewhere
        lines.append(p.where_line(" and ".join(unseen), p.not_seen_text(None)))
        here = memory.key(location) if location else spatial.current_location(memory.current())  # as leads() reads it
        near = [lead.command for lead in searches if lead.room == here and playable(lead.command)][:LEADS_SHOWN]
        far = [lead for lead in searches if lead.room != here][: LEADS_SHOWN - len(near) or 1]
        if near:
            lines.append(p.search_here_line(near))
        if far:
            rooms: dict[str, list[str]] = {}
            for lead in far:
                room = memory.entity_name(lead.room)
                rooms.setdefault(reach(room) or f"go to {room}", []).append(lead.command)
            lines.append(p.search_elsewhere_line(rooms))
    return lines


def _valid(command: str, family: GameFamily, valid: Sequence[str]) -> str | None:
    return family.ground(command, valid) if valid else command


def next_move(
    found: Sequence[Need],
    searches: Sequence[om.Lead],
    memory: WorldMemory,
    valid: Sequence[str],
    location: str | None,
    family: GameFamily,
    worn: Collection[str] = (),
) -> tuple[str, str] | Way | None:
    """The first valid command toward what the next step needs, and why: open the closed thing it is in, take it, go
    toward its room; for a thing never seen, the nearest lead: open it or go through it here, else go toward it; the
    room the step is done in once everything is in hand, or when no lead is left for what was never seen. None when
    memory gives no way (nothing needed, or no valid command does it)."""
    # a move played often from this very situation is no way to what was seen either: two needs in two rooms (the
    # thing in one, the appliance that changes it in the other) would walk the agent between them
    fresh = [command for command in valid if command not in worn]
    # what memory has seen first (a thing here, a room known), then a search for what it never saw
    bring, stay = _to_bring(found), _left_behind(found, family, fresh)
    for need in sorted(found, key=lambda n: n.holder is None or n.gone):
        if need.held or (need.place and bring):
            continue
        if need.holder is not None and not need.gone and need.room is not None:
            if need.here and (opening := _open_holder(need, family, fresh)):
                return opening
            if need.here and (take := _take_here(need, family, fresh)):
                return take
            if need.here:
                continue  # here, but nothing takes it (an appliance, a room: the step is done here)
            if not stay and (move := _toward_seen(need, family, fresh)):
                return move
            continue
        if need.place and need.holder is None and (command := family.reach(need.thing, fresh) if fresh else None):
            return command, f"the step is done in {need.thing}"  # a room not seen yet, one move away
        if search := search_move(searches, memory, valid, location, family, worn):
            return search._replace(why=f"the {need.thing} is not seen yet: {search.why}")
    # nowhere left to search for what was never seen (or is gone): the room the step is done in, where the task may
    # have it
    unseen = any((need.holder is None or need.gone) and not need.place for need in found)
    places = [need for need in found if need.place and unseen and need.holder is not None and not need.here]
    return next((move for need in places if (move := _toward_seen(need, family, fresh))), None)


def _names_of_picked(need: Need, family: GameFamily) -> list[str]:
    """The names the game's commands may give the one of a kind the player focused on (the family says:
    ``GameFamily.names_of_one_of_kind``)."""
    return family.names_of_one_of_kind(need.thing, need.kind or "", need.holder, need.held)


def _take_here(need: Need, family: GameFamily, valid: Sequence[str]) -> tuple[str, str] | None:
    """The valid command that takes (or does) what ``need`` names, lying here, and why (a thing the step uses, shut:
    opening it); None when none does, or when the thing is one of a kind the step names and not the one picked."""
    if need.shut and (command := _valid(f"open {need.thing}", family, valid)):
        return command, f"the {need.thing} the step uses is closed"
    if need.kind is not None and not need.picked:  # one of a kind (a bee of many): which one is the model's
        return None
    names = _names_of_picked(need, family) if need.picked else [need.thing]
    if (command := next(filter(None, (family.command_for_item(name, valid) for name in names)), None)) is None:
        return None
    return command, f"the {need.thing} is {need.relation} the {need.holder}, here"


def _toward_seen(need: Need, family: GameFamily, valid: Sequence[str]) -> tuple[str, str] | None:
    """The first move of the way to the room where memory has ``need`` now (the one move there, where the family has
    one: ``GameFamily.reach``), when a valid command makes it, and why."""
    if need.room is None or need.here:
        return None
    command = family.reach(need.room, valid) if valid else None
    if command is None and need.moves:
        command = _valid(f"go {need.moves[0][0]}", family, valid)
    if command is None:
        return None
    if need.place:
        return command, f"the step is done in {need.room}"
    where = f"in {need.room}" if need.holder == need.room else f"{need.relation} the {need.holder} in {need.room}"
    return command, f"the {need.thing} is {where}"


def way_to_seen(found: Sequence[Need], family: GameFamily, valid: Sequence[str]) -> tuple[str, str] | None:
    """The first command toward what the next step needs that memory has seen in another room (or the room the step
    is done in), and why: a thing it needs that lies here and a valid command takes is taken first (no walking away
    from it; a shut thing it uses is opened, the closed holder of the thing it acts on too); then the first move of the
    way there. None when the step needs nothing elsewhere that memory has seen (nor a shut thing here it uses), when
    the thing it acts on lies here and nothing takes it (``_left_behind``), or no valid command walks there; what was
    never seen is the planner's (or the way forward's) to search for."""
    elsewhere = any(
        (n.moves or (n.room and family.reach(n.room, valid))) and not (n.held or n.here or n.gone or n.holder is None)
        for n in found
    )
    if not elsewhere and not any(n.here and n.shut for n in found):
        return None
    for need in found:
        if need.here and not need.held and not need.place and (take := _take_here(need, family, valid)):
            return take
    first = found[0]
    if first.here and not (first.held or first.place) and (opening := _open_holder(first, family, valid)):
        return opening
    if _left_behind(found, family, valid):
        return None
    bring = _to_bring(found)
    for need in found:
        if need.held or need.here or need.gone or need.holder is None or (need.place and bring):
            continue
        if move := _toward_seen(need, family, valid):
            return move
    return None


def _open_holder(need: Need, family: GameFamily, valid: Sequence[str]) -> tuple[str, str] | None:
    """The valid command that opens the closed holder ``need`` lies in, and why; None when it is not closed."""
    if need.closed and need.holder and (command := _valid(f"open {need.holder}", family, valid)):
        return command, f"the {need.thing} is in the closed {need.holder}"
    return None


def _left_behind(found: Sequence[Need], family: GameFamily, valid: Sequence[str]) -> bool:
    """Whether the thing the step acts on (its first) lies here in or on a holder and no valid command takes it: the
    walk to what else the step needs does not start (there, without the thing, the next step's walk leads back to
    it, and from it back there again: a loop; the way forward's search may still leave). A thing lying in the room
    itself (a door, a stove) is no thing to carry: the tool the step needs is walked to."""
    first = found[0] if found else None
    if first is None or first.place or first.held or first.gone or not first.here or first.holder is None:
        return False
    return first.holder != first.room and _take_here(first, family, valid) is None


def _to_bring(found: Sequence[Need]) -> bool:
    """Whether a thing the step needs is not in hand: the walk to the room the step is done in waits until it is
    (arrived without it, the walk goes back to it, then to the room again). A thing never seen is searched for, the
    room the step is done in first (``leads``' ``toward``), with no walk back to that room while the search goes on
    elsewhere."""
    return any(not (n.place or n.held) for n in found)


def _to_lead(lead: om.Lead, command: str, there: str, arrives: bool) -> Way:
    """The move toward a lead in another room, and, where the move arrives there, the lead's own command next."""
    then = (lead.command,) if arrives and lead.command != command else ()
    return Way(command, f"{lead.command} in {there}", then, there if then else None)


def search_move(
    searches: Sequence[om.Lead],
    memory: WorldMemory,
    valid: Sequence[str],
    location: str | None,
    family: GameFamily,
    worn: Collection[str] = (),
) -> Way | None:
    """The first valid command toward the nearest place not searched yet (a lead: open it or go through it here, else
    go toward its room), what it searches, and, where that one move reaches the lead's room, the lead's own command to
    play on arrival; None when no lead gives one. A command in ``worn`` (played often from this very situation) is no
    way to a lead: walking toward one lead and back toward another is a loop, whatever kept the nearest lead from being
    searched once there."""
    here = memory.key(location) if location else spatial.current_location(memory.current())
    for lead in searches:
        there = memory.entity_name(lead.room)
        if lead.room == here:
            if (command := _valid(lead.command, family, valid)) and command not in worn:
                return Way(command, f"{lead.command} here")
            continue
        reached = family.reach(there, valid)
        if reached and (command := _valid(reached, family, valid)) and command not in worn:
            return _to_lead(lead, command, there, arrives=True)  # one move (a teleport): no path to work out
        path = spatial.shortest_path(memory.current(), here, lead.room) if here else None
        if path and (command := _valid(f"go {path[0][0]}", family, valid)) and command not in worn:
            return _to_lead(lead, command, there, arrives=len(path) == 1)
    return None
