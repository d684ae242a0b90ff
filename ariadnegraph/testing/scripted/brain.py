"""The scripted model's decisions, one pure function per role, on parsed section dicts.

Each function reads only the sections a node rendered (see :mod:`ariadnegraph.prompting`) and
returns the role's schema. State that must survive between steps travels in the belief the
summarizer writes (recipe, notes, rooms visited, things seen), exactly like a real model's belief.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any, cast

from ... import prompting as p
from ... import vocabulary
from ...envs.families import textworld_cooking as cooking
from ...envs.text import go_to_target
from ...memory.conflicts import STATE_GROUPS
from ...nodes.schemas import (
    ActionChoice,
    Belief,
    CommandReply,
    Critique,
    Decision,
    EntityFocus,
    Expansion,
    ExplorationCheck,
    Extraction,
    Outdated,
    ParagraphSummary,
    Plan,
    ReasonedCritique,
    SafetyVerdict,
    SpatialBelief,
    StepReply,
    TrajectorySummary,
    TransitionExtraction,
    TransitionPrediction,
)
from . import extract as ex
from .sections import (
    exits_table,
    facts,
    history,
    history_records,
    is_empty,
    items,
    notes,
    parse_belief,
    render_belief,
    seen_map,
    split_semicolons,
)

Sections = Mapping[str, str]

FAILURE = re.compile(
    r"can't|cannot|not a verb|only understood|you need|is locked|isn't|aren't|doesn't seem|no such|"
    r"not open|nothing happens|that's already|you don't|what do you want|not something|is closed|"
    r"too many|you have to|first\b",
    re.IGNORECASE,
)
APPLIANCES = cooking.APPLIANCES
COOK_VERBS = {state: verb for verb, state in cooking.COOK_VERBS.items()}
CUT_VERBS = {state: verb for verb, state in cooking.CUT_VERBS.items()}
_MAX_SEEN = 40
_NO_EXITS = "no unexplored exit is known"
_NOTHING = "nothing better known"
_LOCKABLE = re.compile(r"locker|chest|safe|coffer|box|case|cabinet|door", re.IGNORECASE)
_OPPOSITE = vocabulary.OPPOSITE
_SPATIAL_EXITS = re.compile(r"^Unexplored exits of (.+?): (.+?)\.?$", re.MULTILINE)
# the double's exploration order (a policy, not vocabulary)
_DIR_ORDER = ("north", "east", "south", "west", "northeast", "northwest", "southeast", "southwest", "up", "down")


def _lower(s: str) -> str:
    return " ".join(s.lower().split())


def failed(text: str | None) -> bool:
    """Whether a game answer reports that the command did nothing."""
    first = (text or "").strip().split("\n")[0]
    return bool(FAILURE.search(first)) and not first.startswith("-=")


# =================================================================================================
# Summarizer


def believe(s: Sections) -> Belief:
    """Update the belief: recipe and notes read, rooms visited, where things were seen, progress."""
    b = parse_belief(s.get(p.PREVIOUS_BELIEF))
    obs = s.get(p.OBSERVATION, "")
    action = "" if is_empty(s.get(p.LAST_ACTION)) else (s.get(p.LAST_ACTION) or "").strip()
    verb = action.split()[0].lower() if action else ""
    location = b.get("Location") or None
    recipe = ex.parse_recipe(obs)
    if recipe:
        b["Recipe"] = "; ".join(recipe[0])
        b["Directions"] = "; ".join(recipe[1])
    elif verb in ("", "examine", "read", "x"):
        new = [f"{k} unlocks {l}" for k, _, l in ex.parse_notes(obs)]
        if new:
            known = split_semicolons(b.get("Notes"))
            b["Notes"] = "; ".join(dict.fromkeys(known + new))
        if verb and "note" in action.lower() and not failed(obs):
            read = split_semicolons(b.get("Notes read"))
            b["Notes read"] = "; ".join(dict.fromkeys(read + [action.split(" ", 1)[1].strip()]))
    if not action and not b.get("Task"):
        goal = s.get(p.GOAL, "").strip()
        if goal and not is_empty(goal):
            b["Task"] = goal
    room = ex.room_header(obs)
    direction = ex.direction_of_command(action)
    if room and location and direction and room != location:
        # the moves and each room's exits, as STMA's summarizer prompt asks ("record all the direction movement")
        moves = [m for m in split_semicolons(b.get("Moves")) if not m.startswith(f"{location} -{direction}->")]
        b["Moves"] = "; ".join(moves + [f"{location} -{direction}-> {room}"])
    if room:
        location = room
        b["Location"] = room
        shown = [o for a, r, o in ex.extract(obs, action, room).triplets if r == "has exit" and a == room]
        if shown:
            known = [e for e in split_semicolons(b.get("Exits")) if not e.startswith(f"{room}:")]
            b["Exits"] = "; ".join(known + [f"{room}: {', '.join(dict.fromkeys(shown))}"])
        visited = [v for v in split_semicolons(b.get("Visited", "").replace(",", ";")) if v != room]
        b["Visited"] = ", ".join(visited + [room])
    extracted = ex.extract(obs, action, location)
    _update_seen(b, extracted, room, location)
    done = split_semicolons(b.get("Done"))
    for m in ex._COOK_DONE.finditer(obs):
        done.append(f"{ex.clean_name(m.group(2)).lower()} {m.group(1).lower()}")
    for m in ex._CUT_DONE.finditer(obs):
        done.append(f"{ex.clean_name(m.group(2)).lower()} {ex._cut_state(m.group(1))}")
    for m in re.finditer(r"You unlock the (.+?)\.", obs):
        unlocked = split_semicolons(b.get("Unlocked"))
        b["Unlocked"] = "; ".join(dict.fromkeys(unlocked + [ex.clean_name(m.group(1)).lower()]))
    if "Adding the meal" in obs:
        done.append("meal prepared")
    b["Done"] = "; ".join(dict.fromkeys(done))
    if action and failed(obs):
        b["Last failure"] = f"{action} ({obs.strip().splitlines()[0][:80]})"
    elif action:
        b.pop("Last failure", None)
    return Belief(belief=render_belief(b))


def _update_seen(b: dict[str, str], extracted: ex.Extracted, room: str | None, location: str | None) -> None:
    seen: dict[str, str] = {}
    for entry in split_semicolons(b.get("Seen")):
        thing, sep, where = entry.partition(" @ ")
        if sep:
            seen[thing.strip()] = where.strip()
    if room:  # a full room description: forget what was seen here before, it is listed again
        seen = {t: w for t, w in seen.items() if re.sub(r"\s*\(.*\)$", "", w) != room}
    holders: dict[str, tuple[str, str]] = {}
    for subj, rel, obj in extracted.triplets:
        if rel in ("in", "on"):
            holders[subj] = (rel, obj)
    here = room or location
    for subj, (rel, obj) in holders.items():
        if subj == ex.PLAYER:
            continue
        if obj == ex.INVENTORY:
            seen.pop(subj, None)
            continue
        if not here:
            continue
        if obj == here:
            seen[subj] = here
        else:
            seen[subj] = f"{here} ({rel} {obj})"
    entries = [f"{t} @ {w}" for t, w in seen.items()][-_MAX_SEEN:]
    b["Seen"] = "; ".join(entries)


# =================================================================================================
# Relation retriever


def belief_moves(b: dict[str, str]) -> list[tuple[str, str, str]]:
    """``Moves: A -north-> B; ...`` of a belief -> (A, direction, B)."""
    found = []
    for move in split_semicolons(b.get("Moves")):
        m = re.match(r"^(.+?) -(\w+)-> (.+)$", move)
        if m:
            found.append((m.group(1).strip(), m.group(2), m.group(3).strip()))
    return found


def belief_exits(b: dict[str, str]) -> dict[str, list[str]]:
    """``Exits: Kitchen: north, south; ...`` of a belief -> room -> directions."""
    return {
        room.strip(): [d.strip() for d in dirs.split(",") if d.strip()]
        for entry in split_semicolons(b.get("Exits"))
        for room, sep, dirs in [entry.rpartition(":")]
        if sep
    }


def extraction_from_belief(b: dict[str, str]) -> Extraction:
    """Triplets a belief states (STMA's relation retriever reads the belief alone): where the player and the things
    seen are, the moves made and the exits seen, the recipe."""
    out = ex.Extracted()
    if b.get("Location"):
        out.add(ex.PLAYER, "in", b["Location"])
    for here, direction, there in belief_moves(b):
        out.add(there, f"{direction} of", here)
        out.add(here, f"{_OPPOSITE.get(direction, direction)} of", there)
    for room, directions in belief_exits(b).items():
        for direction in directions:
            out.add(room, "has exit", direction)
    for entry in split_semicolons(b.get("Seen")):
        thing, sep, where = entry.partition(" @ ")
        holder = re.match(r"^(.+?) \((in|on) (.+)\)$", where.strip())
        if sep and holder:
            out.add(thing.strip(), holder.group(2), holder.group(3))
        elif sep:
            out.add(thing.strip(), "in", where.strip())
    for ingredient in split_semicolons(b.get("Recipe")):
        out.add(ex.RECIPE, "requires", ingredient)
    for ingredient, states in ex.recipe_needs(split_semicolons(b.get("Directions"))).items():
        for state in states:
            out.add(ingredient, "needs", state)
    return Extraction(triplets=[[a, r, o] for a, r, o in out.triplets], outdated=[])


def transition_extraction(s: Sections) -> TransitionExtraction:
    """DAVIS's relation retriever: the transition told in a line (the command and the first line of its answer), then
    the facts of the observation by the rule-based extractor."""
    action = "" if is_empty(s.get(p.LAST_ACTION)) else (s.get(p.LAST_ACTION) or "")
    answer = (s.get(p.OBSERVATION) or "").strip().split("\n")[0]
    facts = extraction(s)
    summary = f"'{action}': {answer}" if action else f"The episode starts: {answer}"
    return TransitionExtraction(transition=summary, triplets=facts.triplets, outdated=facts.outdated)


def extraction(s: Sections) -> Extraction:
    """Triplets of the observation by the rule-based extractor (:mod:`.extract`); given no observation, of the
    belief."""
    b = parse_belief(s.get(p.BELIEF))
    if p.OBSERVATION not in s:
        return extraction_from_belief(b)
    location = s.get(p.LOCATION)
    action = s.get(p.LAST_ACTION) or ""
    if is_empty(action):
        action = ""
    inventory = items(s.get(p.INVENTORY))
    recipe = split_semicolons(b.get("Recipe"))
    out = ex.extract(s.get(p.OBSERVATION, ""), action, None if is_empty(location) else location, inventory, recipe)
    outdated = list(out.outdated) + no_longer_carried(s.get(p.INVENTORY), inventory, facts(s.get(p.KNOWN_FACTS)))
    return Extraction(
        triplets=[[a, r, o] for a, r, o in out.triplets],
        outdated=[[a, r, o] for a, r, o in dict.fromkeys(outdated)],
    )


def outdated(s: Sections) -> Outdated:
    """Known facts a new one replaces: the same thing placed elsewhere, or another state of the same kind."""
    new = facts(s.get(p.NEW_FACTS))
    found = []
    for a, r, o in facts(s.get(p.KNOWN_FACTS)):
        for na, nr, no in new:
            if _lower(na) != _lower(a) or _lower(no) == _lower(o):
                continue
            placed = r in ("in", "on", "at") and nr in ("in", "on", "at")
            same_kind = r == nr == "is" and any(_lower(o) in g and _lower(no) in g for g in STATE_GROUPS)
            if placed or same_kind:
                found.append([a, r, o])
                break
    return Outdated(outdated=found)


def no_longer_carried(listing: str | None, inventory: list[str], known: list[ex.Triplet]) -> list[ex.Triplet]:
    """Known ``(x, in, inventory)`` facts whose ``x`` the game's inventory listing no longer shows (eaten,
    used up by 'prepare meal', dropped unseen). Only when the listing is known: '(unknown)' says nothing."""
    if listing is None or listing.strip().lower() in ("(unknown)", "unknown", ""):
        return []
    # The listing names states ("a raw red potato"); facts name the thing ("red potato").
    held = {ex.split_state(ex.clean_name(item))[0].lower() for item in inventory}
    return [
        (a, r, o)
        for a, r, o in known
        if r == "in" and o.lower() == ex.INVENTORY and ex.clean_name(a).lower() not in held
    ]


# =================================================================================================
# Aggregator


def spatial(s: Sections) -> SpatialBelief:
    """Memory facts grouped by room, with the connections between rooms."""
    triplets = facts(s.get(p.MEMORY))
    rooms = {o for a, r, o in triplets if a == ex.PLAYER and r == "in"} | {
        a for a, r, o in triplets if r.endswith(" of")
    }
    rooms |= {o for a, r, o in triplets if r.endswith(" of")}
    lines = []
    for a, r, o in triplets:
        if r.endswith(" of") and r.split()[0] in ex.DIRECTIONS:
            lines.append(f"{a} is {r} {o}.")
    for room in sorted(rooms):
        inside = [a for a, r, o in triplets if r in ("in", "on") and o == room and a != ex.PLAYER]
        if inside:
            lines.append(f"In {room}: {', '.join(inside)}.")
    holders = [(a, r, o) for a, r, o in triplets if r in ("in", "on") and o not in rooms]
    for a, r, o in holders:
        lines.append(f"{a} is {r} {o}.")
    here = [o for a, r, o in triplets if a == ex.PLAYER and r == "in"]
    if here:
        lines.append(f"The player is in {here[-1]}.")
    taken: dict[str, set[str]] = {}
    for a, r, o in triplets:
        if r.endswith(" of") and r.split()[0] in _OPPOSITE:
            taken.setdefault(o, set()).add(r.split()[0])
            taken.setdefault(a, set()).add(_OPPOSITE[r.split()[0]])
    exits: dict[str, list[str]] = {}
    for a, r, o in triplets:
        if r == "has exit" and o not in taken.get(a, set()):
            exits.setdefault(a, []).append(o)
    lines += [f"Unexplored exits of {room}: {', '.join(dict.fromkeys(dirs))}." for room, dirs in exits.items()]
    return SpatialBelief(text="\n".join(lines) or "Nothing is known yet.")


# =================================================================================================
# Shared reading of the situation


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
        self.adm_lower = {_lower(a): a for a in self.admissible}
        self.location = None if is_empty(s.get(p.LOCATION)) else (s.get(p.LOCATION) or "").strip()
        if not self.location:
            self.location = self.belief.get("Location") or None
        self.inventory = [i for i in items(s.get(p.INVENTORY))]
        self.memory = facts(s.get(p.MEMORY))
        self.unexplored = exits_table(s.get(p.EXPLORATION)) or {
            m.group(1).strip(): [d.strip().lower() for d in m.group(2).split(",") if d.strip()]
            for m in _SPATIAL_EXITS.finditer(s.get(p.SPATIAL) or "")
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
                self.key_notes[_lower(key)] = _lower(lock)
        self.unlocked = {_lower(x) for x in split_semicolons(self.belief.get("Unlocked"))}
        self.notes_read = {_lower(x) for x in split_semicolons(self.belief.get("Notes read"))}
        self.links, exits = _history_map(self.records or [(a, o) for a, o in self.history])
        if not self.records and not self.history:  # no history shown (STMA): the moves the belief keeps
            for here, direction, there in belief_moves(self.belief):
                self.links.setdefault(here, {})[direction] = there
                self.links.setdefault(there, {}).setdefault(_OPPOSITE.get(direction, direction), here)
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
            if _lower(here) == _lower(room):
                return moves
            for direction, there in self.links.get(here, {}).items():
                if there not in seen:
                    seen.add(there)
                    frontier.append((there, moves + [_step(f"go {direction}", there)]))
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
        low = _lower(text)
        for room in sorted(self.rooms, key=len, reverse=True):
            if _lower(room) == low or re.search(rf"\b{re.escape(_lower(room))}\b", low):
                return room
        return None

    def carried(self) -> dict[str, list[str]]:
        """Inventory: base name (lower) -> state words."""
        found = {}
        for item in self.inventory:
            name, states = ex.split_state(_lower(item))
            found[name] = states
        return found

    def states(self, name: str) -> list[str]:
        """State words of an ingredient: the inventory's when carried, else what memory holds ("a roasted
        banana" seen on the counter is already roasted before it is taken)."""
        carried = self.carried()
        key = _lower(name)
        if key in carried:
            return carried[key]
        return [o for a, r, o in self.memory if r == "is" and _lower(a) == key and o in ex.STATE_WORDS]

    def has(self, name: str) -> bool:
        return _lower(name) in self.carried()

    def admissible_like(self, pattern: str) -> list[str]:
        rx = re.compile(pattern, re.IGNORECASE)
        return [a for a in self.admissible if rx.fullmatch(_lower(a))]

    def locate(self, thing: str) -> str | None:
        """The room where ``thing`` was last seen: belief, QA notes, then memory facts."""
        t = _lower(thing)
        if self.seen.get(t):
            return self.room_named(self.seen[t]) or self.seen[t]
        for question, answer in self.notes:
            if question.lower().startswith("where is") and _lower(question[8:].strip(" ?")) == t:
                if "unknown" in answer.lower() or "inventory" in answer.lower():
                    continue
                room = self.room_named(answer.split("(")[0]) or self.room_named(answer)
                if room:
                    return room
        holder = {_lower(a): o for a, r, o in self.memory if r in ("in", "on", "at")}
        seen = set()
        while t in holder and t not in seen:
            seen.add(t)
            t = _lower(holder[t])
            room = self.room_named(t)
            if room and _lower(room) == t:
                return room
        return None

    def recent_failures(self) -> set[str]:
        return {_lower(a) for a, answer in self.history[-3:] if failed(answer)}

    def last_failure(self) -> str | None:
        value = self.belief.get("Last failure")
        return _lower(value.split(" (")[0]) if value else None


def summarize_paragraphs(s: Sections) -> ParagraphSummary:
    """AriGraph's summary baseline: the double's belief, rewritten the same way (it writes no paragraphs)."""
    return ParagraphSummary(belief=believe(s).belief)


def summarize_trajectory(s: Sections) -> TrajectorySummary:
    """STMA's summarizer: the belief written afresh from the history buffer alone (what fell out of it is gone)."""
    return TrajectorySummary(belief=recall(s.get(p.GOAL, ""), history_records(s.get(p.HISTORY))))


def recall(goal: str, records: list[tuple[str, str]]) -> str:
    """The belief a summarizer would have written over these history records."""
    text = ""
    for action, observation in records:
        text = believe(
            {
                p.GOAL: goal,
                p.PREVIOUS_BELIEF: text,
                p.LAST_ACTION: action or "(none: the episode starts)",
                p.OBSERVATION: observation,
            }
        ).belief
    return text


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
            links.setdefault(room, {}).setdefault(_OPPOSITE.get(direction, direction), here)
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
    recipe = list(dict.fromkeys(o for a, r, o in triplets if _lower(a) == ex.RECIPE and r == "requires"))
    needs: dict[str, list[str]] = {}
    for a, r, o in triplets:
        if r == "needs" and _lower(a) in {_lower(x) for x in recipe}:
            needs.setdefault(_lower(a), [])
            if o not in needs[_lower(a)]:
                needs[_lower(a)].append(o)
    return recipe, needs


def ex_fact(text: str) -> tuple[str, str, str] | None:
    """``"recipe requires carrot"`` / ``"carrot needs sliced"`` -> triplet."""
    m = re.match(r"^\s*(.+?) (requires|needs) (.+?)\s*$", text)
    return (m.group(1), m.group(2), m.group(3)) if m else None


# =================================================================================================
# Planner


def _step(action: str, expected: str = "") -> StepReply:
    return StepReply(action=action, expected=expected)


def plan(s: Sections) -> Plan:
    """The next actions: cooking games follow the recipe, others hunt keys, lockers and the goal object.
    Every step already known goes in (a take/cut/cook sequence, a route and the exit to explore)."""
    sit = Situation(s)
    if _is_cooking(sit):
        subgoal, reasoning, steps = _cooking(sit)
    else:
        subgoal, reasoning, steps = _hunt(sit)
    if not steps:
        subgoal, reasoning, steps = _explore(sit, "explore")
        if reasoning in (_NO_EXITS, _NOTHING) and not _is_cooking(sit):
            subgoal, reasoning, steps = _try_lockers(sit) if _try_lockers(sit)[2] else (subgoal, reasoning, steps)
    last_failure = sit.last_failure()
    avoid = sit.recent_failures() | ({last_failure} if last_failure else set())
    if _lower(steps[0].action) in avoid:
        alt = _explore(sit, "try something else", avoid)
        if alt[2] and _lower(alt[2][0].action) not in avoid:
            subgoal, reasoning, steps = alt
    if not sit.go_to:
        steps = _without_go_to(sit, steps)
    imagined = _imagined(s)
    if imagined is not None:  # DAVIS's rollout asks for one step at a time: the next of the plan from the real state
        steps = steps[imagined : imagined + 1] or [_step(vocabulary.LOOK)]
    return Plan(subgoal=subgoal, reasoning=reasoning, steps=steps)


def _imagined(s: Sections) -> int | None:
    """How many steps a rollout's PREDICTED SO FAR lists (None: the prompt asks for a whole plan). The double does
    not play the imagined outcomes forward: it plans from the real state and hands out that plan's steps in turn."""
    if p.PREDICTED not in s:
        return None
    text = (s.get(p.PREDICTED) or "").strip()
    return 0 if text in ("", p.NONE) else len([line for line in text.splitlines() if line.strip()])


def decide(s: Sections) -> Decision:
    """The plan's first step, with the plan's reasoning (the double always writes a valid command)."""
    chosen = choose(s)
    return Decision(reasoning=chosen.reasoning or "the next step of the plan", action=chosen.action)


def _without_go_to(sit: Situation, steps: list[StepReply]) -> list[StepReply]:
    """No 'go to' for this preset: walk the route the history shows, else explore."""
    out: list[StepReply] = []
    for step in steps:
        place = go_to_target(_lower(step.action))  # the agent's own 'go to' grammar (envs.text)
        if place is None:
            out.append(step)
            continue
        route = sit.route(sit.room_named(place) or place)
        if route is None:
            break
        out += route
    if not out:
        fallback = _explore(_exits_here_only(sit), "explore")[2]
        out = [st for st in fallback if not _lower(st.action).startswith("go to ")] or [_step(_any_move(sit), "-=")]
    return out


def _exits_here_only(sit: Situation) -> Situation:
    """Without a map, only this room's unexplored exits can be taken."""
    sit.unexplored = {r: d for r, d in sit.unexplored.items() if r == sit.location}
    return sit


def _any_move(sit: Situation) -> str:
    recent = [_lower(a) for a, _ in sit.history]
    moves = [a for a in sit.admissible if _lower(a).startswith("go ")]
    moves.sort(
        key=lambda a: (recent.count(_lower(a)), -max([i for i, r in enumerate(recent) if r == _lower(a)], default=-1))
    )
    return (
        moves[0]
        if moves
        else next((a for a in sit.admissible if _lower(a) == "look"), sit.admissible[0] if sit.admissible else "look")
    )


def _is_cooking(sit: Situation) -> bool:
    text = f"{sit.goal} {sit.s.get(p.OBSERVATION, '')[:300]}".lower()
    return bool(sit.recipe) or "meal" in text or "recipe" in text or "cookbook" in text


def _cooking(sit: Situation) -> tuple[str, str, list[StepReply]]:
    carried = sit.carried()
    if "meal" in carried and sit.adm_lower.get("eat meal"):
        return "eat the meal", "the meal is ready", [_step("eat meal", "You eat the meal")]
    if not sit.recipe:
        for cmd in ("examine cookbook", "read cookbook"):
            if cmd in sit.adm_lower:
                return "read the recipe", "the cookbook is here", [_step(sit.adm_lower[cmd], "Ingredients")]
        if "cookbook" in carried:
            return "read the recipe", "I carry the cookbook", [_step("examine cookbook", "Ingredients")]
        where = sit.locate("cookbook") or sit.room_named("kitchen")
        if where and where != sit.location:
            return "read the recipe", f"the cookbook should be in {where}", [_step(f"go to {where}", where)]
        return _explore(sit, "find the kitchen and its cookbook")
    # ingredient states
    pending: list[tuple[str, str, str]] = []  # (ingredient, kind, state)
    missing = []
    for ing in sit.recipe:
        key = _lower(ing)
        if key not in carried:
            missing.append(ing)
            continue
        states = carried[key]
        for need in sit.needs.get(key, []):
            if need in states:
                continue
            if need in CUT_VERBS and not any(st in CUT_VERBS for st in states):
                pending.append((ing, "cut", need))
            elif need in APPLIANCES and not _cooked(states):
                if f"{key} {need}" not in sit.done:
                    pending.append((ing, "cook", need))
    needs_knife = any(n in CUT_VERBS for ns in sit.needs.values() for n in ns) and "knife" not in carried
    cuts_left = any(k == "cut" for _, k, _ in pending) or any(
        n in CUT_VERBS for m in missing for n in sit.needs.get(_lower(m), [])
    )
    # 1-3. everything that can be done here, in order: take, knife, cut, cook, then prepare and eat
    steps = _here_sequence(sit, carried, missing, needs_knife, cuts_left)
    if steps:
        return "use what is here", "these steps need nothing that is elsewhere", steps
    if not missing and not pending:
        kitchen = sit.room_named("kitchen")
        if kitchen and kitchen != sit.location:
            return "prepare the meal", "the meal is prepared in the kitchen", [_step(f"go to {kitchen}", kitchen)]
    # 4. go where things are, and do there what is already known
    targets: list[tuple[str, str, StepReply | None]] = []
    for ing in missing:
        room = sit.locate(ing)
        if room:
            targets.append((f"fetch the {ing}", room, _step(_take_command(sit, ing), ing)))
    for ing, kind, need in pending:
        if kind == "cook":
            room = sit.locate(APPLIANCES[need]) or sit.locate(APPLIANCES[need].upper())
            if room is None and APPLIANCES[need] != "bbq":
                room = sit.room_named("kitchen")
            if room:
                targets.append(
                    (
                        f"{need} the {ing} with the {APPLIANCES[need]}",
                        room,
                        _step(f"cook {_lower(ing)} with {APPLIANCES[need]}", f"You {need} the {ing}"),
                    )
                )
    if needs_knife and (cuts_left or pending):
        room = sit.locate("knife") or None
        if room:
            targets.append(("fetch the knife", room, _step(_take_command(sit, "knife"), "knife")))
    for subgoal, room, _ in targets:
        if room != sit.location:
            then = [t for _, r, t in targets if r == room and t is not None]
            last = not missing and all(_lower(t.action).startswith("cook ") for t in then) and len(then) == len(pending)
            if last and then and _lower(room) == _lower(sit.room_named("kitchen") or ""):
                then += [_step("prepare meal", "meal"), _step("eat meal", "You eat the meal")]
            return subgoal, f"it is in {room}", [_step(f"go to {room}", room), *then]
    # 5. look inside closed containers here for missing ingredients
    if missing:
        opens = [
            a
            for a in sit.admissible_like(r"open .+")
            if not re.search(r"door|gate|hatch|oven|stove|bbq", a, re.IGNORECASE)
        ]
        if opens:
            return "search containers", f"{', '.join(missing)} not found yet", [_step(opens[0], "You open")]
    return _explore(sit, f"find {', '.join(missing) or 'what is missing'}")


def _cooked(states: list[str]) -> bool:
    """Cooked once already (fried, roasted, grilled, or burned): cooking it again burns it."""
    return any(st in APPLIANCES or st == "burned" for st in states)


def _take_command(sit: Situation, thing: str) -> str:
    """'take X from Y' when the belief saw X in or on Y, else 'take X'."""
    for entry in split_semicolons(sit.belief.get("Seen")):
        name, _, where = entry.partition(" @ ")
        m = re.search(r"\((?:in|on) (.+)\)$", where)
        if _lower(name) == _lower(thing) and m:
            return f"take {thing} from {m.group(1)}"
    return f"take {thing}"


def _appliance_here(sit: Situation, appliance: str) -> bool:
    word = _lower(appliance)
    if sit.location and _lower(sit.seen.get(word, "")).startswith(_lower(sit.location)):
        return True
    return any(re.search(rf"\b{re.escape(word)}\b", _lower(a)) for a in sit.admissible)


def _here_sequence(
    sit: Situation, carried: dict[str, list[str]], missing: list[str], needs_knife: bool, cuts_left: bool
) -> list[StepReply]:
    steps: list[StepReply] = []
    have = set(carried)
    for ing in missing:
        takes = sit.admissible_like(rf"take {re.escape(_lower(ing))}( from .+)?")
        if takes:
            steps.append(_step(takes[0], ing))
            have.add(_lower(ing))
    knives = sit.admissible_like(r"take knife( from .+)?")
    if needs_knife and cuts_left and knives:
        steps.append(_step(knives[0], "knife"))
        have.add("knife")
    ready = all(_lower(ing) in have for ing in sit.recipe)
    for ing in sit.recipe:
        key = _lower(ing)
        if key not in have:
            continue
        states = sit.states(key)
        for need in sit.needs.get(key, []):
            if need in states:
                continue
            if need in CUT_VERBS:
                if any(st in CUT_VERBS for st in states):
                    continue
                if "knife" not in have:
                    ready = False
                    break
                exact = sit.admissible_like(rf"{CUT_VERBS[need]} {re.escape(key)} with .+")
                steps.append(
                    _step(exact[0] if exact else f"{CUT_VERBS[need]} {key} with knife", f"You {CUT_VERBS[need]} the")
                )
            elif need in APPLIANCES:
                if _cooked(states) or f"{key} {need}" in sit.done:
                    continue
                if not _appliance_here(sit, APPLIANCES[need]):
                    ready = False
                    break
                exact = sit.admissible_like(rf"cook {re.escape(key)} with {APPLIANCES[need]}")
                steps.append(
                    _step(exact[0] if exact else f"cook {key} with {APPLIANCES[need]}", f"You {need} the {ing}")
                )
    kitchen = sit.room_named("kitchen")
    if ready and sit.recipe and ("prepare meal" in sit.adm_lower or (kitchen and kitchen == sit.location)):
        steps += [_step("prepare meal", "meal"), _step("eat meal", "You eat the meal")]
    return steps


def _hunt(sit: Situation) -> tuple[str, str, list[StepReply]]:
    goal_words = [
        w
        for w in re.findall(r"[a-z]+", sit.goal.lower())
        if w not in ("find", "the", "a", "an", "and", "take", "get", "it")
    ]
    for word in goal_words:
        takes = sit.admissible_like(rf"take (?:\w+ )*{re.escape(word)}( from .+)?")
        if takes:
            return f"take the {word}", "it is what the goal asks for", [_step(takes[0], word)]
    unlocks = sit.admissible_like(r"unlock .+ with .+")
    if unlocks:
        target = cast(re.Match[str], re.match(r"unlock (.+?) with .+", _lower(unlocks[0]))).group(1)
        return (
            "unlock",
            "a key I carry fits here",
            [_step(unlocks[0], "You unlock"), _step(f"open {target}", "You open")],
        )
    opens = [a for a in sit.admissible_like(r"open .+") if not re.search(r"door|gate", a, re.IGNORECASE)]
    if opens:
        return "open", "see what is inside", [_step(opens[0], "You open")]
    takes = sit.admissible_like(r"take (?:\w+ )*key(?: \w+)*( from .+)?") + sit.admissible_like(
        r"take (?:\w+ )*(?:coin|treasure)( from .+)?"
    )
    if takes:
        reads = [
            c
            for c in sit.admissible_like(r"(?:examine|read) (?:\w+ )*note(?: \w+)*")
            if _lower(c.split(" ", 1)[1]) not in sit.notes_read
        ]
        then = [_step(c, "") for c in reads[:1]]
        held = set(sit.carried()) | {_lower(re.sub(r"^take (.+?)( from .+)?$", r"\1", _lower(takes[0])))}
        if not then and not any(
            sit.locate(lock) for key, lock in sit.key_notes.items() if key in held
        ):  # no lead: explore on
            then = [st for st in _explore(sit, "explore")[2] if _lower(st.action).startswith("go ")][:2]
        return "take the key", "keys open lockers", [_step(takes[0], "You take"), *then]
    for cmd in sit.admissible_like(r"(?:examine|read) (?:\w+ )*note(?: \w+)*"):
        target = _lower(cmd.split(" ", 1)[1])
        if target not in sit.notes_read:
            return "read the note", "notes tell where to go", [_step(cmd, "")]
    carried = sit.carried()
    for key, lock in sit.key_notes.items():
        if key in carried and lock not in sit.unlocked:
            room = sit.locate(lock)
            if room and room != sit.location:
                return (
                    f"unlock the {lock}",
                    f"the note says {key} unlocks it; it is in {room}",
                    [
                        _step(f"go to {room}", room),
                        _step(f"unlock {lock} with {key}", "You unlock"),
                        _step(f"open {lock}", "You open"),
                    ],
                )
    return [], "", []  # type: ignore[return-value]


def _try_lockers(sit: Situation) -> tuple[str, str, list[StepReply]]:
    """Map explored, keys in hand with no known lock: visit the locked lockers, best name match first."""
    carried = sit.carried()
    keys = [
        k
        for k in carried
        if re.search(r"\bkey\b", k) and (k not in sit.key_notes or sit.locate(sit.key_notes[k]) is None)
    ]
    lockers = [t for t in sit.seen if _LOCKABLE.search(t) and t not in sit.unlocked and not re.search(r"\bkey\b", t)]
    if keys and lockers:

        def affinity(lock: str) -> int:
            return -max(len((set(k.split()) - {"key"}) & set(lock.split())) for k in keys)

        for lock in sorted(lockers, key=affinity):
            room = sit.locate(lock)
            if room and room != sit.location:
                return f"try the keys on the {lock}", f"it is still locked, in {room}", [_step(f"go to {room}", room)]
    return "", "", []


def _explore(sit: Situation, why: str, avoid: set[str] | None = None) -> tuple[str, str, list[StepReply]]:
    """Open a closed door here, take an unexplored exit here, else go to the latest room with one."""
    avoid = avoid or set()
    doors = [a for a in sit.admissible_like(r"open .*(?:door|gate|hatch)") if _lower(a) not in avoid]
    if doors:
        return why, "a closed door may hide new rooms", [_step(doors[0], "You open")]
    here = sit.unexplored.get(sit.location or "", []) if sit.location else []
    for direction in sorted(here, key=lambda d: _DIR_ORDER.index(d) if d in _DIR_ORDER else 99):
        cmd = sit.adm_lower.get(f"go {direction}")
        if cmd and _lower(cmd) not in avoid:
            return why, f"the {direction} exit of {sit.location} is unexplored", [_step(cmd, "-=")]
    order = list(reversed(sit.visited)) + [r for r in sit.unexplored if r not in sit.visited]
    for room in order:
        if room != sit.location and sit.unexplored.get(room):
            first = sorted(sit.unexplored[room], key=lambda d: _DIR_ORDER.index(d) if d in _DIR_ORDER else 99)[0]
            return why, f"{room} has unexplored exits", [_step(f"go to {room}", room), _step(f"go {first}", "-=")]
    # No map knowledge: a move not tried recently, else anything admissible.
    recent = [_lower(a) for a, _ in sit.history]
    moves = [a for a in sit.admissible if _lower(a).startswith("go ") and _lower(a) not in avoid]
    moves.sort(
        key=lambda a: (recent.count(_lower(a)), -max([i for i, r in enumerate(recent) if r == _lower(a)], default=-1))
    )
    if moves:
        return why, _NO_EXITS, [_step(moves[0], "-=")]
    fallback = next((a for a in sit.admissible if _lower(a) == "look"), sit.admissible[0] if sit.admissible else "look")
    return why, _NOTHING, [_step(fallback, "")]


# =================================================================================================
# Critic


def reasoned_critique(s: Sections) -> ReasonedCritique:
    """STMA's critic: the double's verdict, with the reasoning it rests on (the command's validity)."""
    verdict = critique(s)
    valid = (s.get(p.PROPOSED_ACTION) or "").strip().lower() in {c.lower() for c in items(s.get(p.ADMISSIBLE))}
    reasoning = f"The proposed action is {'among' if valid else 'not among'} the valid commands."
    return ReasonedCritique(reasoning=reasoning, **verdict.model_dump())


def critique(s: Sections) -> Critique:
    """Outcome check (refusals, missing expected phrase) and a check of the proposed action."""
    sit = Situation(s)
    expected = s.get(p.EXPECTED, "")
    actual = s.get(p.ACTUAL, "")
    outcome = True
    feedback = []
    if not is_empty(expected) and not is_empty(actual):
        if failed(actual) or _lower(expected) not in _lower(actual) and not _loose_match(expected, actual):
            outcome = False
        if not outcome:
            feedback.append(
                f"'{s.get(p.LAST_ACTION)}' did not give '{expected}': "
                f"{actual.strip().splitlines()[0][:100] if actual.strip() else 'nothing'}."
            )
    proposed = _lower(s.get(p.PROPOSED_ACTION, ""))
    approved = True
    if not proposed:  # this preset's critic only judges outcomes
        return Critique(outcome_matches=outcome, action_approved=True, feedback=" ".join(feedback))
    go_to = re.match(r"^(?:go|walk|head|return) (?:back )?to (?:the )?(.+)$", proposed)
    if go_to:
        if sit.visited and not sit.room_named(go_to.group(1)):
            approved = False
            feedback.append(f"{go_to.group(1)} is not a known location; explore instead.")
    elif sit.admissible and proposed not in sit.adm_lower:
        approved = False
        best = _best_overlap(proposed, sit.admissible) or next(
            (a for a in sit.admissible if _lower(a).startswith("go ")), None
        )
        feedback.append(f"'{proposed}' is not admissible" + (f"; try '{best}'." if best else "."))
    else:
        m = re.match(r"cook (.+?) with", proposed)
        cooked = m and (
            any(d.startswith(_lower(m.group(1)) + " ") and d.split()[-1] in APPLIANCES for d in sit.done)
            or _cooked(sit.states(m.group(1)))
        )
        if cooked:
            approved = False
            feedback.append(f"the {cast(re.Match[str], m).group(1)} is already cooked; cooking it again burns it.")
        if sit.last_failure() == proposed and _lower(s.get(p.LAST_ACTION, "")) == proposed:
            approved = False
            feedback.append(f"'{proposed}' just failed; do something else.")
    return Critique(outcome_matches=outcome, action_approved=approved, feedback=" ".join(feedback))


def _loose_match(expected: str, actual: str) -> bool:
    """The expected phrase's content words all appear (``"You fried the X"`` vs ``"You fried the X."``)."""
    words = [w for w in re.findall(r"[a-z0-9]+", expected.lower()) if w not in ("you", "the", "a", "an")]
    low = actual.lower()
    return bool(words) and all(w in low for w in words)


# =================================================================================================
# Actor fallback


def _words(text: str) -> set[str]:
    return set(re.findall(r"[a-z0-9]+", text.lower()))


def _best_overlap(proposed: str, admissible: list[str]) -> str | None:
    want = _words(proposed)
    best, score = None, 0.0
    for cand in admissible:
        got = _words(cand)
        if not got:
            continue
        overlap = len(want & got) / len(want | got)
        if overlap > score:
            best, score = cand, overlap
    return best


def choose(s: Sections) -> ActionChoice:
    """The admissible command that carries out the proposed action; with no proposal (ReAct without a
    planner) it reasons like the planner over the same sections, then grounds the first step."""
    admissible = items(s.get(p.ADMISSIBLE))
    proposed = s.get(p.PROPOSED_ACTION, "")
    reasoning = f"closest admissible command to '{proposed}'"
    if is_empty(proposed):
        decided = plan(s)
        proposed, reasoning = decided.steps[0].action, f"{decided.subgoal}: {decided.reasoning}"
    exact = next((a for a in admissible if _lower(a) == _lower(proposed)), None)
    best = (
        exact
        or _best_overlap(proposed, admissible)
        or next((a for a in admissible if a.lower() == "look"), admissible[0] if admissible else "look")
    )
    return ActionChoice(reasoning=reasoning, action=best)


# =================================================================================================
# Exploration check (AriGraph)


def exploration_check(s: Sections) -> ExplorationCheck:
    """Exploring is needed when there is no subgoal yet, or it is about finding or reaching something unseen."""
    subgoal = s.get(p.SUBGOAL, "")
    text = f"{subgoal} {s.get(p.PLAN, '')}".lower()
    return ExplorationCheck(
        explore=is_empty(subgoal) or bool(re.search(r"explor|find|search|locat|look for|recover|something else", text))
    )


# =================================================================================================
# DAVIS: world model (algorithm 2), its graph QA, and the actor's expansion


def predict(s: Sections) -> TransitionPrediction:
    """First ask memory what the command did before; then predict the planner's expectation, or failing
    that the answer memory gave."""
    action = s.get(p.PROPOSED_ACTION, "").strip()
    monologue = items(s.get(p.MONOLOGUE))
    if not monologue:
        return TransitionPrediction(question=f"what happened after '{action}'?")
    expected = s.get(p.EXPECTED, "")
    guess = expected if not is_empty(expected) else monologue[-1].rpartition(" -> ")[2]
    return TransitionPrediction(observation=guess[:120], reward="0")


_LOST = re.compile(r"\byou (?:have )?(?:lost|died|die)\b|\bgame over\b", re.IGNORECASE)


def safety(s: Sections) -> SafetyVerdict:
    """DAVIS's safety check: a trajectory is not safe when a step is predicted to lose the game."""
    for line in items(s.get(p.PREDICTED)):
        command, _, outcome = line.partition(p.ARROW)
        if _LOST.search(outcome):
            return SafetyVerdict(safe=False, reason=f"'{command.strip()}' is predicted to lose the game")
    return SafetyVerdict(safe=True)


def focus(s: Sections) -> EntityFocus:
    """The kinds a question asks about (places for 'where'), and the listed entities it names, longest first."""
    question = _lower(s.get(p.QUESTION, ""))
    listed = [
        name.strip() for line in items(s.get(p.ENTITIES)) for name in line.partition(":")[2].split(",") if name.strip()
    ]
    named = sorted(
        {n for n in listed if re.search(rf"\b{re.escape(n.lower())}\b", question)}, key=lambda n: (-len(n), n)
    )
    kinds: list[str] = ["place", "thing"] if "where" in question else ["thing", "state"]
    return EntityFocus.model_validate({"types": kinds, "entities": named[:2]})


def expand(s: Sections) -> Expansion:
    """A step of several parts ('a and b', 'a, then b') as one command each; taking from a closed container
    opens it first; otherwise the closest valid command."""
    admissible = items(s.get(p.ADMISSIBLE))
    proposed = s.get(p.PROPOSED_ACTION, "")
    parts = [part.strip() for part in re.split(r",? then |,? and |; ", proposed) if part.strip()] or [proposed]
    commands = [CommandReply(action=choose({**s, p.PROPOSED_ACTION: parts[0]}).action)]
    commands += [CommandReply(action=part) for part in parts[1:]]
    taken = re.match(r"take (.+) from (.+)", commands[0].action, re.IGNORECASE)
    if taken and f"open {taken.group(2).lower()}" in {_lower(a) for a in admissible}:
        commands.insert(0, CommandReply(action=f"open {taken.group(2)}", expected="You open"))
    return Expansion(commands=commands)
