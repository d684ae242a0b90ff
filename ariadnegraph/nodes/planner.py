"""Planner: the subgoal and the next actions with expected outcomes. By default it runs only when
there is no plan, the plan is used up, or the critic sent it back — AgentKit's gate that saves most
calls; presets that reproduce AriGraph and the baselines plan every step."""

from __future__ import annotations

import re
from dataclasses import replace
from typing import Any

from langgraph.runtime import Runtime

from .. import prompting as p
from ..agent.context import AgentContext
from ..agent.session import Session
from ..agent.state import AgentState
from ..envs.text import EXPLORE, safe_command
from ..models import FALLBACK
from . import finding
from .common import (
    BY,
    BY_FALLBACK,
    BY_LIST,
    BY_MODEL,
    BY_ORACLE,
    ask_structured,
    episode_family,
    explore_moves,
    go_to_choices,
    needed_item,
    next_item,
    next_step,
    offered_commands,
    tried_here,
    working_memory,
)
from .guards import is_no_op
from .prompts import PLAN_CHOICE, planner_prompt
from .schemas import Decision, Plan, PlanStep


def fallback_plan(state: AgentState) -> Plan:
    """When no valid plan comes back: look around, which is always safe and shows the exits."""
    action = safe_command(state.get("admissible") or [])
    return Plan(subgoal="recover: look around", reasoning="fallback", steps=[PlanStep(action=action)])


def oracle_plan(state: AgentState, context: AgentContext, session: Session) -> dict[str, Any]:
    """ORACLE (``oracle_plan``, evaluation only): the next commands of the game's winning path from where
    it is; no model call."""
    policy = session.observation.oracle.policy
    if not policy and not state.get("done"):
        raise ValueError(
            f"oracle_plan needs a game that knows its winning commands from any state (TextWorld); {state.get('env')} "
            f"does not"
        )
    steps = [{"action": command, "expected": "", BY: BY_ORACLE} for command in policy[: context.switches.plan_length]]
    return {
        "plan": steps,
        "subgoal": "the winning path (oracle)",
        "needs_plan": False,
        "feedback": None,
        "replans": state.get("replans", 0) + 1,
        "decided": {"plans": [{"subgoal": "oracle", "steps": [s["action"] for s in steps]}]},
    }


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
    found = finding.needs(item, episode_family(state), session.memory, location)
    return finding.where_lines(found, finding.leads(session.memory, location), session.memory, location) or None


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


def _choose_plan(state: AgentState, context: AgentContext, session: Session) -> tuple[Plan, dict[str, Any]]:
    """``plan_choice``: a sentence of reasoning, then the next command, written out (after a thought, a small
    model writes the command it means; forced into an enum of commands, or asked for a number in a long list,
    it lands on another one); a plan of that one step, which the actor plays when it is a valid command or
    sends back when not. The known places to go to are offered beside the valid commands."""
    # not offered: what was sent back this step, and what was played twice already from here and changed nothing
    avoid = set(state.get("avoid") or [])
    if context.switches.loop_guard:
        avoid |= {c for c, (n, _) in tried_here(state, session.run).items() if n >= 2}
    if context.switches.object_memory:  # what changes nothing is played once in a situation (nodes/guards.py)
        family = episode_family(state)
        avoid |= {c for c in tried_here(state, session.run) if is_no_op(c, family)}
    admissible = [c for c in offered_commands(state, context) if c not in avoid] or offered_commands(state, context)
    memory = session.memory
    places = go_to_choices(state, memory) if context.switches.go_to and admissible else []
    if context.switches.explore and admissible and EXPLORE not in avoid and explore_moves(state, memory):
        places.append(EXPLORE)
    item = next_item(state, context, session.run) if context.switches.follow_lists else None
    if item is not None and (command := item_command(state, item[1], admissible)) is not None:
        # the list read says what to do, and one valid command does it word for word: no model asked
        step = p.step_line(*item) if item[0] is not None else item[1]
        return Plan(
            subgoal=f"{p.NEXT_STEP}: {step}", reasoning=f"{FOLLOWED}{step}", steps=[PlanStep(action=command)]
        ), {}
    fallback = fallback_plan(state).steps[0].action
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
    return Plan(subgoal=chosen.reasoning, reasoning=chosen.reasoning, steps=[PlanStep(action=command)]), update


def planner(state: AgentState, runtime: Runtime[AgentContext], session: Session) -> dict[str, Any]:
    context = runtime.context
    preset = context.switches
    if preset.oracle_plan:
        return oracle_plan(state, context, session)
    if preset.plan_choice:
        plan, update = _choose_plan(state, context, session)
    else:
        system = planner_prompt(preset.plan_length, preset.expected_rewards)
        plan, update = ask_structured(
            context,
            node="planner",
            schema=Plan,
            system=system,
            sections=working_memory(state, context, session.run),
            fallback=fallback_plan(state),
            step=state.get("step", 0),
        )
    steps = [s for s in plan.steps if s.action.strip()] or fallback_plan(state).steps
    keep = ("action", "expected", "reward") if preset.expected_rewards else ("action", "expected")
    by = (
        BY_LIST
        if plan.reasoning.startswith(FOLLOWED)
        else BY_FALLBACK
        if (update.get("replies") or {}).get("planner", {}).get(FALLBACK)
        else BY_MODEL
    )
    kept = [{**{k: getattr(s, k) for k in keep}, BY: by} for s in steps[: preset.plan_length]]
    written = update.pop("written", None)
    decided = {
        "plans": [
            {
                "subgoal": plan.subgoal,
                "steps": [s["action"] for s in kept],
                "feedback": state.get("feedback"),
                **({"written": written} if written else {}),
            }
        ]
    }
    return {
        "plan": kept,
        "decided": decided,
        "subgoal": plan.subgoal,
        "reason": plan.reasoning or None,
        "needs_plan": False,
        "feedback": None,
        "replans": state.get("replans", 0) + 1,
        **update,
    }
