"""Actor: grounds the planned action to an admissible command — exact, then close match, then the
model's choice — and expands 'go to <place>' into moves along the KG's map (AriGraph); with
``actor_commands`` > 1 (DAVIS) a plan step that is not one valid command is first decomposed by the model
into up to that many commands (L' >= L), the first valid now and each later one grounded when its turn
comes; without ``grounding`` the planned command is sent as written (DAVIS's D-A). Presets with
``react_choice`` (AriGraph, the baselines) instead ask the model to reason and choose every step."""

from __future__ import annotations

from typing import Any

from langgraph.runtime import Runtime

from .. import prompting as p
from ..agent.context import AgentContext
from ..agent.presets import Preset
from ..agent.session import Session
from ..agent.state import AgentState
from ..envs import InvalidCommand, sanitize_command, split_commands
from ..envs.rules import ruinous
from ..envs.text import (
    EXPLORE,
    TAKING_VERBS,
    VERB_SYNONYMS,
    direction_of_command,
    go_to_target,
    ground_command,
    is_explore,
    safe_command,
    take_first,
)
from ..memory import WorldMemory
from ..models import FALLBACK
from ..runs import RunDir
from .common import (
    INADMISSIBLE,
    ask_structured,
    environment_section,
    explore_moves,
    go_to_choices,
    merged,
    tried_here,
    with_issue,
    working_memory,
)
from .prompts import ACTOR, REACT, expansion_prompt
from .schemas import Command, Expansion, action_choice

FROM_ACTOR = "from_actor"  # a plan step the actor wrote (an expansion's): grounded when due, never expanded again


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


def expand_on_map(action: str, state: AgentState, memory, preset: Preset) -> list[dict[str, str]] | None:
    """The agent's own commands as single moves along the map: 'go to X' (``go_to``) and 'explore' (``explore``);
    None for any other command, or one the map cannot expand."""
    if preset.explore and is_explore(action):
        return explore_moves(state, memory)
    return expand_go_to(action, state, memory) if preset.go_to else None


def paced(state: AgentState, session: Session, command: str) -> bool:
    """Whether ``command`` is a move already made twice from this very situation (place, inventory, score): walking
    back and forth between places already seen."""
    return direction_of_command(command) is not None and tried_here(state, session.run).get(command, (0, ""))[0] >= 2


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


def grounding(planned: str | None, played: str | None, how: str, **extra: Any) -> dict[str, Any]:
    """The actor's record for the step's line: the plan's step, the command it became, and how
        (grounded: the same command or a close spelling; model: the model mapped it; choice: the model chose
        from the list; as_written; script; fallback: nothing usable, a command that changes nothing; sent
        back: returned to the planner, ``why`` saying why; expanded: the first of the commands ``into`` the actor
    decomposed the step into)."""
    return {"actor": [{"planned": planned, "played": played, "how": how, **extra}]}


def sent_back(planned: str, why: str, avoid: str | None = None) -> dict[str, Any]:
    """The plan goes back to the planner (the graph routes there when nothing is proposed), with why;
    ``avoid``: a command left out of the planner's choices for the rest of the step (a repeat)."""
    return {
        "command": None,
        "plan": [],
        "needs_plan": True,
        "feedback": why,
        "decided": grounding(planned, None, "sent back", why=why),
        **({"avoid": [avoid]} if avoid else {}),
    }


def not_valid_why(written: str, admissible: list[str]) -> str:
    """Why a written step goes back to the planner: not a valid command, and what may be needed first. When no
    valid command starts with its verb, what could be taken is named (a tool is usually taken first)."""
    verb = (written.split() or [""])[0].lower()
    same = {verb, VERB_SYNONYMS.get(verb, verb)}  # read is examine, get is take, ...
    if any(VERB_SYNONYMS.get(first, first) in same for c in admissible for first in c.lower().split()[:1]):
        return f"'{written}' is not a valid command here; choose one of VALID COMMANDS"
    takes = [c for c in admissible if c.lower().startswith(tuple(f"{taking} " for taking in TAKING_VERBS))][:6]
    hint = f"; things that can be taken here: {', '.join(takes)}" if takes else ""
    return (
        f"no valid command here can '{verb}' yet: what it needs first is not at hand (a tool held, a container opened, "
        f"another place){hint}"
    )


def mentioned_here(written: str, observation: str) -> bool:
    """Whether the thing a command names (its words after the verb) is in the latest observation."""
    words = [w for w in written.lower().split()[1:] if w not in ("the", "a", "an", "with", "from", "on", "in", "to")]
    text = observation.lower()
    return bool(words) and all(w in text for w in words)


def way_forward(state: AgentState, context: AgentContext, session: Session) -> str:
    """What to play when the planner keeps coming back to a step that was sent back: an exit not taken yet from
    here, else the first move of 'explore', else a way out not taken yet from this situation, else what changes
    nothing."""
    admissible = state.get("admissible") or []
    moves = explore_moves(state, session.memory) if context.switches.explore else None
    tried = tried_here(state, session.run)
    ways_out = [c for c in admissible if direction_of_command(c) and c not in tried]
    return (
        unexplored_move(state, session.memory)
        or (ground_command(moves[0]["action"], admissible) if moves else None)
        or (ways_out[0] if ways_out else safe_command(admissible))
    )


def unexplored_move(state: AgentState, memory: WorldMemory) -> str | None:
    """A valid 'go' command through an exit the map has never seen taken from here."""
    here = memory.location() or state.get("location")
    exits = next(iter(memory.unexplored_exits(here).values()), []) if here else []
    return next(
        (
            ground_command(f"go {d}", state.get("admissible") or [])
            for d in exits
            if ground_command(f"go {d}", state.get("admissible") or [])
        ),
        None,
    )


def repeated_here(state: AgentState, context: AgentContext, run: RunDir, command: str | None) -> tuple[int, str] | None:
    """(times, the game's last answer) when ``command``, not a move, was played twice already from this situation
    (``loop_guard``; a move may be the only way out of a dead end: stalls and pacing catch moves)."""
    if not context.switches.loop_guard or command is None or direction_of_command(command) is not None:
        return None
    count, answer = tried_here(state, run).get(command, (0, ""))
    return (count, answer) if count >= 2 else None


def looped_or_stalled(state: AgentState, context: AgentContext, run: RunDir, command: str) -> str | None:
    """Why ``command`` should not be played from a plan made earlier: it was played twice already from here
    (``loop_guard``; not a move, which may be the only way out of a dead end), or no score came for
    ``stall_steps`` steps (checked once per step, before any replan)."""
    preset = context.switches
    if repeat := repeated_here(state, context, run, command):
        count, answer = repeat
        return f"'{command}' was already played {count} times here and the game answered '{answer}': do something else"
    since = state.get("step", 0) + 1 - state.get("progress_step", 0)
    if (
        preset.stall_steps
        and state.get("replans", 0) == 0
        and since >= preset.stall_steps
        and since % preset.stall_steps == 0
    ):
        return f"no score for {since - 1} steps: what the plan does is not working; look for what the goal still needs"
    return None


def _same(command: str) -> str:
    return " ".join(command.lower().split())


def expand_step(
    state: AgentState, context: AgentContext, step: dict[str, str], admissible: list[str]
) -> tuple[list[dict[str, str]], dict[str, Any]]:
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
        p.ADMISSIBLE: admissible,
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
    commands: list[Command] = []
    for command in reply.commands[:most]:
        written = as_written(command.action)
        if written is not None:
            commands.append(Command(action=written, expected=command.expected))
    first = ground_command(commands[0].action, admissible) if commands else None
    if first is None:
        return [], with_issue(update, "actor", INADMISSIBLE) if commands else update
    commands[0] = Command(action=first, expected=commands[0].expected)
    steps = [{"action": c.action, "expected": c.expected, FROM_ACTOR: "1"} for c in commands]
    steps[-1] = {
        **steps[-1],
        "expected": step.get("expected") or steps[-1]["expected"],
        **({"reward": step["reward"]} if step.get("reward") else {}),
    }
    return steps, update


def actor(state: AgentState, runtime: Runtime[AgentContext], session: Session) -> dict[str, Any]:
    context = runtime.context
    script = state.get("script") or []
    if script:  # a given trajectory is played as it is (memory is still written every step)
        given = script[min(state.get("step", 0), len(script) - 1)]
        return {"command": given, "reason": None, "decided": grounding(None, given, "script")}
    preset = context.switches
    plan = list(state.get("plan") or [])
    admissible = state.get("admissible") or []
    update: dict[str, Any] = {}
    if preset.go_to or preset.explore:
        memory = session.memory
        while plan and (moves := expand_on_map(plan[0]["action"], state, memory, preset)) is not None:
            plan = moves + plan[1:]  # an empty expansion (already there) just drops the step
            if moves:
                break
    if preset.react_choice:
        places = go_to_choices(state, session.memory) if preset.go_to and admissible else []
        return _react(state, context, session, plan, admissible, places)
    plan = plan or [{"action": safe_command(admissible), "expected": ""}]
    step = plan[0]
    if not preset.grounding:  # DAVIS without its actor: the world model's command goes to the game as written
        return _as_planned(step, plan, admissible)
    expanded: list[str] = []
    planned = step["action"]
    if (
        preset.actor_commands > 1
        and admissible
        and not step.get(FROM_ACTOR)
        and _same(step["action"]) not in {_same(c) for c in admissible}
        and go_to_target(step["action"]) is None
    ):
        steps, update = expand_step(state, context, step, admissible)
        if steps:  # the step as several commands (or one valid one): the plan now holds them in its place
            plan, step = steps + plan[1:], steps[0]
            expanded = [s["action"] for s in steps]
    command = ground_command(step["action"], admissible) if admissible else step["action"]
    how = "expanded" if expanded else "grounded"
    extra: dict[str, Any] = {"into": expanded} if expanded else {}
    ruin = (
        ruinous(state["env"], command, state.get("inventory"))
        if preset.rules_shield and command and state.get("env")
        else None
    )
    instead = _explored_instead(state, session, step, command, update, preset) or _taken_first(
        step, command, admissible, update, preset
    )
    if instead is not None:
        return instead
    if state.get("replans", 0) < preset.max_replans and (
        back := _sent_back(state, context, session, step, command, ruin, admissible)
    ):
        return back
    repeated = repeated_here(state, context, session.run, command) is not None
    if admissible and (
        ruin
        or repeated
        or (command is not None and command in (state.get("avoid") or []))
        or (command is None and preset.strict_grounding)
    ):
        return _way_forward_instead(state, context, session, step, command, repeated, update)
    if command is None:  # the plan's command is not valid as written: the model picks the closest valid one
        command, update, how = _closest_valid(state, context, step, admissible, update)
    return {
        "command": command,
        "expected": step.get("expected") or None,
        "expected_reward": step.get("reward") or None,
        "plan": plan[1:],
        **update,
        "decided": grounding(planned, command, how, **extra),
    }


def _as_planned(step: dict[str, str], plan: list[dict[str, str]], admissible: list[str]) -> dict[str, Any]:
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
            step["action"], command or safe_command(admissible), "as_written" if command else "fallback"
        ),
    }


def _explored_instead(
    state: AgentState,
    session: Session,
    step: dict[str, str],
    command: str | None,
    update: dict[str, Any],
    preset: Preset,
) -> dict[str, Any] | None:
    """Pacing between places already seen (``explore`` presets): explore instead, when an exit not taken yet is left."""
    admissible = state.get("admissible") or []
    if not (preset.explore and command is not None and admissible and paced(state, session, command)):
        return None
    moves = explore_moves(state, session.memory)
    first = ground_command(moves[0]["action"], admissible) if moves else None
    if not moves or first is None or first == command:
        return None
    return {
        "command": first,
        "expected": moves[0]["expected"] or None,
        "plan": moves[1:],
        **update,
        "decided": grounding(step["action"], first, "explore", why=f"'{command}' was already played twice from here"),
    }


def _taken_first(
    step: dict[str, str], command: str | None, admissible: list[str], update: dict[str, Any], preset: Preset
) -> dict[str, Any] | None:
    """A step not valid now that names a thing that can be taken here (``strict_grounding``): take it first."""
    if command is not None or not preset.strict_grounding or not admissible:
        return None
    needed = take_first(step["action"], admissible)
    if needed is None:
        return None
    return {
        "command": needed,
        "expected": None,
        "plan": [],
        **update,
        "decided": grounding(step["action"], needed, "take first"),
    }


def _sent_back(
    state: AgentState,
    context: AgentContext,
    session: Session,
    step: dict[str, str],
    command: str | None,
    ruin: str | None,
    admissible: list[str],
) -> dict[str, Any] | None:
    """With replans left: the step back to the planner, saying why (no exit left to explore, not a valid command,
    ruled out by the game's rules, a repeat or a stall); None when the step may be played."""
    preset = context.switches
    if command is None and preset.explore and is_explore(step["action"]) and admissible:
        return sent_back(
            step["action"], "no exit is left that has not been taken: choose one of VALID COMMANDS", avoid=EXPLORE
        )
    if command is None and preset.strict_grounding and admissible:
        return sent_back(step["action"], not_valid_why(step["action"], admissible))
    if ruin:
        return sent_back(step["action"], f"'{command}' is ruled out: {ruin}; choose another", avoid=command)
    why = looped_or_stalled(state, context, session.run, command) if command is not None else None
    if why:
        return sent_back(step["action"], why, avoid=command if "already played" in why else None)
    return None


def _way_forward_instead(
    state: AgentState,
    context: AgentContext,
    session: Session,
    step: dict[str, str],
    command: str | None,
    repeated: bool,
    update: dict[str, Any],
) -> dict[str, Any]:
    """With the replans used up, a step that was sent back (or one played twice here already, which the planner was
    not offered) comes again: never mapped by a model to another command (it picks an unrelated one), but a way
    forward. A thing not here: search elsewhere; else first what changes nothing (the planner may see it anew),
    then, from the same situation again, a way out."""
    admissible = state.get("admissible") or []
    if command is None:
        update = with_issue(update, "actor", INADMISSIBLE)
    safe = safe_command(admissible)
    elsewhere = command is None and not mentioned_here(step["action"], state.get("observation") or "")
    played = (
        safe
        if tried_here(state, session.run).get(safe, (0, ""))[0] < 2 and not (elsewhere or repeated)
        else way_forward(state, context, session)
    )
    return {
        "command": played,
        "expected": None,
        "plan": [],
        **update,
        "decided": grounding(step["action"], played, "fallback"),
    }


def _closest_valid(
    state: AgentState, context: AgentContext, step: dict[str, str], admissible: list[str], update: dict[str, Any]
) -> tuple[str, dict[str, Any], str]:
    """The valid command closest to a step that is not one, as the model picks it: (command, update, how)."""
    how = "model"
    sections = {
        p.ENVIRONMENT: environment_section(state),
        p.ADMISSIBLE: admissible,
        p.OBSERVATION: state.get("observation", ""),
        p.PROPOSED_ACTION: step["action"],
    }
    schema = action_choice(admissible)
    choice, chosen = ask_structured(
        context,
        node="actor",
        schema=schema,
        system=ACTOR,
        sections=sections,
        fallback=schema(action=safe_command(admissible)),
        step=state.get("step", 0),
    )
    update = merged([update, chosen]) if update else chosen  # an expansion that came to nothing is counted too
    command = ground_command(choice.action, admissible)
    if fell_back(chosen):
        how = "fallback"
    if command is None:
        command, update, how = safe_command(admissible), with_issue(update, "actor", INADMISSIBLE), "fallback"
    return command, update, how


def _react(
    state: AgentState,
    context: AgentContext,
    session: Session,
    plan: list[dict[str, str]],
    admissible: list[str],
    places: list[str],
) -> dict[str, Any]:
    """ReAct decision (AriGraph's action selector, the react baseline): reason, then choose one
    admissible command, every step, from the working memory and the plan's next step if any. With
    ``go_to`` the choices also hold 'go to <place>' for places the KG's map reaches; choosing one
    plays its first move and keeps the rest as the plan."""
    sections = {
        **working_memory({**state, "plan": plan}, context, session.run),
        p.COMMANDS: None,
        p.PROPOSED_ACTION: plan[0]["action"] if plan else None,
        p.ADMISSIBLE: admissible + places,
    }
    fallback = plan[0]["action"] if plan else safe_command(admissible)
    if admissible:
        fallback = ground_command(fallback, admissible) or safe_command(admissible)
    schema = action_choice(admissible + places)
    choice, update = ask_structured(
        context,
        node="actor",
        schema=schema,
        system=REACT,
        sections=sections,
        fallback=schema(action=fallback),
        step=state.get("step", 0),
    )
    if places and go_to_target(choice.action) is not None:
        moves = expand_go_to(choice.action, state, session.memory)
        if moves:
            first = ground_command(moves[0]["action"], admissible)
            if first is not None:
                return {
                    "command": first,
                    "expected": moves[0]["expected"],
                    "plan": moves[1:],
                    "reason": choice.reasoning or None,
                    **update,
                    "decided": grounding(plan[0]["action"] if plan else None, first, "choice", chosen=choice.action),
                }
    command = ground_command(choice.action, admissible) if admissible else choice.action
    if command is None:  # only without the choices in the schema (too many to list)
        command, update = fallback, with_issue(update, "actor", INADMISSIBLE)
    followed = bool(plan) and command.lower() == " ".join(plan[0]["action"].lower().split())
    return {
        "command": command,
        "expected": plan[0].get("expected") or None if followed else None,
        "plan": plan[1:] if followed else plan,
        "reason": choice.reasoning or None,
        **update,
        "decided": grounding(
            plan[0]["action"] if plan else None, command, "fallback" if fell_back(update) else "choice"
        ),
    }
