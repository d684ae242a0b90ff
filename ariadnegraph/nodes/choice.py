"""The lean planner of small models (``plan_choice``, the ``ariadne`` preset): the next command, chosen.

A list read says what to do next, and when one valid command does its next item word for word it is played with
no model call (``follow_lists``); otherwise the model reads a lean prompt (no map text, no plan: 'go to' and
'explore' are among the choices), the next step worked out in code (NEXT STEP) and what it needs from memory (WHERE:
nodes/finding.py), writes one sentence of reasoning, then the command. What was sent back this step, played twice
here already, or (``object_memory``) changes nothing and was played here once, is not offered.
"""

from __future__ import annotations

import re
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
    ask_structured,
    episode_family,
    explore_moves,
    fell_back,
    go_to_choices,
    goal_step_left,
    needed_item,
    next_step,
    offered_commands,
    played_before,
    said_or_listed,
    tried_here,
    working_memory,
)
from .guards import is_no_op, shown_again
from .prompts import PLAN_CHOICE
from .schemas import Decision, Plan, PlanStep

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
CHOICE_HISTORY = (
    3  # recent steps a choice reads (what was tried here is under DONE HERE, what raised the score under PROGRESS)
)


def choice_sections(state: AgentState, context: AgentContext, session: Session) -> dict[str, object]:
    """What a ``plan_choice`` planner reads: lean, for a small model (no map text, no plan, no extra-command list:
    'go to' and 'explore' are among the choices), with the next step of a list read worked out in code."""
    window = min(context.switches.history_length or CHOICE_HISTORY, CHOICE_HISTORY)
    shown = working_memory(state, context, session.run, replace(context.switches, history_length=window))
    return {
        **{name: shown.get(name) for name in CHOICE_SECTIONS},
        p.NEXT_STEP: next_step(state, context, session.run),
        p.WHERE: where_section(state, context, session),
        p.FEEDBACK: state.get("feedback") or None,
    }


def where_section(state: AgentState, context: AgentContext, session: Session) -> list[str] | None:
    """The WHERE section (``object_memory``): where memory has each thing the next step of a list read needs, or
    where to search for it."""
    if not context.switches.object_memory:
        return None
    item = needed_item(state, context, session.run)
    if item is None:
        return None
    location = state.get("location")
    family, valid = episode_family(state), list(state.get("admissible") or [])
    found = finding.needs(item, family, session.memory, location)
    searches = finding.leads(session.memory, location)

    def playable(command: str) -> bool:
        return not valid or family.ground(command, valid) is not None

    return finding.where_lines(found, searches, session.memory, location, playable) or None


LIST_MARK = re.compile(r"\s*(?:\[[^\]]*\]|\([^)]*\))\s*$")  # "(here)", "[to do]": what a small model copies along
FOLLOWED = "followed in code: "  # the reasoning of a plan step a list read gave, no model asked


def item_command(state: AgentState, item: str, admissible: list[str]) -> str | None:
    """The one valid command that does a list item read word for word, as written or as the game family words it;
    else the one that takes the tool the item needs and the inventory lacks ("chop the tuna": take the knife)."""
    family = episode_family(state)
    command = family.command_for_item(item, admissible)
    if command is not None:
        return command
    held = " ".join(state.get("inventory") or []).lower()
    for tool in family.tools_needed(item):
        if tool not in held and (command := family.command_for_item(tool, admissible)) is not None:
            return command
    return None


def _followed(item: tuple[str | None, str], command: str) -> tuple[Plan, dict[str, Any], str]:
    """A plan of the one command that does ``item`` (its list's heading or None, the item), by code."""
    step = p.step_line(*item) if item[0] is not None else item[1]
    plan = Plan(subgoal=f"{p.NEXT_STEP}: {step}", reasoning=f"{FOLLOWED}{step}", steps=[PlanStep(action=command)])
    return plan, {}, BY_LIST


def choose_command(state: AgentState, context: AgentContext, session: Session) -> tuple[Plan, dict[str, Any], str]:
    """``plan_choice``: a sentence of reasoning, then the next command, written out (after a thought, a small
    model writes the command it means; forced into an enum of commands, or asked for a number in a long list,
    it lands on another one); a plan of that one step, which the actor plays when it is a valid command or
    sends back when not, and who chose it (common.BY_*). The known places to go to are offered beside the valid
    commands."""
    # not offered: what was sent back this step, and what was played twice already from here
    avoid = set(state.get("avoid") or [])
    tried = tried_here(state, session.run)
    if context.switches.loop_guard:
        avoid |= {c for c, (n, _) in tried.items() if n >= 2}
    offered = offered_commands(state, context)
    follows = context.switches.follow_lists
    said = said_or_listed(state, context, session.run) if follows else None
    if said is not None and (command := item_command(state, said[1], [c for c in offered if c not in avoid])):
        # what the game says now or the list read says what to do, and one valid command does it word for word: no
        # model asked (even a command that changes nothing, played before: Simon says 'examine pea' twice)
        return _followed(said, command)
    if context.switches.object_memory:  # what changes nothing is played once (nodes/guards.no_op_again)
        family = episode_family(state)
        avoid |= {c for c in tried if is_no_op(c, family)}
        avoid |= {c for c in played_before(session.run) if shown_again(c)}
    admissible = [c for c in offered if c not in avoid] or offered
    goal_step = goal_step_left(state, context, session.run) if follows and said is None else None
    if goal_step and (command := item_command(state, goal_step, admissible)):  # nothing read yet: the goal's step
        return _followed((None, goal_step), command)
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
        sections={**choice_sections(state, context, session), p.ADMISSIBLE: [*admissible, *places]},
        fallback=Decision(reasoning="no usable reply: a command that changes nothing", action=fallback),
        step=state.get("step", 0),
    )
    written = LIST_MARK.sub("", chosen.action)  # a small model copies an item with its mark ("chop the tuna [to do]")
    command = episode_family(state).ground(written, [*admissible, *places]) or written
    if command != chosen.action:  # the diagnostics judge what the model wrote, not what grounding made of it
        update = {**update, "written": chosen.action}
    by = BY_FALLBACK if fell_back(update, "planner") else BY_MODEL
    return Plan(subgoal=chosen.reasoning, reasoning=chosen.reasoning, steps=[PlanStep(action=command)]), update, by
