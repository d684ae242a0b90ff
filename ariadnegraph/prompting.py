"""How prompts are laid out: the one owner of section names, their order, placeholders and the
formats of the lines inside them.

A role's user prompt is a set of named sections rendered as ``## NAME`` blocks. Models read them as
headings; the offline test double parses them back (:func:`parse_sections`) and decides only from
them. Nodes hand over values — strings, lists, or a placeholder from here — never their own "(none)".

Order for prompt caching. Sections are always rendered in :data:`ORDER`, from what never changes in
an episode to what changes every step, so consecutive calls of one role share the longest possible
prefix and a provider's prompt cache (a llama.cpp slot, OpenAI's cache) serves it.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping, Sequence
from typing import Any

# -- section names -----------------------------------------------------------------------------------
ENVIRONMENT = "ENVIRONMENT"  # what kind of world this is, and its rules (from the env)
GOAL = "GOAL"
COMMANDS = "EXTRA COMMANDS"  # commands the agent understands beyond the game's own (go to)
QUESTION = "QUESTION"
OPTIONS = "OPTIONS"  # the answers a question is chosen among (the task's question: nodes/worked_out.py)
WORKED_OUT = "WORKED OUT"  # what the model worked out of the task (a sum's thing, the smallest quantity left)
TRANSCRIPT = "EPISODE TRANSCRIPT"  # memory QA: the turns an answerer is shown (evals.memqa)
RETRIEVED = "RETRIEVED MEMORIES"  # memory QA: what a memory agent (Mem0, LangMem) retrieved for the question
REFLECTIONS = "REFLECTIONS"
LESSONS = "LESSONS FROM EARLIER TRIALS"  # Reflexion: what failed attempts taught (the same all episode)
FULL_HISTORY = "EPISODE SO FAR"  # every step since the start: it only grows, so it stays in the cached prefix
HISTORY = "RECENT HISTORY"  # the last few steps: the window slides every step
KNOWN_FACTS = "KNOWN FACTS"
MEMORY = "MEMORY"
RECALLED = "WHAT MEMORY RECALLS"  # the ask graph: the steps, episodes and facts a question points at
EPISODES = "RELEVANT EPISODES"
INSIGHTS = "INSIGHTS"  # Simulacra: reflections written on what was observed
EXPERIENCES = "PAST EXPERIENCES"  # RAP: moments of gold runs like this one, with the commands played next
LOCATION = "LOCATION"
INVENTORY = "INVENTORY"
ADMISSIBLE = "VALID COMMANDS"
SPATIAL = "MAP"
EXPLORATION = "UNEXPLORED EXITS"
BELIEF = "BELIEF"
PREVIOUS_BELIEF = "PREVIOUS BELIEF"
NOTES = "WORLD MODEL NOTES"
READINGS = "TEXTS READ"  # what the agent read (a recipe, a note), kept word for word
PROGRESS = "PROGRESS"  # the commands that raised the score so far, with the game's answer
NEXT_STEP = "NEXT STEP"  # the first item not done yet of a list the agent read
WHERE = "WHERE"  # where memory has each thing the next step needs, or where to search for it
CANDIDATES = "CANDIDATES"  # what the controller would play, best first, each with why (the model chooses)
DONE_HERE = "DONE HERE"  # commands already played at this place with this inventory and score, with the game's answer
SUBGOAL = "SUBGOAL"
PLAN = "CURRENT PLAN"
FEEDBACK = "CRITIC FEEDBACK"  # why the critic (or a safety check) rejected the last command or plan
SENT_BACK = "SENT BACK"  # why the actor sent the last step back (a guard's words)
OBSERVATION_BEFORE = "OBSERVATION BEFORE"  # DAVIS's transition: what the agent saw when it chose the last action
LAST_ACTION = "LAST ACTION"
EXPECTED = "EXPECTED OUTCOME"
EXPECTED_REWARD = "EXPECTED REWARD"
OBSERVATION = "OBSERVATION"
ACTUAL = "ACTUAL OUTCOME"
ACTUAL_REWARD = "ACTUAL REWARD"
PROPOSED_ACTION = "PROPOSED ACTION"
# DAVIS's world model (algorithm 2)
ENTITIES = "ENTITIES"  # the memory's entities by kind, to narrow a question to
DATED_FACTS = "DATED FACTS"  # a subgraph's facts in time order, each with its run and step
MONOLOGUE = "INNER MONOLOGUE"  # the questions asked of memory for this transition, with their answers
PREDICTED = "PREDICTED SO FAR"  # the plan's earlier steps with the outcomes predicted for them
NEW_FACTS = "NEW FACTS"  # outdated detection (AriGraph): the facts just extracted

# Stable first, volatile last (see the module docstring).
ORDER = (
    ENVIRONMENT,
    GOAL,
    LESSONS,
    COMMANDS,
    READINGS,
    PROGRESS,
    TRANSCRIPT,
    RETRIEVED,
    RECALLED,  # what memory recalls for a question comes before it, as a transcript does
    QUESTION,
    OPTIONS,
    ENTITIES,
    DATED_FACTS,
    REFLECTIONS,
    FULL_HISTORY,
    KNOWN_FACTS,
    MEMORY,
    EPISODES,
    INSIGHTS,
    EXPERIENCES,
    LOCATION,
    INVENTORY,
    NEXT_STEP,
    WORKED_OUT,
    WHERE,
    CANDIDATES,
    ADMISSIBLE,
    SPATIAL,
    EXPLORATION,
    HISTORY,
    DONE_HERE,
    BELIEF,
    PREVIOUS_BELIEF,
    NOTES,
    SUBGOAL,
    PLAN,
    FEEDBACK,
    SENT_BACK,
    OBSERVATION_BEFORE,
    LAST_ACTION,
    EXPECTED,
    EXPECTED_REWARD,
    OBSERVATION,
    ACTUAL,
    ACTUAL_REWARD,
    PREDICTED,
    PROPOSED_ACTION,
    MONOLOGUE,
    NEW_FACTS,
)
_RANK = {name: i for i, name in enumerate(ORDER)}

# -- placeholders: what a section says when it has nothing -------------------------------------------
NONE = "(none)"
UNKNOWN = "(unknown)"  # the environment does not say (e.g. an inventory it does not list)
NOTHING = "(nothing)"  # known to be empty (e.g. carrying nothing)
EPISODE_START = "(none: the episode starts)"
NOTHING_EXPECTED = "(nothing expected)"
NOTHING_READ = "(nothing read yet)"
NO_PROGRESS = "(no score yet)"
NOT_CHECKED = "(not checked)"
NOT_PREDICTED = "(not predicted)"
PLACEHOLDERS = frozenset(
    {NONE, UNKNOWN, NOTHING, EPISODE_START, NOTHING_EXPECTED, NOTHING_READ, NO_PROGRESS, NOT_CHECKED, NOT_PREDICTED}
)

_HEADING = "## "


def render_sections(sections: Mapping[str, object] | Iterable[tuple[str, object]]) -> str:
    """``## NAME`` blocks in :data:`ORDER` (names not in it last, as given); None values are left
    out, lists become bullet lines, empty values the :data:`NONE` placeholder."""
    items = list(sections.items() if isinstance(sections, Mapping) else sections)
    items.sort(key=lambda item: _RANK.get(item[0], len(ORDER)))
    blocks = []
    for name, value in items:
        if value is None:
            continue
        if isinstance(value, (list, tuple)):
            body = "\n".join(f"- {v}" for v in value) if value else NONE
        else:
            body = str(value).strip() or NONE
        blocks.append(f"{_HEADING}{name}\n{body}")
    return "\n\n".join(blocks)


def parse_sections(text: str) -> dict[str, str]:
    """Inverse of :func:`render_sections`: section name -> body text (later duplicates win)."""
    sections: dict[str, str] = {}
    name: str | None = None
    lines: list[str] = []
    for line in text.splitlines():
        if line.startswith(_HEADING) and line[len(_HEADING) :].strip().isupper():
            if name is not None:
                sections[name] = "\n".join(lines).strip()
            name, lines = line[len(_HEADING) :].strip(), []
        elif name is not None:
            lines.append(line)
    if name is not None:
        sections[name] = "\n".join(lines).strip()
    return sections


def is_placeholder(body: str | None) -> bool:
    return body is None or body.strip() in PLACEHOLDERS or not body.strip()


def bullet_items(body: str | None) -> list[str]:
    """The ``- item`` lines of a section body (a placeholder gives an empty list)."""
    if is_placeholder(body):
        return []
    return [line[2:].strip() for line in (body or "").splitlines() if line.startswith("- ")]


# -- line formats inside sections ------------------------------------------------------------------
def inventory_text(inventory: Iterable[str] | None) -> str:
    """INVENTORY: the items, :data:`NOTHING` when known empty, :data:`UNKNOWN` when the env does not say."""
    if inventory is None:
        return UNKNOWN
    return ", ".join(inventory) or NOTHING


def all_done(last: str) -> str:
    """The NEXT STEP once every item of the lists read is done: what the goal asks last."""
    return f"{last} (every item of the lists read is done; this is what the GOAL asks last)"


def goal_first(first: str) -> str:
    """The NEXT STEP before any text was read: what a goal of several steps asks first."""
    return f"{first} (the GOAL's first step; nothing read yet)"


def goal_next(step: str) -> str:
    """The NEXT STEP before any text was read, once the goal's first steps were carried out (the score rose)."""
    return f"{step} (the GOAL's next step: the steps before it raised the score; nothing read yet)"


def key_opens(step: str, key: str) -> str:
    """The NEXT STEP when a text read said a key held opens a lock not opened yet (a treasure hunt's notes)."""
    return f"{step} (a text read said the {key} opens it, and you hold the {key})"


def said_now(command: str) -> str:
    """The NEXT STEP when the game's latest text says what to play now (Simon says)."""
    return f"{command} (what the game's latest text says to do now)"


def not_listed() -> str:
    """Why a critic that rejects what the game would not take rejected a command (STMA): the words the planner reads."""
    return f"it is not a valid command here (not among {ADMISSIBLE}): choose one of them."


def step_line(heading: str | None, item: str) -> str:
    """A list item as the next step, under its list's heading (``Directions: chop the carrot``)."""
    return f"{heading} {item}" if heading else item


def marked_line(line: str, mark: str | None) -> str:
    """A line of a text read, with its mark when it is an item of a list (``chop the carrot [to do]``)."""
    return f"{line} [{mark}]" if mark else line


def fact_line(subject: str, relation: str, obj: str) -> str:
    """A fact as the roles read it: ``subject, relation, object`` (names may hold commas)."""
    return f"{subject}, {relation}, {obj}"


def plan_line(action: str, expected: str | None) -> str:
    return f"{action} (expect: {expected or 'anything'})"


def plan_lines(plan: Iterable[Mapping[str, Any]] | None) -> list[str]:
    return [plan_line(s["action"], s.get("expected")) for s in plan or []]


START_ACTION = "(start)"  # the action of step 0 in histories


def first_line(text: str, limit: int = 160) -> str:
    line = next((l.strip() for l in (text or "").splitlines() if l.strip()), "")
    return line[:limit]


def clip(text: str, limit: int) -> str:
    """The text on one line (whitespace collapsed), cut to ``limit`` characters with an ellipsis."""
    line = " ".join((text or "").split())
    return line if len(line) <= limit else line[: limit - 1].rstrip() + "…"


def history_lines(records: Iterable[Mapping[str, object]]) -> list[str]:
    """Compact history: one ``action -> first line of the answer`` bullet per step."""
    return [f"{r.get('action') or START_ACTION}{ARROW}{first_line(str(r.get('observation') or ''))}" for r in records]


def step_header(step: object, action: str | None) -> str:
    """The line that opens one step of a transcript: ``[step N] > action``."""
    return f"[step {step}] > {action or START_ACTION}"


_RECORD = re.compile(r"^\[step (\d+)\] > (.*)$", re.MULTILINE)


def parse_step_header(line: str) -> tuple[int, str] | None:
    """Inverse of :func:`step_header`: (step, action), step 0's action ``""``; None for another line."""
    found = _RECORD.fullmatch(line.strip())
    if not found:
        return None
    action = found.group(2).strip()
    return int(found.group(1)), "" if action == START_ACTION else action


FEEDBACK_MARK = "(critic, before this command: "  # a record's feedback line opens with it (STMA's buffer)


def history_transcript(records: Iterable[Mapping[str, object]]) -> str:
    """Whole-text history: ``[step N] > action`` then the whole observation, per step; a record that keeps the
    critic's feedback its command came after has it on a line of its own under the header."""
    blocks = []
    for r in records:
        feedback = f"{FEEDBACK_MARK}{' '.join(str(r['feedback']).split())})\n" if r.get("feedback") else ""
        header = step_header(r.get("step", 0), str(r.get("action") or ""))
        blocks.append(f"{header}\n{feedback}{str(r.get('observation') or '').strip()}")
    return "\n\n".join(blocks) if blocks else NONE


def parse_history_transcript(body: str | None) -> list[tuple[int, str, str]]:
    """Inverse of :func:`history_transcript`: (step, action, observation); step 0's action is ``""``."""
    if is_placeholder(body):
        return []
    text = body or ""
    found = list(_RECORD.finditer(text))
    records = []
    for i, match in enumerate(found):
        end = found[i + 1].start() if i + 1 < len(found) else len(text)
        action = match.group(2).strip()
        observation = text[match.end() : end].strip()
        if observation.startswith(FEEDBACK_MARK):  # the critic's feedback is not part of what the game said
            observation = observation.partition("\n")[2].strip()
        records.append((int(match.group(1)), "" if action == START_ACTION else action, observation))
    return records


def parse_history_line(line: str) -> tuple[str, str] | None:
    """Inverse of one :func:`history_lines` bullet: (action, first line); None for another format."""
    action, arrow, answer = line.partition(ARROW)
    return (action.strip(), answer.strip()) if arrow else None


ARROW = " -> "  # between a command and its answer, a question and its finding, a step and its prediction


def finding_line(question: str, answer: str) -> str:
    """A world-model QA finding as the planner reads it: ``question -> answer`` (the QA prompts ask for it)."""
    return f"{question}{ARROW}{answer}"


def parse_finding_line(line: str) -> tuple[str, str] | None:
    """Inverse of :func:`finding_line`, as models write it (the arrow with or without its spaces): (question,
    answer); None for a line without an arrow."""
    question, arrow, answer = line.partition(ARROW.strip())
    return (question.strip(), answer.strip()) if arrow else None


def tried_line(command: str, answer: str, times: int = 1) -> str:
    """A command already played here, with the game's answer (``open fridge -> It is locked. (x2)``)."""
    return f"{command}{ARROW}{answer}" + (f" (x{times})" if times > 1 else "")


def progress_line(command: str, answer: str, score: float) -> str:
    """A command that raised the score, with the game's answer and the score after it."""
    return f"{command}{ARROW}{answer} (score {score:g})"


def dated_fact_line(subject: str, relation: str, obj: str, valid_from: int, valid_to: int | None) -> str:
    """A fact with its time span (``..., since step 3 until now``), the form DAVIS hands to the model."""
    until = "now" if valid_to is None else f"step {valid_to}"
    return f"{fact_line(subject, relation, obj)} [from step {valid_from} until {until}]"


def exits_line(room: str, directions: Iterable[str]) -> str:
    """A room's exits not walked through yet: ``Kitchen: north, west``."""
    return f"{room}: {', '.join(directions)}"


def parse_exits_line(line: str) -> tuple[str, list[str]] | None:
    """Inverse of :func:`exits_line`: (room, directions); None for a line without the colon."""
    room, colon, directions = line.rpartition(":")
    return (room.strip(), [d.strip() for d in directions.split(",") if d.strip()]) if colon else None


def prediction_line(command: str, expected: str | None, reward: str | None = None) -> str:
    """A planned command with the outcome (and reward) the world model predicted for it."""
    return f"{command}{ARROW}{expected or NOTHING_EXPECTED}" + (f" (reward {reward})" if reward else "")


def prediction_lines(steps: Iterable[Mapping[str, Any]]) -> list[str]:
    """Plan steps ({action, expected, reward}) as :func:`prediction_line` s: the PREDICTED SO FAR section."""
    return [prediction_line(s["action"], s.get("expected"), s.get("reward")) for s in steps]


def episode_line(step: int, text: str) -> str:
    """A past observation retrieved for a role (``step 4: You are in the kitchen...``)."""
    return f"step {step}: {text}"


def memory_step_line(step: int, action: str | None) -> str:
    """A step as the KG tools report it, with the command that led to it (``step 4 > open fridge``)."""
    return f"step {step} > {action or START_ACTION}"


LISTED = 12  # the most stays, places, items or score rises a recall line lists (the rest are counted)


def _listed(parts: Sequence[str], what: str, sep: str = ", ") -> str:
    """The first ``LISTED`` parts, joined, and how many more there are: "a, b, ... and 40 more stays"."""
    more = len(parts) - LISTED
    return sep.join(parts[:LISTED]) + (f"{sep}... and {more} more {what}" if more > 0 else "")


def stay_text(first: int, last: int) -> str:
    """A stretch of steps with its length: "steps 40-41 (2 steps)", "step 7 (1 step)"."""
    steps = last - first + 1
    span = f"step {first}" if first == last else f"steps {first}-{last}"
    return f"{span} ({steps} step{'s' if steps != 1 else ''})"


def stays_line(room: str, stays: Sequence[tuple[int, int]]) -> str:
    """The player's stays in one place, the first ones: "your stays in Kids Room: steps 40-41 (2 steps), step 77 (1
    step)"."""
    return f"your stays in {room}: {_listed([stay_text(a, b) for a, b in stays], 'stays')}"


def route_line(first: int, last: int, stays: Sequence[tuple[str, int, int]]) -> str:
    """Where the player was over a range of steps, stay by stay (the first ones), then the steps in each place, most
    first: "where you were, steps 126-130: Bathroom steps 126-127 (2 steps), Kitchen step 128 (1 step); in all:
    Bathroom 2, Kitchen 1"."""
    totals: dict[str, int] = {}
    for room, a, b in stays:
        totals[room] = totals.get(room, 0) + b - a + 1
    shown = _listed([f"{room} {stay_text(a, b)}" for room, a, b in stays], "stays")
    summed = _listed([f"{room} {n}" for room, n in sorted(totals.items(), key=lambda t: -t[1])], "places")
    return f"where you were, steps {first}-{last}: {shown}; in all: {summed}"


def time_spent_line(spent: Sequence[tuple[str, int, int, int]]) -> str:
    """Steps spent in each place over the episode, most first: "steps spent in each place: Kitchen 40 (6 visits, first
    entered at step 0), ..."."""
    parts = [
        f"{room} {steps} ({visits} visit{'s' if visits != 1 else ''}, first entered at step {first})"
        for room, steps, visits, first in spent
    ]
    return f"steps spent in each place: {_listed(parts, 'places')}"


def no_record_line(name: str) -> str:
    """A name a question quotes that memory never met, and the answer rules' words for a false premise: "'jump rope':
    memory holds no record of it in this episode, so a question about it is answered: not answerable"."""
    return f"'{name}': memory holds no record of it in this episode, so a question about it is answered: not answerable"


def event_text(kind: str, name: str, which: str | None = None) -> str:
    """An event a question dates from, as memory says it (``kind``: took, entered or left): "you first took 'milk'"."""
    return f"you {which + ' ' if which else ''}{kind} '{name}'"


def event_steps_line(event: str, step: int, steps: Sequence[int]) -> str:
    """When an event happened, the time a question asks for first: "you first took 'milk' at step 12; every time: steps
    12, 40 (2 times)"."""
    if len(steps) == 1:
        return f"{event} at step {step} (the only time)"
    every = _listed([str(k) for k in steps], "times")
    return f"{event} at step {step}; every time: steps {every} ({len(steps)} times)"


def dated_step_line(count: int, later: bool, event: str, anchor: int, step_line: str) -> str:
    """A step dated from an event, then the step as memory holds it: "1 step after you first took 'milk' (step 110):
    step 111 > go east | ..."."""
    counted = f"{count} step{'' if count == 1 else 's'} {'after' if later else 'before'}"
    return f"{counted} {event} (step {anchor}): {step_line}"


def commands_played_line(played: Sequence[tuple[str, int]]) -> str:
    """The actions played, the most frequent first, with how many times: "actions you executed, most frequent first: go
    west (31 times), go north (31 times), open fridge (1 time)"."""
    counted = _listed([f"{command} ({n} time{'' if n == 1 else 's'})" for command, n in played], "actions")
    return f"actions you executed, most frequent first: {counted or 'none'}"


def _move_text(direction: str) -> str:
    """A move by its direction ('east'), or by the room it goes to where the game's moves name one ('go to kitchen')."""
    return f"go {direction}" if direction.startswith("to ") else direction


def moves_from_line(place: str, away: Sequence[tuple[str, int]]) -> str:
    """The places memory's map reaches from one, counted by how many moves away: "places you could reach from Kitchen on
    the map you saw: within 1 move: 2 places (Bathroom, Dining Room); within 2 moves: 3 places (adds Gym)"."""
    by_moves: dict[int, list[str]] = {}
    for name, moves in sorted(away, key=lambda t: (t[1], t[0])):
        by_moves.setdefault(moves, []).append(name)
    parts, within = [], 0
    for n, names in by_moves.items():
        within += len(names)
        added = _listed(names, "places")
        counted = f"{within} place{'' if within == 1 else 's'}"
        parts.append(f"within {n} move{'' if n == 1 else 's'}: {counted} ({added if n == 1 else 'adds ' + added})")
    return f"places you could reach from {place} on the map you saw: " + (
        _listed(parts, "distances", "; ") or "none known"
    )


def moves_between_line(start: str, goal: str, path: Sequence[tuple[str, str]], known: bool) -> str:
    """The fewest moves between two places on memory's map: "fewest moves from Kitchen to Gym: 2 (east to Hall, north to
    Gym)"."""
    if not known:
        return f"fewest moves from {start} to {goal}: no way known on the map you saw"
    walked = ", ".join(_move_text(d) if d.startswith("to ") else f"{d} to {room}" for d, room in path)
    return f"fewest moves from {start} to {goal}: {len(path)}" + (f" ({walked})" if walked else "")


def directions_line(start: str, walked: Sequence[tuple[str, str | None]]) -> str:
    """Where directions lead from a place, in turn: "from Kitchen: north leads to Hall, then east leads to Gym"."""
    steps = [f"{d} leads to {room}" if room else f"no exit {d} known" for d, room in walked]
    return f"from {start}: " + ", then ".join(steps)


def moves_made_line(first: int, last: int, made: Mapping[str, int]) -> str:
    """The moves made over a range, by direction: "moves you made, steps 41-45: east 1, north 2 (3 in all)"."""
    counted = ", ".join(f"{_move_text(d)} {n}" for d, n in sorted(made.items(), key=lambda t: -t[1]))
    return f"moves you made, steps {first}-{last}: {counted or 'none'} ({sum(made.values())} in all)"


def score_rises_line(rises: Sequence[tuple[int, float]]) -> str:
    """When the score went up: "your score rose after step 12 (to 1), step 30 (to 2)"."""
    return "your score rose after " + _listed([f"step {step} (to {score:g})" for step, score in rises], "rises")


def items_taken_line(taken: Sequence[tuple[str, int, str | None]]) -> str:
    """What the player came to carry, in order, then by place: "items you took, in order: milk at step 12 in Kitchen,
    ...; by place: Kitchen 3 (business suit, cheese, milk), Bathroom 1 (deodorant)"."""
    shown = _listed([f"{item} at step {step}" + (f" in {room}" if room else "") for item, step, room in taken], "items")
    places: dict[str, list[str]] = {}
    for item, _, room in taken:
        if room:
            places.setdefault(room, []).append(item)
    ranked = sorted(places.items(), key=lambda t: -len(t[1]))
    by_place = _listed([f"{room} {len(items)} ({_listed(items, 'items')})" for room, items in ranked], "places")
    return f"items you took, in order: {shown or 'none'}" + (f"; by place: {by_place}" if by_place else "")


def unknown_tool_line(name: str, names: Iterable[str]) -> str:
    """A KG tool call naming no tool: what the model reads back, with the names it may use."""
    return f"Error: there is no tool called {name!r}; the tools are {', '.join(names)}."


def tool_error_line(error: Exception) -> str:
    """A KG tool call the tool could not answer (an argument missing or of the wrong kind)."""
    detail = " ".join(str(error).split())
    return (
        f"Error: {type(error).__name__}: {detail[:400]}. "
        "Call the tool again with the arguments its description asks for."
    )


def candidate_line(command: str, why: str) -> str:
    """A command the controller proposes, and why: "open fridge (not searched yet: open fridge here)"."""
    return f"{command} ({why})"


# -- WHERE: what the next step needs, as object memory has it (controller/finding.py) -------------------------------
def where_line(thing: str, where: str, searches: Iterable[str] = ()) -> str:
    """ "carrot: not seen yet; search: open fridge (here), go to Backyard (closed barn door)"."""
    listed = list(searches)
    return f"{thing}: {where}" + (f"; search: {', '.join(listed)}" if listed else "")


def of_kind(things: str, kind: str) -> str:
    """ "adult bee (a living thing)": a thing memory saw, named with the kind the step asks for; several ("chameleon
    egg, parrot egg") are each one."""
    article = "an" if kind[:1].lower() in "aeiou" else "a"
    return f"{things} (each {article} {kind})" if ", " in things else f"{things} ({article} {kind})"


def choose_line(kind: str, commands: Iterable[str]) -> str:
    """Which one of a kind the step means, when that is the model's to say: "which animal: yours to choose, one of
    focus on chameleon, focus on egg parrot"."""
    return f"which {kind}: yours to choose, one of {', '.join(commands)}"


def placed_text(
    relation: str, holder: str, room: str | None, here: bool, closed: bool, moves: Iterable[str] = ()
) -> str:
    """ "in the fridge (closed) in Kitchen, here"; elsewhere with the way there (``moves``: its commands): "on the
    counter in Kitchen; the way there: go east, go north"."""
    state = " (closed)" if closed else ""
    place = "" if room is None or room.lower() == holder.lower() else f" in {room}"
    way = ", ".join(moves)
    return f"{relation} the {holder}{state}{place}" + (", here" if here else f"; the way there: {way}" if way else "")


def room_text(here: bool, moves: Iterable[str]) -> str:
    """Where a room the step is done in is: "here", or the way there (``moves``: its commands): "go west, go north"."""
    return "here" if here else ", ".join(moves) or "the way there is not known"


def not_seen_text(last_holder: str | None) -> str:
    return f"not there any more (last seen in the {last_holder})" if last_holder else "not seen yet"


def lead_text(command: str, room: str) -> str:
    """A place to search: "open fridge (Kitchen)"."""
    return f"{command} ({room})"


def search_here_line(commands: Iterable[str]) -> str:
    """What searches here, as the commands to write: "search here: open fridge, go south"."""
    return f"search here: {', '.join(commands)}"


def search_elsewhere_line(rooms: Mapping[str, Iterable[str]]) -> str:
    """Where to search elsewhere, by the move to each room: "search elsewhere: go to Kitchen, then open fridge, open
    oven"."""
    return "search elsewhere: " + "; ".join(f"{move}, then {', '.join(cmds)}" for move, cmds in rooms.items())
