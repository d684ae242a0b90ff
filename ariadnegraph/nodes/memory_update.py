"""Memory update: store this step's observation and facts in the temporal KG (closing outdated ones).

Idempotent per step; a run resumed after a crash between this write and its checkpoint has its memory
rewound to the checkpoint's ``memory_step`` first (agent/session.py), so the step is recorded once.

In worlds whose env names the player's place (NetHack's dungeon levels, Crafter's regions of its
grid; ``GameFamily.tracks_position``), and in any world that names its rooms under ``env_map``, the place and
the way between places are written here from the env, not left to extraction: the player is in the
place, a move that changed place joins the two places in its direction, and (``env_map``) the valid
'go DIRECTION' commands are the place's exits (AriGraph's NetHack agent kept the level map as memory,
section 4.2).
"""

from __future__ import annotations

from typing import Any

from langgraph.runtime import Runtime

from ..agent.context import AgentContext
from ..agent.session import Session
from ..agent.state import AgentState
from ..envs.families import Observed
from ..envs.text import direction_of_command, inline_lists
from ..memory import WorldMemory
from ..memory.objects import departed
from ..memory.spatial import PLAYER, current_location
from ..vocabulary import READING_COMMANDS
from .common import episode_family


def place_facts(
    memory: WorldMemory, state: AgentState, env_map: bool = False, player_from_env: bool = False
) -> list[tuple[str, str, str]]:
    """The player's place, and the way from the last place when a move changed it, where the env names the room and
    the extractor writes no place of the player (``player_from_env``: open relations) or the map is the env's
    (``env_map``), or the family names a position; with ``env_map`` also the exits the valid 'go' commands show."""
    place = state.get("location")
    named = env_map or player_from_env or episode_family(state).tracks_position
    if not place or not state.get("env") or not named:
        return []
    facts = [(PLAYER, "in", place)]
    if env_map:
        exits = dict.fromkeys(
            d for c in state.get("admissible") or [] if c.lower().startswith("go ") and (d := direction_of_command(c))
        )
        facts += [(place, "has exit", direction) for direction in exits]
    before = current_location(memory.current())
    direction = direction_of_command(state.get("last_action"))
    if before and before != place and direction:
        facts.append((place, f"{direction} of", before))
    return facts


def left_place(memory: WorldMemory, state: AgentState) -> list[tuple[str, str, str]]:
    """The fact of where the player was, when the env's room says it moved."""
    before, place = current_location(memory.current()), state.get("location")
    return [(PLAYER, "in", before)] if before and place and memory.key(place) != before else []


def perceived(memory: WorldMemory, state: AgentState) -> tuple[list[tuple[str, str, str]], list[int]]:
    """What the family's parser reads off this step's observation (``object_memory``), and the facts it shows have
    ended (a thing no longer where memory placed it)."""
    seen = Observed(
        text=state.get("observation") or "",
        command=state.get("last_action"),
        valid=state.get("admissible") or [],
        location=state.get("location"),
        inventory=state.get("inventory"),
    )
    sighting = episode_family(state).perceive(seen)
    ended = departed(memory.current(), sighting.facts, sighting.shown, memory.key)
    return list(sighting.facts), [f.id for f in ended]


def memory_update(state: AgentState, runtime: Runtime[AgentContext], session: Session) -> dict[str, Any]:
    memory, step = session.memory, state.get("step", 0)
    if step not in memory.episodes:
        # triplets as the relation retriever passed them on (their shape checked where the reply came in:
        # nodes/schemas.py)
        triplets = [(t[0], t[1], t[2]) for t in state.get("extraction", [])]
        switches = runtime.context.switches
        triplets += place_facts(memory, state, switches.env_map, player_from_env=switches.open_relations)
        outdated: list[int | tuple[str, str, str]] = [(t[0], t[1], t[2]) for t in state.get("outdated", [])]
        if switches.open_relations:  # the room left: no outdated detection compares a fact code wrote
            outdated += left_place(memory, state)
        if switches.object_memory:
            seen, ended = perceived(memory, state)
            triplets += seen
            outdated += ended
        memory.observe(
            step,
            state.get("observation", ""),
            triplets,
            outdated,
            action=state.get("last_action"),
            invalidate=runtime.context.switches.invalidate,
            by_rules=runtime.context.switches.conflict_rules,
            score=state.get("score"),
        )
    update: dict[str, Any] = {"extraction": [], "outdated": [], "memory_step": step}
    reading = text_read(state) if runtime.context.switches.pin_readings else None
    if reading and reading not in (state.get("readings") or []):
        update["readings"] = [reading]
    return update


READING_MIN_CHARS = 100  # shorter answers to 'examine' describe a thing ("The shelf is wobbly."), not a text


START_READING = "(start)"  # what a reading of the start's instructions is filed under, as RECENT HISTORY names it


def text_read(state: AgentState) -> str | None:
    """The text the last command read (a recipe, a note), as "command: text", when it was one; its lines kept
    (a list of directions reads as a list), blank lines and rulers dropped. At the start, the lists of instructions
    the game states on one line (TWX's Simon says: "take these actions in order: a, b, c"), one item a line: they
    are said once and must be followed in order long after the observation that said them has scrolled away."""
    action, observation = (state.get("last_action") or "").lower(), state.get("observation") or ""
    if not action:
        listed = inline_lists(observation) if episode_family(state).lists_at_start else []
        return f"{START_READING}:\n" + "\n".join(listed) if listed else None
    lines = [" ".join(line.split()) for line in observation.splitlines()]
    lines = [line for line in lines if line and line.strip("-=_*")]
    if not action.startswith(READING_COMMANDS) or not lines:
        return None
    # a text the family declares changes each time it is read (its next instruction) is kept however short it is
    if len(" ".join(lines)) >= READING_MIN_CHARS or episode_family(state).rereads(action):
        return f"{state.get('last_action')}:\n" + "\n".join(lines)
    return None
