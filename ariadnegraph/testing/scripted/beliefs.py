"""The scripted double's memory side: the summarizer's belief (recipe, notes, rooms, things seen), the facts it
extracts from an observation or a belief, the outdated ones, the spatial summary, and the summaries of a history."""

from __future__ import annotations

import re

from ... import prompting as p
from ...memory.conflicts import STATE_GROUPS
from ...nodes.schemas import (
    Belief,
    Extraction,
    Outdated,
    ParagraphSummary,
    SpatialBelief,
    TrajectorySummary,
    TransitionExtraction,
)
from . import extract as ex
from .reading import MAX_SEEN, OPPOSITE, Sections, failed, lowered
from .sections import (
    facts,
    history_records,
    is_empty,
    items,
    parse_belief,
    render_belief,
    split_semicolons,
)


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
    entries = [f"{t} @ {w}" for t, w in seen.items()][-MAX_SEEN:]
    b["Seen"] = "; ".join(entries)


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
        out.add(here, f"{OPPOSITE.get(direction, direction)} of", there)
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
            if lowered(na) != lowered(a) or lowered(no) == lowered(o):
                continue
            placed = r in ("in", "on", "at") and nr in ("in", "on", "at")
            same_kind = r == nr == "is" and any(lowered(o) in g and lowered(no) in g for g in STATE_GROUPS)
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
        if r.endswith(" of") and r.split()[0] in OPPOSITE:
            taken.setdefault(o, set()).add(r.split()[0])
            taken.setdefault(a, set()).add(OPPOSITE[r.split()[0]])
    exits: dict[str, list[str]] = {}
    for a, r, o in triplets:
        if r == "has exit" and o not in taken.get(a, set()):
            exits.setdefault(a, []).append(o)
    lines += [f"Unexplored exits of {room}: {', '.join(dict.fromkeys(dirs))}." for room, dirs in exits.items()]
    return SpatialBelief(text="\n".join(lines) or "Nothing is known yet.")


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
