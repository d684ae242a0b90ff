"""The lean planner of small models (``plan_choice``, the ``ariadne`` preset): the next command, chosen.

A list read says what to do next, and when one valid command does its next item word for word it is played with
no model call (``follow_lists``), as is the way to what it needs when memory saw that in another room
(``object_memory``: ``walk_to_step``); otherwise the model reads a lean prompt (no map text, no plan: 'go to' and
'explore' are among the choices), the next step worked out in code (NEXT STEP) and what it needs from memory (WHERE:
nodes/finding.py), writes one sentence of reasoning, then the command. What was sent back this step, played twice
here already, or (``object_memory``) changes nothing and was played here once, is not offered.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from dataclasses import replace
from typing import Any

from .. import prompting as p
from ..agent.context import AgentContext
from ..agent.session import Session
from ..agent.state import AgentState
from ..envs.text import EXPLORE, safe_command
from . import finding
from .common import (
    BY_FALLBACK,
    BY_LIST,
    BY_MODEL,
    BY_WALK,
    NextStep,
    ask_structured,
    episode_family,
    explore_moves,
    feedback_section,
    fell_back,
    go_to_choices,
    needed_item,
    next_step,
    offered_commands,
    shown_commands,
    step_command,
    working_memory,
)
from .guards import is_no_op, shown_again
from .prompts import PLAN_CHOICE
from .schemas import Decision, Plan, StepReply

CHOICE_SECTIONS = (
    p.ENVIRONMENT,
    p.GOAL,
    p.LESSONS,
    p.READINGS,
    p.PROGRESS,
    p.LOCATION,
    p.INVENTORY,
    p.DONE_HERE,
    p.HISTORY,
    p.OBSERVATION,
)
# recent steps a choice reads (what was tried here is under DONE HERE, what raised the score under PROGRESS)
CHOICE_HISTORY = 3


def choice_sections(state: AgentState, context: AgentContext, session: Session) -> dict[str, object]:
    """What a ``plan_choice`` planner reads: lean, for a small model (no map text, no plan, no extra-command list:
    'go to' and 'explore' are among the choices), with the next step of a list read worked out in code."""
    window = min(context.switches.history_length or CHOICE_HISTORY, CHOICE_HISTORY)
    preset = replace(context.switches, history_length=window)
    shown = working_memory(state, context, session.past, preset, session.memory)
    return {
        **{name: shown.get(name) for name in CHOICE_SECTIONS},
        p.NEXT_STEP: step.line() if (step := next_step(state, context, session)) else None,
        p.WHERE: where_section(state, context, session),
        **feedback_section(state.get("feedback"), None),
    }


def where_section(state: AgentState, context: AgentContext, session: Session) -> list[str] | None:
    """The WHERE section (``object_memory``): where memory has each thing the next step of a list read needs, or
    where to search for it."""
    if not context.switches.object_memory:
        return None
    item = needed_item(state, context, session)
    if item is None:
        return None
    location = state.get("location")
    family, valid = episode_family(state), list(state.get("admissible") or [])
    found = finding.needs(item, family, session.memory, location, state.get("goal") or "")
    searches = finding.leads(session.memory, location, found, family, valid)

    def playable(command: str) -> bool:
        return not valid or family.ground(command, valid) is not None

    def reach(room: str) -> str | None:
        return family.reach(room, valid)

    choices = finding.kind_choices(item, found, family, valid)
    return finding.where_lines(found, searches, session.memory, location, playable, reach, choices) or None


LIST_MARK = re.compile(r"\s*(?:\[[^\]]*\]|\([^)]*\))\s*$")  # "(here)", "[to do]": what a small model copies along
FOLLOWED = "followed in code: "  # the reasoning of a plan step a list read gave, no model asked


def _followed(step: NextStep, command: str, why: str = "", by: str = BY_LIST) -> tuple[Plan, dict[str, Any], str]:
    """A plan of the one command that does the next step (or walks toward it: ``why``), by code."""
    shown = p.step_line(step.heading, step.text)
    reasoning = f"{FOLLOWED}{shown}: {why}" if why else f"{FOLLOWED}{shown}"
    plan = Plan(subgoal=f"{p.NEXT_STEP}: {shown}", reasoning=reasoning, steps=[StepReply(action=command)])
    return plan, {}, by


def goal_step_here(state: AgentState, step: NextStep, session: Session, admissible: Sequence[str]) -> str | None:
    """The valid command that does the goal's next step here (on a thing as the game names it in its holder, too:
    ``finding.in_holder_command``); None when none does, or when the step is done in another room (a thing of its
    name lying here is likely not the one the task means: test-conductivity#68)."""
    family, location = episode_family(state), state.get("location")
    found = finding.needs(step.text, family, session.memory, location, state.get("goal") or "")
    if finding.done_elsewhere(found, location, state.get("inventory") or []):
        return None
    return step_command(state, step.text, admissible) or finding.in_holder_command(step.text, found, family, admissible)


def walk_to_step(
    state: AgentState,
    step: NextStep,
    session: Session,
    admissible: Sequence[str],
    tried: Mapping[str, tuple[int, str]],
) -> tuple[Plan, dict[str, Any], str] | None:
    """The first move toward the room where memory has what the next step needs (a lock a note named, an ingredient
    seen in the garden), as a plan played by code (``BY_WALK``); None when nothing it needs is elsewhere. A command
    played twice from this very situation (``tried``) is not played again, loop guard or not (two needs in two rooms
    would otherwise walk the agent between them)."""
    family = episode_family(state)
    fresh = [command for command in admissible if tried.get(command, (0, ""))[0] < 2]
    found = finding.needs(step.text, family, session.memory, state.get("location"), state.get("goal") or "")
    walk = finding.way_to_seen(found, family, fresh) or finding.way_to_told(found, session.memory, family, fresh)
    return _followed(step, walk[0], why=walk[1], by=BY_WALK) if walk else None


def choose_command(state: AgentState, context: AgentContext, session: Session) -> tuple[Plan, dict[str, Any], str]:
    """``plan_choice``: a sentence of reasoning, then the next command, written out (after a thought, a small
    model writes the command it means; forced into an enum of commands, or asked for a number in a long list,
    it lands on another one); a plan of that one step, which the actor plays when it is a valid command or
    sends back when not, and who chose it (common.BY_*). The known places to go to are offered beside the valid
    commands."""
    # not offered: what was sent back this step, and what was played twice already from here
    avoid = set(state.get("avoid") or [])
    tried = session.past.tried_here(state)
    if context.switches.loop_guard:
        avoid |= {c for c, (n, _) in tried.items() if n >= 2}
    offered = offered_commands(state, context, session.memory)
    step = next_step(state, context, session) if context.switches.follow_lists else None
    unavoided = [c for c in offered if c not in avoid]
    if step and step.word_for_word and (command := step_command(state, step.text, unavoided)):
        # what the game says now or the list read says what to do, and one valid command does it word for word: no
        # model asked (even a command that changes nothing, played before: Simon says 'examine pea' twice)
        return _followed(step, command)
    if context.switches.object_memory:  # what changes nothing is played once (nodes/guards.no_op_again)
        family = episode_family(state)
        avoid |= {c for c in tried if is_no_op(c, family)}
        avoid |= {c for c in session.past.played() if shown_again(c)}
    admissible = [c for c in offered if c not in avoid] or offered
    if step and not step.word_for_word and (command := goal_step_here(state, step, session, admissible)):
        return _followed(step, command)  # nothing read yet: the goal's step, unless it changes nothing again
    if step and context.switches.object_memory and (walk := walk_to_step(state, step, session, admissible, tried)):
        return walk  # what the step needs, memory saw in another room: the way there is code's, not the model's
    memory = session.memory
    places = go_to_choices(state, memory) if context.switches.go_to and admissible else []
    if context.switches.explore and admissible and EXPLORE not in avoid and explore_moves(state, memory):
        places.append(EXPLORE)
    fallback = safe_command(state.get("admissible") or [])
    chosen, update = ask_structured(
        context,
        node="planner",
        schema=Decision,
        system=PLAN_CHOICE,
        sections={**choice_sections(state, context, session), p.ADMISSIBLE: shown_commands(state, admissible) + places},
        fallback=Decision(reasoning="no usable reply: a command that changes nothing", action=fallback),
        step=state.get("step", 0),
    )
    written = LIST_MARK.sub("", chosen.action)  # a small model copies an item with its mark ("chop the tuna [to do]")
    command = episode_family(state).ground(written, [*admissible, *places]) or written
    if command != chosen.action:  # the diagnostics judge what the model wrote, not what grounding made of it
        update = {**update, "written": chosen.action}
    by = BY_FALLBACK if fell_back(update, "planner") else BY_MODEL
    return Plan(subgoal=chosen.reasoning, reasoning=chosen.reasoning, steps=[StepReply(action=command)]), update, by
