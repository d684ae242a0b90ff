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
from ..envs.text import direction_of_command, go_to_target, ground_command, safe_command
from ..models import FALLBACK
from .common import INADMISSIBLE, ask_structured, environment_section, go_to_choices, tried_here, with_issue, working_memory
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


def fell_back(update: dict[str, Any]) -> bool:
    """Whether the actor's model reply was unusable (the recorded fallback was played)."""
    return bool((update.get("replies") or {}).get("actor", {}).get(FALLBACK))


def grounding(planned: str | None, played: str | None, how: str, **extra: str) -> dict[str, Any]:
    """The actor's record for the step's line: the plan's step, the command it became, and how
    (grounded: the same command or a close spelling; model: the model mapped it; choice: the model chose
    from the list; as_written; script; fallback: nothing usable, a command that changes nothing; sent
    back: returned to the planner, ``why`` saying why)."""
    return {"actor": [{"planned": planned, "played": played, "how": how, **extra}]}


def sent_back(planned: str, why: str, avoid: str | None = None) -> dict[str, Any]:
    """The plan goes back to the planner (the graph routes there when nothing is proposed), with why;
    ``avoid``: a command left out of the planner's choices for the rest of the step (a repeat)."""
    return {"proposed": None, "plan": [], "needs_plan": True, "feedback": why, "decided": grounding(planned, None, "sent back", why=why),
            **({"avoid": [avoid]} if avoid else {})}


def unexplored_move(state: AgentState, context: AgentContext) -> str | None:
    """A valid 'go' command through an exit the map has never seen taken from here."""
    memory = live_session(state, context).memory
    here = memory.location() or state.get("location")
    exits = next(iter(memory.unexplored_exits(here).values()), []) if here else []
    return next((ground_command(f"go {d}", state.get("admissible") or []) for d in exits
                 if ground_command(f"go {d}", state.get("admissible") or [])), None)


def looped_or_stalled(state: AgentState, context: AgentContext, command: str) -> str | None:
    """Why ``command`` should not be played from a plan made earlier: it was played twice already from here
    (``loop_guard``; not a move, which may be the only way out of a dead end), or no score came for
    ``stall_steps`` steps (checked once per step, before any replan)."""
    preset = context.switches
    if preset.loop_guard and direction_of_command(command) is None:  # a move may be the only way out: stalls catch pacing
        count, answer = tried_here(state, context).get(command, (0, ""))
        if count >= 2:
            return f"'{command}' was already played {count} times here and the game answered '{answer}': do something else"
    since = state.get("step", 0) + 1 - state.get("progress_step", 0)
    if preset.stall_steps and state.get("replans", 0) == 0 and since >= preset.stall_steps and since % preset.stall_steps == 0:
        return f"no score for {since - 1} steps: what the plan does is not working; look for what the goal still needs"
    return None


def actor(state: AgentState, runtime: Runtime[AgentContext]) -> dict[str, Any]:
    context = runtime.context
    script = state.get("script") or []
    if script:  # a given trajectory is played as it is (memory is still written every step)
        given = script[min(state.get("step", 0), len(script) - 1)]
        return {"proposed": given, "reason": None, "decided": grounding(None, given, "script")}
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
                "expected_reward": step.get("reward") or None, "plan": plan[1:], **update,
                "decided": grounding(step["action"], command or safe_command(admissible), "as_written" if command else "fallback")}
    command = ground_command(step["action"], admissible) if admissible else step["action"]
    how = "grounded"
    if state.get("replans", 0) < context.max_replans:
        if command is None and preset.strict_grounding and admissible:
            return sent_back(step["action"], f"'{step['action']}' is not a valid command here; choose one of VALID COMMANDS")
        why = looped_or_stalled(state, context, command) if command is not None else None
        if why:
            return sent_back(step["action"], why, avoid=command if "already played" in why else None)
    if command is not None and command in (state.get("avoid") or []) and admissible:
        # a repeat the planner chose again with its replans used up: through an unexplored exit, else a way out not
        # yet taken from here, else what changes nothing
        tried = tried_here(state, context)
        ways_out = [c for c in admissible if direction_of_command(c) and c not in tried]
        command, how = unexplored_move(state, context) or (ways_out[0] if ways_out else safe_command(admissible)), "fallback"
    if command is None:  # the plan's command is not valid as written: the model picks the closest valid one
        how = "model"
        sections = {p.ENVIRONMENT: environment_section(state), p.ADMISSIBLE: admissible, p.OBSERVATION: state.get("observation", ""),
                    p.PROPOSED_ACTION: step["action"]}
        schema = action_choice(admissible)
        choice, update = ask_structured(context, node="actor", role="actor", schema=schema, system=ACTOR, sections=sections,
                                        fallback=schema(action=safe_command(admissible)), step=state.get("step", 0))
        command = ground_command(choice.action, admissible)
        if fell_back(update):
            how = "fallback"
        if command is None:
            command, update, how = safe_command(admissible), with_issue(update, "actor", INADMISSIBLE), "fallback"
    return {"proposed": command, "expected": step.get("expected") or None, "expected_reward": step.get("reward") or None,
            "plan": plan[1:], **update, "decided": grounding(step["action"], command, how)}


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
                return {"proposed": first, "expected": moves[0]["expected"], "plan": moves[1:], "reason": choice.reasoning or None, **update,
                        "decided": grounding(plan[0]["action"] if plan else None, first, "choice", chosen=choice.action)}
    command = ground_command(choice.action, admissible) if admissible else choice.action
    if command is None:  # only without the choices in the schema (too many to list)
        command, update = fallback, with_issue(update, "actor", INADMISSIBLE)
    followed = bool(plan) and command.lower() == " ".join(plan[0]["action"].lower().split())
    return {"proposed": command, "expected": plan[0].get("expected") or None if followed else None,
            "plan": plan[1:] if followed else plan, "reason": choice.reasoning or None, **update,
            "decided": grounding(plan[0]["action"] if plan else None, command, "fallback" if fell_back(update) else "choice")}
