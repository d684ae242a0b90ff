"""Actor: grounds the planned action to an admissible command — exact, then close match, then the
model's choice — and expands 'go to <place>' into moves along the KG's map (AriGraph); without
``grounding`` the planned command is sent as written (DAVIS's D-A). Presets with
``react_choice`` (AriGraph, the baselines) instead ask the model to reason and choose every step."""

from __future__ import annotations

from typing import Any

from langgraph.runtime import Runtime

from .. import prompting as p
from ..agent.context import AgentContext
from ..agent.session import live_session
from ..agent.state import AgentState
from ..envs import InvalidCommand, sanitize_command, split_commands
from ..envs.text import go_to_target, ground_command, safe_command
from .common import INADMISSIBLE, ask_structured, environment_section, with_issue, working_memory
from .prompts import ACTOR, REACT
from .schemas import action_choice


def expand_go_to(action: str, state: AgentState, memory) -> list[dict[str, str]] | None:
    """'go to X' as single moves with the room each should reach; None when X is unknown or unreachable."""
    target = go_to_target(action)
    if target is None:
        return None
    here = memory.location() or state.get("location")
    moves = memory.path(here, target) if here else None
    if moves is None:
        return None
    return [{"action": f"go {direction}", "expected": room} for direction, room in moves]


def as_written(action: str) -> str | None:
    """The command as the plan wrote it, when the game can be sent it at all: the first of a compound
    command (one step is one game turn); None for what no game takes (empty, an out-of-game verb)."""
    parts = split_commands(action)
    try:
        return sanitize_command(parts[0]) if parts else None
    except InvalidCommand:
        return None


MAX_GO_TO_CHOICES = 8  # 'go to <place>' choices offered beside the game's commands (nearest places first)


def go_to_choices(state: AgentState, memory) -> list[str]:
    """'go to <place>' for the known places the KG's map reaches from here (AriGraph's navigation)."""
    here = memory.location() or state.get("location")
    return [f"go to {place}" for place in memory.reachable_places(here)[:MAX_GO_TO_CHOICES]] if here else []


def actor(state: AgentState, runtime: Runtime[AgentContext]) -> dict[str, Any]:
    context = runtime.context
    script = state.get("script") or []
    if script:  # a given trajectory is played as it is (memory is still written every step)
        return {"proposed": script[min(state.get("step", 0), len(script) - 1)], "reason": None}
    preset = context.switches
    plan = list(state.get("plan") or [])
    admissible = state.get("admissible") or []
    update: dict[str, Any] = {}
    if preset.go_to:
        memory = live_session(state, context).memory
        while plan and (moves := expand_go_to(plan[0]["action"], state, memory)) is not None:
            plan = moves + plan[1:]  # an empty expansion (already there) just drops the step
            if moves:
                break
    if preset.react_choice:
        places = go_to_choices(state, live_session(state, context).memory) if preset.go_to and admissible else []
        return _react(state, context, plan, admissible, places)
    plan = plan or [{"action": safe_command(admissible), "expected": ""}]
    step = plan[0]
    if not preset.grounding:  # DAVIS without its actor: the world model's command goes to the game as written
        command = as_written(step["action"])
        update = with_issue(update, "actor", INADMISSIBLE) if command is None else update
        return {"proposed": command or safe_command(admissible), "expected": step.get("expected") or None,
                "expected_reward": step.get("reward") or None, "plan": plan[1:], **update}
    command = ground_command(step["action"], admissible) if admissible else step["action"]
    if command is None:  # the plan's command is not valid as written: the model picks the closest valid one
        sections = {p.ENVIRONMENT: environment_section(state), p.ADMISSIBLE: admissible, p.OBSERVATION: state.get("observation", ""),
                    p.PROPOSED_ACTION: step["action"]}
        schema = action_choice(admissible)
        choice, update = ask_structured(context, node="actor", role="actor", schema=schema, system=ACTOR, sections=sections,
                                        fallback=schema(action=safe_command(admissible)), step=state.get("step", 0))
        command = ground_command(choice.action, admissible)
        if command is None:
            command, update = safe_command(admissible), with_issue(update, "actor", INADMISSIBLE)
    return {"proposed": command, "expected": step.get("expected") or None, "expected_reward": step.get("reward") or None,
            "plan": plan[1:], **update}


def _react(state: AgentState, context: AgentContext, plan: list[dict[str, str]], admissible: list[str],
           places: list[str]) -> dict[str, Any]:
    """ReAct decision (AriGraph's action selector, the react baseline): reason, then choose one
    admissible command, every step, from the working memory and the plan's next step if any. With
    ``go_to`` the choices also hold 'go to <place>' for places the KG's map reaches; choosing one
    plays its first move and keeps the rest as the plan."""
    sections = {**working_memory({**state, "plan": plan}, context), p.COMMANDS: None,
                p.PROPOSED_ACTION: plan[0]["action"] if plan else None, p.ADMISSIBLE: admissible + places}
    fallback = plan[0]["action"] if plan else safe_command(admissible)
    if admissible:
        fallback = ground_command(fallback, admissible) or safe_command(admissible)
    schema = action_choice(admissible + places)
    choice, update = ask_structured(context, node="actor", role="actor", schema=schema, system=REACT,
                                    sections=sections, fallback=schema(action=fallback), step=state.get("step", 0))
    if places and go_to_target(choice.action) is not None:
        moves = expand_go_to(choice.action, state, live_session(state, context).memory)
        if moves:
            first = ground_command(moves[0]["action"], admissible)
            if first is not None:
                return {"proposed": first, "expected": moves[0]["expected"], "plan": moves[1:], "reason": choice.reasoning or None, **update}
    command = ground_command(choice.action, admissible) if admissible else choice.action
    if command is None:  # only without the choices in the schema (too many to list)
        command, update = fallback, with_issue(update, "actor", INADMISSIBLE)
    followed = bool(plan) and command.lower() == " ".join(plan[0]["action"].lower().split())
    return {"proposed": command, "expected": plan[0].get("expected") or None if followed else None,
            "plan": plan[1:] if followed else plan, "reason": choice.reasoning or None, **update}
