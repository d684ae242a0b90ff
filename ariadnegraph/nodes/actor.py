"""Actor: grounds the planned action to an admissible command — exact, then close match, then the
model's choice — and expands 'go to <place>' into moves along the KG's map (AriGraph); with
``actor_commands`` > 1 (DAVIS) a plan step that is not one valid command is first decomposed by the model
into up to that many commands (L' >= L), the first valid now and each later one grounded when its turn
comes; without ``grounding`` the planned command is sent as written (DAVIS's D-A). Presets with
``react_choice`` (AriGraph, the baselines) instead ask the model to reason and choose every step."""

from __future__ import annotations

import random
from typing import Any

from langgraph.runtime import Runtime

from .. import prompting as p
from ..agent.context import AgentContext
from ..agent.presets import Preset
from ..agent.records import ActorDecision, How, PlanStep, feedback
from ..agent.session import Session
from ..agent.state import AgentState
from ..controller.guards import GuardDecision, Reason, Situation, guard
from ..controller.rules import shown_commands
from ..controller.steps import explore_moves, go_to_choices
from ..controller.view import View
from ..envs import InvalidCommand, sanitize_command, split_commands
from ..envs.text import (
    go_to_target,
    is_explore,
    safe_command,
)
from .common import (
    BY_FALLBACK,
    BY_MODEL,
    BY_RANDOM,
    BY_ROUTE,
    BY_SCRIPT,
    INADMISSIBLE,
    ask_structured,
    controller_view,
    environment_section,
    fell_back,
    merged,
    with_issue,
    working_memory,
)
from .prompts import ACTOR, REACT, SAYCAN, expansion_prompt
from .schemas import CommandReply, Expansion, action_choice


def expand_go_to(action: str, state: AgentState, memory) -> list[PlanStep] | None:
    """'go to X' as single moves with the room each should reach; None when X is unknown or unreachable."""
    target = go_to_target(action)
    if target is None:
        return None
    here = memory.location() or state.get("location")
    moves = memory.path(here, target) if here else None
    if moves is None:
        return None
    return [{"action": f"go {direction}", "expected": room} for direction, room in moves]


def expand_on_map(action: str, state: AgentState, memory, preset: Preset) -> list[PlanStep] | None:
    """The agent's own commands as single moves along the map: 'go to X' (``go_to``) and 'explore' (``explore``);
    None for any other command, or one the map cannot expand."""
    if preset.explore and is_explore(action):
        return explore_moves(memory, state.get("location"))
    return expand_go_to(action, state, memory) if preset.go_to else None


def as_written(action: str) -> str | None:
    """The command as the plan wrote it, when the game can be sent it at all: the first of a compound
    command (one step is one game turn); None for what no game takes (empty, an out-of-game verb)."""
    parts = split_commands(action)
    try:
        return sanitize_command(parts[0]) if parts else None
    except InvalidCommand:
        return None


def grounding(planned: str | None, played: str | None, how: How, **extra: Any) -> dict[str, list[ActorDecision]]:
    """The actor's record for the step's line (``decided["actor"]``): the plan's step, the command it became, how
    (agent/records.How) and the rest of an ActorDecision's fields given as ``extra``."""
    # ``how`` as its plain word: the record goes into checkpoints, which would otherwise hold the enum's type
    record: ActorDecision = {"planned": planned, "played": played, "how": how.value, **extra}  # type: ignore[typeddict-item]
    return {"actor": [record]}


def _same(command: str) -> str:
    return " ".join(command.lower().split())


def expand_step(
    state: AgentState, context: AgentContext, view: View, step: PlanStep, admissible: list[str]
) -> tuple[list[PlanStep], dict[str, Any]]:
    """DAVIS's actor: the plan step as up to ``actor_commands`` game commands, in order. The first must be a
    valid command now (else no expansion: []); later ones are kept as the game can be sent them, to be
    grounded when due. The last keeps the step's expected outcome and reward; the others carry the actor's
    own prediction of what they give."""
    most = context.switches.actor_commands
    sections = {
        p.ENVIRONMENT: environment_section(state),
        p.GOAL: state.get("goal", ""),
        p.LOCATION: state.get("location") or p.UNKNOWN,
        p.INVENTORY: p.inventory_text(state.get("inventory")),
        p.ADMISSIBLE: shown_commands(view.family, view.goal, view.inventory, admissible, keep=[step["action"]]),
        p.OBSERVATION: state.get("observation", ""),
        p.PROPOSED_ACTION: step["action"],
    }
    reply, update = ask_structured(
        context,
        node="actor",
        schema=Expansion,
        system=expansion_prompt(most),
        sections=sections,
        fallback=Expansion(commands=[]),
        step=state.get("step", 0),
    )
    commands: list[CommandReply] = []
    for command in reply.commands[:most]:
        written = as_written(command.action)
        if written is not None:
            commands.append(CommandReply(action=written, expected=command.expected))
    first = view.family.ground(commands[0].action, admissible) if commands else None
    if first is None:
        return [], with_issue(update, "actor", INADMISSIBLE) if commands else update
    commands[0] = CommandReply(action=first, expected=commands[0].expected)
    steps: list[PlanStep] = [{"action": c.action, "expected": c.expected, "from_actor": True} for c in commands]
    steps[-1] = {**steps[-1], "expected": step.get("expected") or steps[-1].get("expected", "")}
    if step.get("reward"):
        steps[-1]["reward"] = step["reward"]
    return steps, update


def actor(state: AgentState, runtime: Runtime[AgentContext], session: Session) -> dict[str, Any]:
    context = runtime.context
    script = state.get("script") or []
    if script:  # a given trajectory is played as it is (memory is still written every step)
        given = script[min(state.get("step", 0), len(script) - 1)]
        return {"command": given, "reason": None, "decided": grounding(None, given, How.SCRIPT, by=BY_SCRIPT)}
    preset = context.switches
    admissible = state.get("admissible") or []
    if preset.random_walk:  # AriGraph appendix C: the same on a replay or a resume (seeded by the run and the step)
        draw = random.Random(f"{state.get('run_id')}:{state.get('step', 0)}")
        drawn = draw.choice(admissible) if admissible else safe_command(admissible)
        return {"command": drawn, "reason": None, "decided": grounding(None, drawn, How.RANDOM, by=BY_RANDOM)}
    plan: list[PlanStep] = list(state.get("plan") or [])
    while plan and not _in_its_room(plan[0], state.get("location")):
        plan = plan[1:]  # a route step for a room the move before it did not reach
    update: dict[str, Any] = {}
    if preset.go_to or preset.explore:
        memory = session.memory
        while plan and (moves := expand_on_map(plan[0]["action"], state, memory, preset)) is not None:
            moves = routed(moves, plan[0].get("by", BY_MODEL))
            plan = moves + plan[1:]  # an empty expansion (already there) just drops the step
            if moves:
                break
    view = controller_view(state, context, session)
    if preset.react_choice:
        places = go_to_choices(session.memory, view.location) if preset.go_to and admissible else []
        return _react(state, context, session, view, plan, admissible, places)
    plan = plan or [{"action": safe_command(admissible), "expected": ""}]
    step = plan[0]
    if not preset.grounding:  # DAVIS without its actor: the world model's command goes to the game as written
        return _as_planned(step, plan, admissible)
    expanded: list[str] = []
    planned = step["action"]
    if (
        preset.actor_commands > 1
        and admissible
        and not step.get("from_actor")
        and _same(step["action"]) not in {_same(c) for c in admissible}
        and go_to_target(step["action"]) is None
    ):
        steps, update = expand_step(state, context, view, step, admissible)
        if steps:  # the step as several commands (or one valid one): the plan now holds them in its place
            plan, step = steps + plan[1:], steps[0]
            expanded = [s["action"] for s in steps]
    command = view.family.ground(step["action"], admissible) if admissible else step["action"]
    how = How.EXPANDED if expanded else How.GROUNDED
    extra: dict[str, Any] = {"into": expanded} if expanded else {}
    decision = guard(Situation(view, step["action"], command))
    if decision is not None:
        return guarded(decision, step["action"], command, update)
    by = step.get("by", BY_MODEL)
    if command is None:  # the plan's command is not valid as written: the model picks the closest valid one
        command, update, how = _closest_valid(state, context, view, step, admissible, update)
        by = BY_FALLBACK if how == How.FALLBACK else BY_MODEL
    return {
        "command": command,
        "expected": step.get("expected") or None,
        "expected_reward": step.get("reward") or None,
        "plan": plan[1:],
        **update,
        "decided": grounding(planned, command, how, by=by, **extra),
    }


def _in_its_room(step: PlanStep, location: str | None) -> bool:
    """Whether a plan step is to be played where the player is: a route step that names its room (``"in"``) only
    there; any other step anywhere."""
    room = step.get("in")
    return not room or location is None or " ".join(room.lower().split()) == " ".join(location.lower().split())


def routed(moves: list[PlanStep], by: str) -> list[PlanStep]:
    """The moves a step of the map expands into ('go to X', 'explore'): the first chosen as the step was, the rest
    code walking the route."""
    return [{**move, "by": by if i == 0 else BY_ROUTE} for i, move in enumerate(moves)]


# how a guard's decision is recorded (the diagnostics and the report read ``how``; ``reason`` says which guard)
GUARD_HOW = {
    Reason.KEYS_FIRST: How.KEYS_FIRST,
    Reason.GOAL_IN_REACH: How.GOAL_IN_REACH,
    Reason.PACING: How.EXPLORE,
    Reason.TAKE_FIRST: How.TAKE_FIRST,
    Reason.WAY_FORWARD: How.FALLBACK,
}
# the guards that take a thing here before the plan's step (the diagnostics count them as "took first")
TAKES_FIRST = frozenset(GUARD_HOW[reason] for reason in (Reason.KEYS_FIRST, Reason.GOAL_IN_REACH, Reason.TAKE_FIRST))


def guarded(decision: GuardDecision, planned: str, grounded: str | None, update: dict[str, Any]) -> dict[str, Any]:
    """A guard's decision as the actor's update: the step back to the planner (nothing proposed: the graph routes
    there) with why, or the command the guard plays instead, the plan replaced by the moves after it (a step that
    grounded to no valid command and is replaced by the way forward counts as inadmissible)."""
    if decision.command is None:
        return {
            "command": None,
            "plan": [],
            "needs_plan": True,
            "feedback": feedback("actor", decision.why, decision.reason.value),
            "decided": grounding(
                planned, None, How.SENT_BACK, why=decision.why, reason=decision.reason.value, by=decision.reason.value
            ),
            **({"avoid": [decision.avoid]} if decision.avoid else {}),
        }
    if decision.reason == Reason.WAY_FORWARD and grounded is None:
        update = with_issue(update, "actor", INADMISSIBLE)
    return {
        "command": decision.command,
        "expected": decision.expected,
        "plan": [{**move, "by": BY_ROUTE} for move in decision.then],
        **update,
        "decided": grounding(
            planned,
            decision.command,
            GUARD_HOW[decision.reason],
            why=decision.why,
            reason=decision.reason.value,
            by=decision.reason.value,
        ),
    }


def _as_planned(step: PlanStep, plan: list[PlanStep], admissible: list[str]) -> dict[str, Any]:
    """DAVIS without its actor (D-A): the planned command as written, the first of a compound one."""
    command = as_written(step["action"])
    update = with_issue({}, "actor", INADMISSIBLE) if command is None else {}
    return {
        "command": command or safe_command(admissible),
        "expected": step.get("expected") or None,
        "expected_reward": step.get("reward") or None,
        "plan": plan[1:],
        **update,
        "decided": grounding(
            step["action"],
            command or safe_command(admissible),
            How.AS_WRITTEN if command else How.FALLBACK,
            by=step.get("by", BY_MODEL) if command else BY_FALLBACK,
        ),
    }


def _closest_valid(
    state: AgentState,
    context: AgentContext,
    view: View,
    step: PlanStep,
    admissible: list[str],
    update: dict[str, Any],
) -> tuple[str, dict[str, Any], How]:
    """The valid command closest to a step that is not one, as the model picks it: (command, update, how)."""
    how = How.MODEL
    safe = safe_command(admissible)
    shown = shown_commands(
        view.family, view.goal, view.inventory, admissible, keep=[safe]
    )  # the schema admits the fallback
    sections = {
        p.ENVIRONMENT: environment_section(state),
        p.ADMISSIBLE: shown,
        p.OBSERVATION: state.get("observation", ""),
        p.PROPOSED_ACTION: step["action"],
    }
    schema = action_choice(shown)
    choice, chosen = ask_structured(
        context,
        node="actor",
        schema=schema,
        system=ACTOR,
        sections=sections,
        fallback=schema(action=safe),
        step=state.get("step", 0),
    )
    update = merged([update, chosen]) if update else chosen  # an expansion that came to nothing is counted too
    command = view.family.ground(choice.action, admissible)
    if fell_back(chosen, "actor"):
        how = How.FALLBACK
    if command is None:
        command, update, how = safe_command(admissible), with_issue(update, "actor", INADMISSIBLE), How.FALLBACK
    return command, update, how


def _react(
    state: AgentState,
    context: AgentContext,
    session: Session,
    view: View,
    plan: list[PlanStep],
    admissible: list[str],
    places: list[str],
) -> dict[str, Any]:
    """ReAct decision (AriGraph's action selector, the react baseline): reason, then choose one
    admissible command, every step, from the working memory and the plan's next step if any. With
    ``go_to`` the choices also hold 'go to <place>' for places the KG's map reaches; choosing one
    plays its first move and keeps the rest as the plan."""
    sections = {
        **working_memory({**state, "plan": plan}, context, session),
        p.COMMANDS: None,
        p.PROPOSED_ACTION: plan[0]["action"] if plan else None,
    }
    fallback = plan[0]["action"] if plan else safe_command(admissible)
    if admissible:
        fallback = view.family.ground(fallback, admissible) or safe_command(admissible)
    shown = shown_commands(
        view.family, view.goal, view.inventory, admissible, keep=[fallback]
    )  # the schema admits the fallback
    sections[p.ADMISSIBLE] = shown + places
    thinks = context.switches.choice_reasoning
    schema = action_choice(shown + places, reasoning=thinks)
    choice, update = ask_structured(
        context,
        node="actor",
        schema=schema,
        system=REACT if thinks else SAYCAN,
        sections=sections,
        fallback=schema(action=fallback),
        step=state.get("step", 0),
    )
    if places and go_to_target(choice.action) is not None:
        moves = expand_go_to(choice.action, state, session.memory)
        if moves:
            first = view.family.ground(moves[0]["action"], admissible)
            if first is not None:
                return {
                    "command": first,
                    "expected": moves[0]["expected"],
                    "plan": routed(moves, BY_MODEL)[1:],
                    "reason": getattr(choice, "reasoning", "") or None,
                    **update,
                    "decided": grounding(
                        plan[0]["action"] if plan else None, first, How.CHOICE, chosen=choice.action, by=BY_MODEL
                    ),
                }
    command = view.family.ground(choice.action, admissible) if admissible else choice.action
    if command is None:  # only without the choices in the schema (more than CHOICES_IN_SCHEMA)
        command, update = fallback, with_issue(update, "actor", INADMISSIBLE)
    followed = bool(plan) and command.lower() == " ".join(plan[0]["action"].lower().split())
    return {
        "command": command,
        "expected": plan[0].get("expected") or None if followed else None,
        "plan": plan[1:] if followed else plan,
        "reason": getattr(choice, "reasoning", "") or None,
        **update,
        "decided": grounding(
            plan[0]["action"] if plan else None,
            command,
            How.FALLBACK if fell_back(update, "actor") else How.CHOICE,
            by=BY_FALLBACK if fell_back(update, "actor") else BY_MODEL,
        ),
    }
