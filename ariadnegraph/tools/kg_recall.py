"""What memory recalls for a question before any lookup (the ``ask`` graph's first turn).

AriGraph answers from what its retrieval brings back for the question; a small model asked to find the same
things by writing tool calls finds little (it repeats one lookup, or asks for the current state when the
question is about step 12). So the steps a question names are read here, in code, from the temporal KG: each
step's command, where memory held the player and what it held carried then, what changed, and the start of
the game's text; then the episodes and facts nearest the question in meaning, and the timelines of the names it
quotes. The model answers from these lines, or looks up more with the tools. Everything is read through the
question's :class:`KGReader`, so nothing recorded after its ``as_of`` step is recalled.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Sequence
from typing import NamedTuple

import networkx as nx

from .. import prompting as p
from ..memory import Episode, Fact, objects, order_by_time, spatial
from ..memory.temporal_kg import KGView
from .kg_tools import KGReader, changes_by_step

STEPS_RECALLED = 12  # steps a question's range brings back (a longer range: its first ones, the tools page on)
OBSERVATION_CHARS = 160  # the start of a recalled step's text: what the game answered
NAMED_STEP_CHARS = 600  # the text of a step named alone, which a question about "the observation" needs whole
SIMILAR_EPISODES = 3
FACTS_RECALLED = 8
TIMELINE_LINES = 8

# "step 12", "steps 26 to 30", "steps 41-45", "step 3 and step 4"
_STEP_RANGE = re.compile(r"\bsteps?\s+(\d+)(?:\s*(?:-|–|to|through|and)\s*(?:step\s+)?(\d+))?", re.IGNORECASE)
# a quoted name; an apostrophe inside a word ("the player's") opens and closes none
_QUOTED = re.compile(r"(?<!\w)'([^']{2,60})'(?!\w)|\"([^\"]{2,60})\"")
_QUOTE = r"(?:'([^']{2,60})'|\"([^\"]{2,60})\")"
# An event memory dates, named by a quoted thing or place: "first obtaining 'milk'", "the last time you arrived at
# 'Kitchen'"
_EVENT = re.compile(
    r"\b(first|last)\s+(?:time\s+(?:that\s+)?(?:you\s+)?)?"
    r"(obtain|gain|got|acquir|collect|tak|took|pick|enter|arriv|visit|leav|left)\w*(?:\s+(?:up|at|in|to))?\s+" + _QUOTE,
    re.IGNORECASE,
)
# A count of steps from an event: "2 step(s) later", "3 steps before"
_OFFSET = re.compile(r"\b(\d+)\s+steps?(?:\(s\))?\s+(later|after|afterwards|before|earlier)\b", re.IGNORECASE)
_ABOUT_COMMANDS = re.compile(r"\b(?:actions?|commands?)\b", re.IGNORECASE)
_HOW_OFTEN = re.compile(r"\b(?:most|least)\s+(?:frequent|common|often)|\bhow\s+(?:many\s+times|often)\b", re.IGNORECASE)
_ABOUT_MOVES = re.compile(r"\b(?:moves?|moved|reach\w*|closer|nearer|farther|path)\b", re.IGNORECASE)
_DIRECTION = r"(?:north|south|east|west|northeast|northwest|southeast|southwest|up|down)"
# the directions of a walk a question imagines: "if you moved north, then east"
_WALK = re.compile(rf"\bmoved?\s+({_DIRECTION}(?:\s*,?\s*(?:then|and)?\s*{_DIRECTION})*)\b", re.IGNORECASE)
_FROM_QUOTED = re.compile(r"\bfrom\s+" + _QUOTE, re.IGNORECASE)
PLACES_MAPPED = 3  # the most places a question's map lines are worked out from

Stay = tuple[str, int, int]  # (room, first step, last step): steps spent in one room running


class Event(NamedTuple):
    """An event a question dates from, as memory holds it."""

    which: str  # first or last: the one the question asks for
    kind: str  # took, entered or left (:func:`event_kind`)
    name: str  # the thing or place it quotes
    steps: list[int]  # every step memory dates it at, in order
    at: int  # where the question names it (a count of steps goes with the nearest event)

    @property
    def step(self) -> int:
        return self.steps[0] if self.which == "first" else self.steps[-1]


def _ranges(question: str, now: int | None) -> list[tuple[int, int]]:
    """The ranges of steps a question names, each (first, last); a range from the start to the memory's last step or
    beyond is the whole episode, no range ("Considering only steps 0 to 150: ...", memory QA's horizon, read as_of)."""
    found = []
    for match in _STEP_RANGE.finditer(question):
        first, last = sorted((int(match.group(1)), int(match.group(2) or match.group(1))))
        if not (first == 0 and now is not None and last >= now and last > first):
            found.append((first, last))
    return found


def steps_named(question: str, now: int | None = None) -> list[int]:
    """The steps a question names, in order, each single step with the one before it (a question about what
    came before or after step k needs k-1 and k), a range whole up to ``STEPS_RECALLED`` steps; none after ``now``."""
    steps: list[int] = []
    for first, last in _ranges(question, now):
        wanted = range(max(first - 1, 0), min(last, first + STEPS_RECALLED - 1) + 1)
        steps += [k for k in wanted if k not in steps and (now is None or k <= now)]
    return steps


def quoted_names(question: str) -> list[str]:
    return [a or b for a, b in _QUOTED.findall(question)]


def held_at(history: Sequence[Fact], step: int) -> tuple[str | None, list[str]]:
    """Where memory held the player at ``step`` and what it held carried then."""
    room = next((f.object for f in reversed(player_places(history)) if f.held_at(step)), None)
    carried = sorted(
        f.subject
        for f in history
        if f.held_at(step) and f.relation in objects.PLACEMENTS and f.object_key == objects.INVENTORY
    )
    return room, carried


def player_places(history: Sequence[Fact]) -> list[Fact]:
    """The facts placing the player, oldest recorded first: where two hold at once, the latest recorded wins."""
    placed = (f for f in history if f.subject_key == spatial.PLAYER and f.relation in ("in", "at"))
    return sorted(placed, key=lambda f: (f.valid_from, f.id))


def step_recall(kg: KGReader, history: Sequence[Fact], step: int, text_chars: int) -> str | None:
    """One step as memory holds it, on one line; None when memory holds no episode of it."""
    episode = kg.episode(step)
    if episode is None:
        return None
    room, carried = held_at(history, step)
    parts = [p.memory_step_line(step, episode.action)]
    if room:
        parts.append(f"you were in {room}")
    parts.append(f"carrying: {', '.join(carried) or 'nothing'}")
    became, stopped = changes_by_step(history, step, step)
    began = [p.fact_line(f.subject, f.relation, f.object) for f in became.get(step, [])]
    ended = [p.fact_line(f.subject, f.relation, f.object) for f in stopped.get(step, [])]
    if began:
        parts.append("became true: " + "; ".join(began[:6]))
    if ended:
        parts.append("stopped being true: " + "; ".join(ended[:6]))
    if episode.score is not None:
        parts.append(f"score after it: {episode.score:g}")
    text = " ".join(episode.text.split())
    parts.append(f"game: {text[:text_chars]}{'...' if len(text) > text_chars else ''}")
    return " | ".join(parts)


def rooms_by_step(history: Sequence[Fact], now: int) -> list[str | None]:
    """Where memory held the player at each step 0..``now`` (None where it held nowhere), as ``held_at`` says for each
    step, in one pass over the player's places (the latest recorded wins where two overlap)."""
    rooms: list[str | None] = [None] * (now + 1)
    for fact in player_places(history):
        first, end = fact.held_span()
        for step in range(max(first, 0), min(now + 1, end if end is not None else now + 1)):
            rooms[step] = fact.object
    return rooms


def stays(rooms: Sequence[str | None]) -> list[Stay]:
    """The player's stays, in order: (room, first step, last step), a stay being the steps spent in one room
    running. Steps where memory held the player nowhere, between two in one room, are part of that stay: no move is
    known there, so no new arrival is counted."""
    found: list[Stay] = []
    for step, room in enumerate(rooms):
        if room is None:
            continue
        if found and found[-1][0] == room:  # the stay's last step is the last step memory placed the player
            found[-1] = (room, found[-1][1], step)
        else:
            found.append((room, step, step))
    return found


def time_spent(visits: Sequence[Stay]) -> list[tuple[str, int, int, int]]:
    """Per place: (room, steps spent there, visits, first step there), the most steps first."""
    spent: dict[str, list[int]] = {}
    for room, first, last in visits:
        steps, count, entered = spent.setdefault(room, [0, 0, first])
        spent[room] = [steps + last - first + 1, count + 1, entered]
    rows = [(room, steps, count, entered) for room, (steps, count, entered) in spent.items()]
    return sorted(rows, key=lambda row: (-row[1], row[3]))


def _carried(history: Sequence[Fact]) -> list[Fact]:
    """The facts that held a thing in the player's inventory, in the order memory recorded them."""
    return sorted(
        (f for f in history if f.relation in objects.PLACEMENTS and f.object_key == objects.INVENTORY),
        key=lambda f: (f.valid_from, f.id),
    )


def items_taken(history: Sequence[Fact], rooms: Sequence[str | None]) -> list[tuple[str, int, str | None]]:
    """Each thing the player came to carry, the first time, in order: (item, step, the room the player was in)."""
    first: dict[str, int] = {}
    for fact in _carried(history):
        first.setdefault(fact.subject, fact.valid_from)
    return [(item, step, rooms[step] if step < len(rooms) else None) for item, step in first.items()]


def gains(kg: KGReader, history: Sequence[Fact], name: str) -> list[int]:
    """Each step at which the thing ``name`` names came to be carried, not carried the step before (a thing dropped and
    taken again: each time; one carried from the start was never obtained)."""
    key = kg.key(name)
    carried = [f for f in _carried(history) if f.subject_key == key]
    return sorted(
        {f.valid_from for f in carried if f.valid_from >= 1 and not any(g.held_at(f.valid_from - 1) for g in carried)}
    )


def event_kind(verb: str) -> str:
    """What a question's verb says happened: took (obtain, gain, take, pick up, ...), entered (enter, arrive, visit)
    or left."""
    verb = verb.lower()
    return (
        "entered"
        if verb.startswith(("enter", "arriv", "visit"))
        else "left"
        if verb.startswith(("leav", "left"))
        else "took"
    )


def event_steps(kind: str, name: str, kg: KGReader, history: Sequence[Fact], visits: Sequence[Stay]) -> list[int]:
    """The steps memory dates an event at, in order: taking a thing, entering a place (the first step of each stay
    there) or leaving it (the step after each stay, once the player was somewhere else)."""
    if kind == "took":
        return gains(kg, history, name)
    key = kg.key(name)
    mine = [(first, last) for room, first, last in visits if kg.key(room) == key]
    if kind == "entered":
        return [first for first, _ in mine]
    arrivals = {first for _, first, _ in visits}
    return [last + 1 for _, last in mine if last + 1 in arrivals]


def dated_events(question: str, kg: KGReader, history: Sequence[Fact], visits: Sequence[Stay]) -> list[Event]:
    """Each event a question dates from that memory holds."""
    events = []
    for match in _EVENT.finditer(question):
        which, kind, name = match.group(1).lower(), event_kind(match.group(2)), match.group(3) or match.group(4)
        if steps := event_steps(kind, name, kg, history, visits):
            events.append(Event(which, kind, name, steps, match.start()))
    return events


def dated_steps(question: str, kg: KGReader, history: Sequence[Fact], events: Sequence[Event]) -> list[str]:
    """The steps a question dates from an event memory holds, counted in code ("After first obtaining 'milk', what was
    the observation 2 step(s) later?" is the step two after the one at which milk was first carried; a count goes with
    the nearest event): each the event with its step, then the dated step as memory holds it, its text whole."""
    lines = []
    for offset in _OFFSET.finditer(question) if events else ():
        event = min(events, key=lambda e: abs(e.at - offset.start()))
        count, later = int(offset.group(1)), offset.group(2).lower() in ("later", "after", "afterwards")
        step = event.step + count if later else event.step - count
        if 0 <= step <= kg.now and (line := step_recall(kg, history, step, NAMED_STEP_CHARS)) is not None:
            said = p.event_text(event.kind, event.name, event.which)
            lines.append(p.dated_step_line(count, later, said, event.step, line))
    return lines


def score_rises(episodes: Sequence[Episode]) -> list[tuple[int, float]]:
    """Each step after which the score memory kept went up, with the score then."""
    rises, last = [], None
    for episode in episodes:
        if episode.score is None:
            continue
        if last is not None and episode.score > last:
            rises.append((episode.step, episode.score))
        last = episode.score
    return rises


ANSWER_WORDS = frozenset({"yes", "no", "not answerable"})  # quoted by a question's answer format, not by its premise


def _never_met(name: str, kg: KGReader, episodes: Sequence[Episode]) -> bool:
    """Whether a name a question quotes is a thing or place memory never met: no fact holds it, no observation names
    it, and it is no command played (a quoted action, 'go east', is none of memory's things) nor an answer word."""
    said = " ".join(name.lower().split())
    if said in ANSWER_WORDS or kg.timeline(name):
        return False
    return not any(said in episode.text.lower() or said == (episode.action or "").lower() for episode in episodes)


def settled(
    question: str, kg: KGReader, history: Sequence[Fact], episodes: Sequence[Episode], events: Sequence[Event]
) -> list[str]:
    """The lines that settle a question alone: a name it quotes that memory never met (a premise that is false: memory
    can say what never happened), else the steps it dates from an event memory holds."""
    quoted = dict.fromkeys(quoted_names(question))  # (a name quoted twice: one line)
    if never := [p.no_record_line(name) for name in quoted if _never_met(name, kg, episodes)]:
        return never
    return dated_steps(question, kg, history, events)


def whereabouts(
    question: str, kg: KGReader, episodes: Sequence[Episode], events: Sequence[Event], visits: Sequence[Stay]
) -> list[str]:
    """What code counts for what a question names (a small model counts steps badly): when the events it names
    happened, where the player was over the steps it names, its stays in a place it quotes, and, for a question about
    how often an action was played, the commands played."""
    lines = [p.event_steps_line(p.event_text(e.kind, e.name, e.which), e.step, e.steps) for e in events]
    for first, last in _ranges(question, kg.now):
        last = min(last, kg.now)  # (nothing after the asked step)
        inside = [(room, max(a, first), min(b, last)) for room, a, b in visits if a <= last and b >= first]
        if last > first and inside:
            lines.append(p.route_line(first, last, inside))
    for name in quoted_names(question):
        if mine := [(a, b) for room, a, b in visits if kg.key(room) == kg.key(name)]:
            lines.append(p.stays_line(name, mine))
    if _ABOUT_COMMANDS.search(question) and _HOW_OFTEN.search(question):
        played = Counter(episode.action for episode in episodes if episode.action)
        lines.append(p.commands_played_line(played.most_common()))
    return lines


def episode_summary(
    episodes: Sequence[Episode], history: Sequence[Fact], rooms: Sequence[str | None], visits: Sequence[Stay]
) -> list[str]:
    """What code counts of the whole episode, whatever the question: after which steps the score rose, the steps spent
    in each place, and what the player took where."""
    lines = []
    taken = items_taken(history, rooms)
    if rises := score_rises(episodes):
        lines.append(p.score_rises_line(rises))
    if visits:
        lines.append(p.time_spent_line(time_spent(visits)))
    if visits or taken:
        lines.append(p.items_taken_line(taken))
    return lines


def map_lines(question: str, kg: KGReader, rooms: Sequence[str | None]) -> list[str]:
    """What memory's map says of the places a question about moves names, worked out in code as a small model cannot
    walk a map in its head: from the first (where the player was at a step it names, else the place it moves "from",
    else the first it quotes), the places by moves, the fewest moves to the others, where a walk it imagines leads;
    and the moves made over a range it names. Nothing from a step where memory held the player nowhere on the map."""
    if not _ABOUT_MOVES.search(question):
        return []
    view = kg.view()
    graph = spatial.navigation_graph(view)
    singles = [m for m in _STEP_RANGE.finditer(question) if not m.group(2) or " and " in m.group(0).lower()]
    at_steps = [int(k) for m in singles for k in m.groups() if k is not None]  # "steps 5 and 8": two places
    held = [rooms[k] if k < len(rooms) else None for k in at_steps]
    lines = _moves_made_lines(question, kg, graph, rooms)
    if any(room is None or kg.key(room) not in graph for room in held):
        return lines
    source = [m.group(1) or m.group(2) for m in _FROM_QUOTED.finditer(question)]
    named = [name for name in [*held, *source, *quoted_names(question)] if name and kg.key(name) in graph]
    keyed: dict[str, str] = {}
    for name in named:
        keyed.setdefault(kg.key(name), name)  # one place however often named, first as first named
    places = list(keyed.items())[:PLACES_MAPPED]
    if not places:
        return lines
    (start, origin), others = places[0], places[1:]
    away = nx.single_source_shortest_path_length(graph, start)
    found = [p.moves_from_line(origin, [(view.entity_name(key), n) for key, n in away.items() if n > 0])]
    for key, name in others:
        try:
            path = nx.shortest_path(graph, start, key)
        except nx.NetworkXNoPath:
            found.append(p.moves_between_line(origin, name, [], known=False))
            continue
        moves = [(graph.edges[a, b]["direction"], view.entity_name(b)) for a, b in zip(path, path[1:])]
        found.append(p.moves_between_line(origin, name, moves, known=True))
    if walk := _WALK.search(_without_quotes(question)):
        found.append(
            p.directions_line(origin, _follow(graph, view, start, re.findall(_DIRECTION, walk.group(1), re.I)))
        )
    return found + lines


def _without_quotes(question: str) -> str:
    return _QUOTED.sub("''", question)


def _follow(graph: nx.DiGraph, view: KGView, start: str, directions: Sequence[str]) -> list[tuple[str, str | None]]:
    """Each direction in turn from ``start`` along the map's exits: (direction, the place it leads to; None where memory
    knows no exit that way, and the walk stops)."""
    walked, here = [], start
    for direction in directions:
        there = next((b for _, b, d in graph.out_edges(here, data="direction") if d == direction.lower()), None)
        walked.append((direction.lower(), view.entity_name(there) if there else None))
        if there is None:
            break
        here = there
    return walked


def _moves_made_lines(question: str, kg: KGReader, graph: nx.DiGraph, rooms: Sequence[str | None]) -> list[str]:
    """The moves made over each range a question names, by direction: a step whose room differs from the step
    before's, its direction the command's ('go east', 'east'), else the map's that way ('to kitchen')."""
    lines = []
    for first, last in _ranges(question, kg.now):
        if last == first or first > kg.now:
            continue
        made: Counter[str] = Counter()
        for step in range(max(first, 1), min(last, kg.now, len(rooms) - 1) + 1):
            before, after = rooms[step - 1], rooms[step]
            if before and after and before != after and (episode := kg.episode(step)) is not None:
                said = re.findall(rf"\b{_DIRECTION}\b", episode.action or "", re.IGNORECASE)
                edge = graph.get_edge_data(kg.key(before), kg.key(after)) or {}
                if direction := (said[-1].lower() if said else edge.get("direction")):
                    made[direction] += 1
        lines.append(p.moves_made_line(first, min(last, kg.now), made))
    return lines


def recall(question: str, kg: KGReader) -> list[str]:
    """The lines memory brings back for ``question``: the steps it names, then what settles it alone (a premise memory
    never met, a step dated from an event) and nothing more, as more lines only give a small model more to copy from;
    else what code works out for what it names (the player's whereabouts, memory's map), then what code counts of the
    whole episode (near the top, where a small model reads them), then the nearest episodes and facts, then the
    timelines of the names it quotes. [] when memory holds nothing."""
    history, episodes = kg.history(), kg.episodes()
    named = steps_named(question, kg.now)
    single = len(named) <= 2  # one step named (with the one before it): its text whole
    lines = [
        line
        for k in named
        if (line := step_recall(kg, history, k, NAMED_STEP_CHARS if single else OBSERVATION_CHARS)) is not None
    ]
    rooms = rooms_by_step(history, kg.now)
    visits = stays(rooms)
    events = dated_events(question, kg, history, visits)
    if answer := settled(question, kg, history, episodes, events):
        return lines + answer
    # what the question names, worked out, before what is counted of any episode: a small model reads the top lines
    lines += whereabouts(question, kg, episodes, events, visits) + map_lines(question, kg, rooms)
    lines += episode_summary(episodes, history, rooms, visits)
    shown = set(named)
    for episode in kg.similar_episodes(question, k=SIMILAR_EPISODES):
        if episode.step not in shown:
            line = step_recall(kg, history, episode.step, OBSERVATION_CHARS)
            if line is not None:
                lines.append(line)
                shown.add(episode.step)
    lines += [fact.describe() for fact in order_by_time(kg.semantic_search(question))[:FACTS_RECALLED]]
    for name in quoted_names(question):
        facts = kg.timeline(name)
        # the player's visits to a place named first: "before first leaving 'garden'" is about them
        player = [f for f in facts if f.subject_key == spatial.PLAYER]
        others = [f for f in facts if f.subject_key != spatial.PLAYER]
        lines += [f"{name}: {fact.describe()}" for fact in (player + others[-TIMELINE_LINES:])[: 2 * TIMELINE_LINES]]
    return list(dict.fromkeys(lines))
