"""The lean planner of small models (``plan_choice``, the ``ariadne`` preset): the next command, chosen.

A list read says what to do next, and when one valid command does its next item word for word it is played with
no model call (``follow_lists``), as is the way to what it needs when memory saw that in another room
(``object_memory``: ``controller.steps.way_to_step``); otherwise the model reads a lean prompt (no map text, no plan:
'go to' and 'explore' are among the choices), the next step worked out in code (NEXT STEP) and what it needs from
memory (WHERE: controller/finding.py), writes one sentence of reasoning, then the command. What was sent back this
step, played twice here already, or (``object_memory``) changes nothing and was played here once, is not offered.
"""

from __future__ import annotations

import re
from dataclasses import replace
from typing import Any

from .. import prompting as p
from ..agent.context import AgentContext
from ..agent.session import Session
from ..agent.state import AgentState
from ..controller.guards import is_no_op, shown_again
from ..controller.rules import offered_commands, shown_commands
from ..controller.steps import (
    NextStep,
    explore_moves,
    go_to_choices,
    goal_step_here,
    next_step,
    step_command,
    way_to_step,
    where_section,
)
from ..controller.view import View
from ..envs.text import EXPLORE, safe_command
from .common import (
    BY_FALLBACK,
    BY_LIST,
    BY_MODEL,
    BY_WALK,
    ask_structured,
    controller_view,
    feedback_section,
    fell_back,
    working_memory,
)
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


def choice_sections(state: AgentState, context: AgentContext, session: Session, view: View) -> dict[str, object]:
    """What a ``plan_choice`` planner reads: lean, for a small model (no map text, no plan, no extra-command list:
    'go to' and 'explore' are among the choices), with the next step of a list read worked out in code."""
    window = min(context.switches.history_length or CHOICE_HISTORY, CHOICE_HISTORY)
    preset = replace(context.switches, history_length=window)
    shown = working_memory(state, context, session, preset)
    return {
        **{name: shown.get(name) for name in CHOICE_SECTIONS},
        p.NEXT_STEP: step.line() if (step := next_step(view)) else None,
        p.WHERE: where_section(view),
        **feedback_section(state.get("feedback"), None),
    }


LIST_MARK = re.compile(r"\s*(?:\[[^\]]*\]|\([^)]*\))\s*$")  # "(here)", "[to do]": what a small model copies along
FOLLOWED = "followed in code: "  # the reasoning of a plan step a list read gave, no model asked


def _followed(step: NextStep, command: str, why: str = "", by: str = BY_LIST) -> tuple[Plan, dict[str, Any], str]:
    """A plan of the one command that does the next step (or walks toward it: ``why``), by code."""
    shown = p.step_line(step.heading, step.text)
    reasoning = f"{FOLLOWED}{shown}: {why}" if why else f"{FOLLOWED}{shown}"
    plan = Plan(subgoal=f"{p.NEXT_STEP}: {shown}", reasoning=reasoning, steps=[StepReply(action=command)])
    return plan, {}, by


def choose_command(state: AgentState, context: AgentContext, session: Session) -> tuple[Plan, dict[str, Any], str]:
    """``plan_choice``: a sentence of reasoning, then the next command, written out (after a thought, a small
    model writes the command it means; forced into an enum of commands, or asked for a number in a long list,
    it lands on another one); a plan of that one step, which the actor plays when it is a valid command or
    sends back when not, and who chose it (common.BY_*). The known places to go to are offered beside the valid
    commands."""
    view = controller_view(state, context, session)
    # not offered: what was sent back this step, and what was played twice already from here
    avoid = set(view.avoid)
    tried = view.tried
    if context.switches.loop_guard:
        avoid |= {c for c, (n, _) in tried.items() if n >= 2}
    offered = offered_commands(view)
    step = next_step(view) if context.switches.follow_lists else None
    unavoided = [c for c in offered if c not in avoid]
    if step and step.word_for_word and (command := step_command(view, step.text, unavoided)):
        # what the game says now or the list read says what to do, and one valid command does it word for word: no
        # model asked (even a command that changes nothing, played before: a game that says to examine a thing twice)
        return _followed(step, command)
    if context.switches.object_memory:  # what changes nothing is played once (controller/guards.no_op_again)
        avoid |= {c for c in tried if is_no_op(c, view.family)}
        avoid |= {c for c in view.past.played() if shown_again(c)}
    admissible = [c for c in offered if c not in avoid] or offered
    if step and not step.word_for_word and (command := goal_step_here(view, step, admissible)):
        return _followed(step, command)  # nothing read yet: the goal's step, unless it changes nothing again
    if step and context.switches.object_memory and (walk := way_to_step(view, step, admissible)):
        # what the step needs, memory saw in another room: the way there is code's, not the model's
        return _followed(step, walk[0], why=walk[1], by=BY_WALK)
    memory = view.memory
    places = go_to_choices(memory, view.location) if context.switches.go_to and admissible else []
    if context.switches.explore and admissible and EXPLORE not in avoid and explore_moves(memory, view.location):
        places.append(EXPLORE)
    fallback = safe_command(view.valid)
    chosen, update = ask_structured(
        context,
        node="planner",
        schema=Decision,
        system=PLAN_CHOICE,
        sections={
            **choice_sections(state, context, session, view),
            p.ADMISSIBLE: shown_commands(view.family, view.goal, view.inventory, admissible) + places,
        },
        fallback=Decision(reasoning="no usable reply: a command that changes nothing", action=fallback),
        step=view.step,
    )
    written = LIST_MARK.sub("", chosen.action)  # a small model copies an item with its mark ("chop the tuna [to do]")
    command = view.family.ground(written, [*admissible, *places]) or written
    if command != chosen.action:  # the diagnostics judge what the model wrote, not what grounding made of it
        update = {**update, "written": chosen.action}
    by = BY_FALLBACK if fell_back(update, "planner") else BY_MODEL
    return Plan(subgoal=chosen.reasoning, reasoning=chosen.reasoning, steps=[StepReply(action=command)]), update, by
