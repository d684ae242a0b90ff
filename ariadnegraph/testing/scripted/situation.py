"""What the scripted double's planner, critic and QA read off their sections, parsed once (:class:`Situation`)."""

from __future__ import annotations

import re
from typing import Any

from ... import prompting as p
from ...nodes.schemas import (
    StepReply,
)
from . import extract as ex
from .beliefs import belief_exits, belief_moves, recall
from .reading import OPPOSITE, SPATIAL_EXITS, Sections, failed, lowered
from .sections import (
    exits_table,
    facts,
    history,
    history_records,
    is_empty,
    items,
    notes,
    parse_belief,
    seen_map,
    split_semicolons,
)


class Situation:
    """What the planner, critic and QA read off their sections, parsed once."""

    def __init__(self, s: Sections) -> None:
        self.s = s
        self.goal = s.get(p.GOAL, "")
        # 'go to' is available when the node lists it among the extra commands
        self.go_to = any(c.lower().startswith("go to") for c in items(s.get(p.COMMANDS)))
        self.records = history_records(s.get(p.HISTORY) or s.get(p.FULL_HISTORY))
        belief = s.get(p.BELIEF)
        if is_empty(belief) and self.records:
            belief = recall(self.goal, self.records)  # no summarizer: rebuild the belief from the history shown
        self.belief = parse_belief(belief)
        self.admissible = items(s.get(p.ADMISSIBLE))
        self.adm_lower = {lowered(a): a for a in self.admissible}
        self.location = None if is_empty(s.get(p.LOCATION)) else (s.get(p.LOCATION) or "").strip()
        if not self.location:
            self.location = self.belief.get("Location") or None
        self.inventory = [i for i in items(s.get(p.INVENTORY))]
        self.memory = facts(s.get(p.MEMORY))
        self.unexplored = exits_table(s.get(p.EXPLORATION)) or {
            m.group(1).strip(): [d.strip().lower() for d in m.group(2).split(",") if d.strip()]
            for m in SPATIAL_EXITS.finditer(s.get(p.SPATIAL) or "")
        }
        self.notes = notes(s.get(p.NOTES))
        if not self.unexplored:  # the inner monologue may have looked them up
            for question, answer in self.notes:
                if question == "unexplored exits" and ":" in answer:
                    self.unexplored = exits_table("\n".join(f"- {part.strip()}" for part in answer.split(";")))
        self.history = history(s.get(p.HISTORY) or s.get(p.FULL_HISTORY))
        self.visited = [v.strip() for v in (self.belief.get("Visited") or "").split(",") if v.strip()]
        self.seen = seen_map(self.belief)
        self.recipe = split_semicolons(self.belief.get("Recipe"))
        self.directions = split_semicolons(self.belief.get("Directions"))
        self.needs = {k: v for k, v in ex.recipe_needs(self.directions).items()}
        if not self.recipe:  # no belief: the recipe as memory (MEMORY facts, QA notes) holds it
            self.recipe, self.needs = _recipe_from_memory(self.memory, self.notes)
        self.done = split_semicolons(self.belief.get("Done"))
        self.key_notes = {}
        for note in split_semicolons(self.belief.get("Notes")):
            key, _, lock = note.partition(" unlocks ")
            if lock:
                self.key_notes[lowered(key)] = lowered(lock)
        self.unlocked = {lowered(x) for x in split_semicolons(self.belief.get("Unlocked"))}
        self.notes_read = {lowered(x) for x in split_semicolons(self.belief.get("Notes read"))}
        self.links, exits = _history_map(self.records or [(a, o) for a, o in self.history])
        if not self.records and not self.history:  # no history shown (STMA): the moves the belief keeps
            for here, direction, there in belief_moves(self.belief):
                self.links.setdefault(here, {})[direction] = there
                self.links.setdefault(there, {}).setdefault(OPPOSITE.get(direction, direction), here)
            exits = belief_exits(self.belief)
        self.rooms = self._rooms()
        self.rooms += [r for r in self.links if r not in self.rooms]
        if not self.unexplored and not self.go_to:  # no map from memory: exits seen in the history, not yet taken
            self.unexplored = {
                room: [d for d in dirs if d not in self.links.get(room, {})] for room, dirs in exits.items()
            }
            self.unexplored = {room: dirs for room, dirs in self.unexplored.items() if dirs}

    def route(self, room: str) -> list[StepReply] | None:
        """Moves to ``room`` along the links seen in the history (for presets without 'go to')."""
        if not self.location:
            return None
        frontier: list[tuple[str, list[Any]]] = [(self.location, [])]
        seen = {self.location}
        while frontier:
            here, moves = frontier.pop(0)
            if lowered(here) == lowered(room):
                return moves
            for direction, there in self.links.get(here, {}).items():
                if there not in seen:
                    seen.add(there)
                    frontier.append((there, moves + [step_reply(f"go {direction}", there)]))
        return None

    # -- reading -----------------------------------------------------------------------------
    def _rooms(self) -> list[str]:
        rooms = list(self.visited)
        rooms += [r for r in self.unexplored if r not in rooms]
        for a, r, o in self.memory:
            if a == ex.PLAYER and r == "in" and o not in rooms:
                rooms.append(o)
            if r.endswith(" of") and r.split()[0] in ex.DIRECTIONS:
                rooms += [x for x in (a, o) if x not in rooms]
        return rooms

    def room_named(self, text: str) -> str | None:
        low = lowered(text)
        for room in sorted(self.rooms, key=len, reverse=True):
            if lowered(room) == low or re.search(rf"\b{re.escape(lowered(room))}\b", low):
                return room
        return None

    def carried(self) -> dict[str, list[str]]:
        """Inventory: base name (lower) -> state words."""
        found = {}
        for item in self.inventory:
            name, states = ex.split_state(lowered(item))
            found[name] = states
        return found

    def states(self, name: str) -> list[str]:
        """State words of an ingredient: the inventory's when carried, else what memory holds ("a roasted
        banana" seen on the counter is already roasted before it is taken)."""
        carried = self.carried()
        key = lowered(name)
        if key in carried:
            return carried[key]
        return [o for a, r, o in self.memory if r == "is" and lowered(a) == key and o in ex.STATE_WORDS]

    def has(self, name: str) -> bool:
        return lowered(name) in self.carried()

    def admissible_like(self, pattern: str) -> list[str]:
        rx = re.compile(pattern, re.IGNORECASE)
        return [a for a in self.admissible if rx.fullmatch(lowered(a))]

    def locate(self, thing: str) -> str | None:
        """The room where ``thing`` was last seen: belief, QA notes, then memory facts."""
        t = lowered(thing)
        if self.seen.get(t):
            return self.room_named(self.seen[t]) or self.seen[t]
        for question, answer in self.notes:
            if question.lower().startswith("where is") and lowered(question[8:].strip(" ?")) == t:
                if "unknown" in answer.lower() or "inventory" in answer.lower():
                    continue
                room = self.room_named(answer.split("(")[0]) or self.room_named(answer)
                if room:
                    return room
        holder = {lowered(a): o for a, r, o in self.memory if r in ("in", "on", "at")}
        seen = set()
        while t in holder and t not in seen:
            seen.add(t)
            t = lowered(holder[t])
            room = self.room_named(t)
            if room and lowered(room) == t:
                return room
        return None

    def recent_failures(self) -> set[str]:
        return {lowered(a) for a, answer in self.history[-3:] if failed(answer)}

    def last_failure(self) -> str | None:
        value = self.belief.get("Last failure")
        return lowered(value.split(" (")[0]) if value else None


def _history_map(records: list[tuple[str, str]]) -> tuple[dict[str, dict[str, str]], dict[str, list[str]]]:
    """Room links walked in the history (``go east`` from A reached B) and exits each room showed."""
    links: dict[str, dict[str, str]] = {}
    exits: dict[str, list[str]] = {}
    here = None
    for action, text in records:
        room = ex.room_header(text)
        direction = ex.direction_of_command(action)
        if room and here and direction and room != here:
            links.setdefault(here, {})[direction] = room
            links.setdefault(room, {}).setdefault(OPPOSITE.get(direction, direction), here)
        if room:
            here = room
            shown = [o for a, r, o in ex.extract(text, action, room).triplets if r == "has exit" and a == room]
            if shown:
                exits[room] = list(dict.fromkeys(exits.get(room, []) + shown))
    return links, exits


def _recipe_from_memory(
    memory: list[tuple[str, str, str]], notes: list[tuple[str, str]]
) -> tuple[list[str], dict[str, list[str]]]:
    triplets = list(memory)
    for question, answer in notes:
        if question.lower() == "recipe":
            triplets += [t for t in (ex_fact(part) for part in answer.split(";")) if t]
    recipe = list(dict.fromkeys(o for a, r, o in triplets if lowered(a) == ex.RECIPE and r == "requires"))
    needs: dict[str, list[str]] = {}
    for a, r, o in triplets:
        if r == "needs" and lowered(a) in {lowered(x) for x in recipe}:
            needs.setdefault(lowered(a), [])
            if o not in needs[lowered(a)]:
                needs[lowered(a)].append(o)
    return recipe, needs


def ex_fact(text: str) -> tuple[str, str, str] | None:
    """``"recipe requires carrot"`` / ``"carrot needs sliced"`` -> triplet."""
    m = re.match(r"^\s*(.+?) (requires|needs) (.+?)\s*$", text)
    return (m.group(1), m.group(2), m.group(3)) if m else None


def step_reply(action: str, expected: str = "") -> StepReply:
    return StepReply(action=action, expected=expected)
