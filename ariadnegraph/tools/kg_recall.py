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
from collections.abc import Iterator, Sequence

import networkx as nx

from .. import prompting as p
from ..memory import Episode, Fact, objects, order_by_time, spatial
from .kg_tools import KGReader, changes_by_step

STEPS_RECALLED = 12  # steps a question's range brings back (a longer range: its first ones, the tools page on)
OBSERVATION_CHARS = 160  # the start of a recalled step's text: what the game answered
NAMED_STEP_CHARS = 600  # the text of a step named alone, which a question about "the observation" needs whole
SIMILAR_EPISODES = 3
FACTS_RECALLED = 8
TIMELINE_LINES = 8

# "step 12", "steps 26 to 30", "steps 41-45", "step 3 and step 4"
_STEP_RANGE = re.compile(r"\bsteps?\s+(\d+)(?:\s*(?:-|–|to|through|and)\s*(?:step\s+)?(\d+))?", re.IGNORECASE)
Stay = tuple[str, int, int]  # (room, first step, last step): steps spent in one room running
_QUOTED = re.compile(r"'([^']{2,60})'|\"([^\"]{2,60})\"")
# An event memory dates, named by a quoted thing or place: "first obtaining 'milk'", "last arrive at 'Kitchen'"
_EVENT = re.compile(
    r"\b(first|last)\s+(obtain|gain|tak|pick|enter|arriv|leav|left)\w*(?:\s+(?:up|at|in))?\s+(?:'([^']{2,60})'|\"([^\"]{2,60})\")",
    re.IGNORECASE,
)
_ABOUT_COMMANDS = re.compile(r"\b(?:actions?|commands?)\b", re.IGNORECASE)
_ABOUT_MOVES = re.compile(r"\b(?:moves?|moved|reach\w*|closer|nearer|farther|path)\b", re.IGNORECASE)
_DIRECTIONS = re.compile(r"\b(north|south|east|west|northeast|northwest|southeast|southwest|up|down)\b", re.IGNORECASE)
PLACES_MAPPED = 3  # the most places a question's map lines are worked out from
# A count of steps from it: "2 step(s) later", "3 steps before"
_OFFSET = re.compile(r"\b(\d+)\s+steps?(?:\(s\))?\s+(later|after|afterwards|before|earlier)\b", re.IGNORECASE)


def steps_named(question: str) -> list[int]:
    """The steps a question names, in order, each single step with the one before it (a question about what
    came before or after step k needs k-1 and k), a range whole up to ``STEPS_RECALLED`` steps."""
    steps: list[int] = []
    for match in _STEP_RANGE.finditer(question):
        first = int(match.group(1))
        last = int(match.group(2)) if match.group(2) else first
        first, last = min(first, last), max(first, last)
        wanted = range(max(first - 1, 0), min(last, first + STEPS_RECALLED - 1) + 1)
        steps += [k for k in wanted if k not in steps]
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
    running."""
    found: list[Stay] = []
    for step, room in enumerate(rooms):
        if room is None:
            continue
        if found and found[-1][0] == room and found[-1][2] == step - 1:
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


def items_taken(history: Sequence[Fact], rooms: Sequence[str | None]) -> list[tuple[str, int, str | None]]:
    """Each thing the player came to carry, the first time, in order: (item, step, the room the player was in)."""
    first: dict[str, int] = {}
    for fact in sorted(history, key=lambda f: (f.valid_from, f.id)):
        if fact.relation in objects.PLACEMENTS and fact.object_key == objects.INVENTORY:
            first.setdefault(fact.subject, fact.valid_from)
    return [(item, step, rooms[step] if step < len(rooms) else None) for item, step in first.items()]


def gains(history: Sequence[Fact], name: str) -> list[int]:
    """Each step at which a thing of ``name`` came to be carried (a thing dropped and taken again: each time)."""
    said = name.lower()
    return sorted(
        {
            f.valid_from
            for f in history
            if f.relation in objects.PLACEMENTS and f.object_key == objects.INVENTORY and f.subject.lower() == said
        }
    )


def event_steps(verb: str, name: str, history: Sequence[Fact], visits: Sequence[Stay]) -> list[int]:
    """The steps memory dates an event at, in order: taking a thing (``verb`` obtain, gain, take, pick up), entering a
    place (enter, arrive: the first step of each stay there) or leaving it (the step after each stay, once the player
    was elsewhere)."""
    verb = verb.lower()
    if verb.startswith(("enter", "arriv", "leav", "left")):
        mine = [(first, last) for room, first, last in visits if room.lower() == name.lower()]
        if verb.startswith(("enter", "arriv")):
            return [first for first, _ in mine]
        ends = {first for _, first, _ in visits}
        return [last + 1 for _, last in mine if last + 1 in ends]
    return gains(history, name)


def _dated_events(
    question: str, history: Sequence[Fact], visits: Sequence[Stay]
) -> Iterator[tuple[str, str, str, list[int], str]]:
    """Each event a question dates from that memory holds: (first or last, its verb, the name it quotes, the steps
    memory dates it at, the question's words after it)."""
    for event in _EVENT.finditer(question):
        which, verb, name = event.group(1).lower(), event.group(2), event.group(3) or event.group(4)
        if steps := event_steps(verb, name, history, visits):
            yield which, verb, name, steps, question[event.end() :]


def dated_steps(question: str, kg: KGReader, history: Sequence[Fact], visits: Sequence[Stay]) -> list[str]:
    """The steps a question dates from an event memory holds, counted in code ("After first obtaining 'milk', what was
    the observation 2 step(s) later?" is the step two after the one at which milk was first carried): each the event
    with its step, then the dated step as memory holds it, its text whole."""
    lines = []
    for which, verb, name, steps, rest in _dated_events(question, history, visits):
        anchor = steps[0] if which == "first" else steps[-1]
        for offset in _OFFSET.finditer(rest):
            count, later = int(offset.group(1)), offset.group(2).lower() in ("later", "after", "afterwards")
            step = anchor + count if later else anchor - count
            if 0 <= step <= kg.now and (line := step_recall(kg, history, step, NAMED_STEP_CHARS)) is not None:
                lines.append(p.dated_step_line(count, later, p.event_text(verb, name, which), anchor, line))
    return lines


def event_lines(question: str, history: Sequence[Fact], visits: Sequence[Stay]) -> list[str]:
    """When each event a question names happened, the one it asks for (first or last) first: "you first took 'milk' at
    step 12; every time: steps 12, 40 (2 times)"."""
    events = _dated_events(question, history, visits)
    return [p.event_steps_line(p.event_text(verb, name), which, steps) for which, verb, name, steps, _ in events]


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


def settled(question: str, kg: KGReader, history: Sequence[Fact], visits: Sequence[Stay]) -> list[str]:
    """The lines that settle a question alone: a name it quotes that memory never met (a premise that is false: memory
    can say what never happened), else the steps it dates from an event memory holds."""
    episodes = kg.episodes()
    quoted = dict.fromkeys(quoted_names(question))  # (a name quoted twice: one line)
    if never := [p.no_record_line(name) for name in quoted if _never_met(name, kg, episodes)]:
        return never
    return dated_steps(question, kg, history, visits)


def whereabouts(question: str, kg: KGReader, history: Sequence[Fact], visits: Sequence[Stay]) -> list[str]:
    """What code counts of the player's whereabouts for what a question names (a small model counts steps badly): when
    the events it names happened, where the player was over the steps it names, its stays in a place it quotes, and,
    for a question about actions, the commands played."""
    lines = event_lines(question, history, visits)
    for match in _STEP_RANGE.finditer(question):
        first, last = sorted((int(match.group(1)), int(match.group(2) or match.group(1))))
        last = min(last, kg.now)  # (nothing after the asked step)
        inside = [(room, max(a, first), min(b, last)) for room, a, b in visits if a <= last and b >= first]
        if last > first and inside:
            lines.append(p.route_line(first, last, inside))
    for name in quoted_names(question):
        if mine := [(a, b) for room, a, b in visits if room.lower() == name.lower()]:
            lines.append(p.stays_line(name, mine))
    if _ABOUT_COMMANDS.search(question):
        played = Counter(episode.action for episode in kg.episodes() if episode.action)
        lines.append(p.commands_played_line(played.most_common()))
    return lines


def episode_summary(
    kg: KGReader, history: Sequence[Fact], rooms: Sequence[str | None], visits: Sequence[Stay]
) -> list[str]:
    """What code counts of the whole episode, whatever the question: after which steps the score rose, the steps spent
    in each place, and what the player took where."""
    lines = []
    taken = items_taken(history, rooms)
    if rises := score_rises(kg.episodes()):
        lines.append(p.score_rises_line(rises))
    if visits:
        lines.append(p.time_spent_line(time_spent(visits)))
    if visits or taken:
        lines.append(p.items_taken_line(taken))
    return lines


def map_lines(question: str, kg: KGReader, rooms: Sequence[str | None]) -> list[str]:
    """What memory's map says of the places a question about moves names (quoted, or where the player was at a step it
    names), worked out in code as a small model cannot walk a map in its head: the places by moves from each, the
    moves between them, where directions it lists lead from the first, and the moves made over a range it names."""
    if not _ABOUT_MOVES.search(question):
        return []
    view = kg.view()
    graph = spatial.navigation_graph(view)
    matches = list(_STEP_RANGE.finditer(question))
    ranges = [m for m in matches if m.group(2) and " and " not in m.group(0).lower()]
    steps = [int(k) for m in matches if m not in ranges for k in m.groups() if k is not None]
    named = [rooms[k] for k in steps if k < len(rooms)]  # "steps 5 and 8": two places
    places = list(dict.fromkeys(filter(None, [*named, *quoted_names(question)])))
    places = [place for place in places if kg.key(place) in graph][:PLACES_MAPPED]
    lines = []
    for place in places[:1]:
        away = nx.single_source_shortest_path_length(graph, kg.key(place))
        lines.append(p.moves_from_line(place, [(view.entity_name(key), n) for key, n in away.items() if n > 0]))
    for there in places[1:]:
        path = spatial.shortest_path(view, kg.key(places[0]), kg.key(there))
        lines.append(
            p.moves_between_line(places[0], there, [(d, view.entity_name(k)) for d, k in path or []], path is not None)
        )
    if places and (directions := _DIRECTIONS.findall(question)):
        lines.append(p.directions_line(places[0], _follow(graph, view, kg.key(places[0]), directions)))
    for match in ranges:
        first, last = sorted((int(match.group(1)), int(match.group(2))))
        if first <= kg.now:
            lines.append(p.moves_made_line(first, min(last, kg.now), _moves_made(graph, rooms, kg, first, last)))
    return lines


def _follow(graph: nx.DiGraph, view, start: str, directions: Sequence[str]) -> list[tuple[str, str | None]]:
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


def _moves_made(graph: nx.DiGraph, rooms: Sequence[str | None], kg: KGReader, first: int, last: int) -> dict[str, int]:
    """The moves made over steps first..last, by direction: a step whose room differs from the step before's, the
    direction the map gives that way."""
    made: dict[str, int] = {}
    for step in range(max(first, 1), min(last, kg.now, len(rooms) - 1) + 1):
        before, after = rooms[step - 1], rooms[step]
        if before and after and before != after:
            edge = graph.get_edge_data(kg.key(before), kg.key(after)) or {}
            made[edge.get("direction", "a move")] = made.get(edge.get("direction", "a move"), 0) + 1
    return made


def recall(question: str, kg: KGReader) -> list[str]:
    """The lines memory brings back for ``question``: the steps it names, then what settles it alone (a premise memory
    never met, a step dated from an event) and nothing more, as more lines only give a small model more to copy from;
    else what code works out for what it names (the player's whereabouts, memory's map), then what code counts of the
    whole episode (near the top, where a small model reads them), then the nearest episodes and facts, then the
    timelines of the names it quotes. [] when memory holds nothing."""
    history = kg.history()
    named = [k for k in steps_named(question) if k <= kg.now]
    single = len(named) <= 2  # one step named (with the one before it): its text whole
    lines = [
        line
        for k in named
        if (line := step_recall(kg, history, k, NAMED_STEP_CHARS if single else OBSERVATION_CHARS)) is not None
    ]
    rooms = rooms_by_step(history, kg.now)
    visits = stays(rooms)
    if answer := settled(question, kg, history, visits):
        return lines + answer
    # what the question names, worked out, before what is counted of any episode: a small model reads the top lines
    lines += whereabouts(question, kg, history, visits) + map_lines(question, kg, rooms)
    lines += episode_summary(kg, history, rooms, visits)
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
