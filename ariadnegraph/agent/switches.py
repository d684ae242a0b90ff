"""Switches set by hand (``--set SWITCH=VALUE``, a server client's context) read and bounded, and a preset's switches
checked when it is built: a switch that cannot play as the others are set, an oracle whose role never runs or whose
game gives no truth, is refused in one line before a run exists (:func:`check_switches`)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, Literal, get_args, get_origin, get_type_hints

from .presets import (
    HISTORY_BUFFER,
    OPEN_RELATION_READS,
    ORACLE_SWITCHES,
    RENAMED_SWITCHES,
    SWITCHES,
    Preset,
    current_names,
)


class SwitchesRefused(ValueError):
    """Switches that cannot play as set: nothing chooses the commands, or an oracle the preset or the game cannot
    use (it would change nothing, yet label the run ORACLE)."""


# What each oracle replaces, and the presets' switches without which that role never runs.
_ORACLE_ROLE = {
    "oracle_extraction": "the relation retriever's extraction",
    "oracle_plan": "the planner's plan",
}


def _unplayable(preset: Preset) -> list[tuple[str, str]]:
    """Switches that would do nothing, or something else than they say, with the others as set (each with why)."""
    found = []
    if preset.plan_form == "goals" and not (
        preset.planner == "every_step" and preset.react_choice and not preset.plan_choice and not preset.thoughts
    ):
        found.append(
            (
                "plan_form",
                "would not play: sub-goals are turned into commands by the ReAct choice and replanned every step "
                "(it needs planner=every_step and react_choice=true, with plan_choice=false and no thought graph)",
            )
        )
    if preset.random_walk and (preset.planner != "never" or preset.thoughts or preset.exploration_check):
        found.append(
            (
                "random_walk",
                "would still ask the model for what the draw throws away (it needs planner=never, "
                "exploration_check=false and no thought graph)",
            )
        )
    if not preset.choice_reasoning and not preset.react_choice:
        found.append(("choice_reasoning", "would change nothing: it is the ReAct choice's (react_choice=false)"))
    if preset.safety_check and (not preset.predicts or (preset.monologue == "rollout" and preset.plan_choice)):
        found.append(
            (
                "safety_check",
                "would check nothing: no trajectory is predicted (it needs qa_turns above 0 and monologue=transitions, "
                "or monologue=rollout with plan_choice=false)",
            )
        )
    if preset.open_relations and preset.extraction_reads not in OPEN_RELATION_READS:
        found.append(("open_relations", "would change nothing: only the observation's extraction words open relations"))
    if preset.coreference and preset.extraction_reads == "belief_only":
        found.append(("coreference", "would change nothing: the extraction reads no observation (belief_only)"))
    if preset.follow_lists and not (preset.pin_readings and preset.progress_shown) and not preset.object_memory:
        found.append(
            (
                "follow_lists",
                "would change nothing: the next step is a list's item, read from the texts kept and the commands that "
                "raised the score, or a lock a text said a held key opens (it needs pin_readings=true and "
                "progress_shown=true, or object_memory=true)",
            )
        )
    return found


def check_switches(preset_name: str, preset: Preset, env: str | None = None, memory_from: str | None = None) -> None:
    """Refused in one line before a run is created: switches that leave no role choosing the commands (no planner,
    no ReAct choice, no thought graph: the actor would play its safe command every step, with no model call); an
    oracle switch on a preset that never runs its role (no extraction: ``knowledge_graph`` off; no planner:
    ``planner=never`` or a thought graph choosing the commands), or on a game that does not give the truth it reads
    (``env``, when known); with ``env`` known (a run about to play), RAP's retrieval with no namespace of gold runs
    (``memory_from``) to retrieve from."""
    if preset.planner == "never" and not preset.react_choice and not preset.thoughts and not preset.random_walk:
        raise SwitchesRefused(
            f"preset '{preset_name}' as set has nothing that chooses a command (planner=never, react_choice=false, "
            "no thought graph): every step would play the same safe command with no model call"
        )
    idle = {
        "oracle_extraction": "knowledge_graph=false" if not preset.knowledge_graph else "",
        "oracle_plan": "planner=never"
        if preset.planner == "never"
        else "a thought graph chooses its commands"
        if preset.thoughts
        else "",
    }
    for switch in ORACLE_SWITCHES:
        if getattr(preset, switch) and idle[switch]:
            raise SwitchesRefused(
                f"switch '{switch}' replaces {_ORACLE_ROLE[switch]}, which preset '{preset_name}' never runs "
                f"({idle[switch]}): it would change nothing but the run's label"
            )
    for switch, problem in _unplayable(preset):
        raise SwitchesRefused(f"switch '{switch}' {problem} (preset '{preset_name}' as set)")
    if env is not None and preset.retrieval == "rap" and not memory_from:
        raise SwitchesRefused(
            f"preset '{preset_name}' retrieves moments of gold runs (retrieval=rap): give --memory-from AGENT, a "
            "namespace `ariadne memory seed-gold` filled for this game's family"
        )
    if env is not None and any(getattr(preset, switch) for switch in ORACLE_SWITCHES):
        from ..envs.registry import gives_truth

        if not gives_truth(env):
            on = [switch for switch in ORACLE_SWITCHES if getattr(preset, switch)]
            raise SwitchesRefused(
                f"switch '{on[0]}' reads the game's truth (its true facts and winning commands), which only "
                f"TextWorld games give; {env} gives none"
            )


_MINIMUM = {"plan_length": 1, "actor_commands": 1, "search_width": 1, "trials": 1}  # a plan of no action is no plan


# Bounds of the number switches (a switch is also a server client's request): the state keeps STMA's buffer of
# summarizer_history steps (agent/state.py), a plan at most 8 steps (nodes/schemas.Plan); the rest far past any paper's.
_MAXIMUM = {
    "summarizer_history": HISTORY_BUFFER,
    "plan_length": 8,
    "episodic_k": 100,
    "stma_n": 100,
    "stma_hops": 10,
    "history_length": 100_000,
    "qa_turns": 20,
    "stall_steps": 100_000,
    "actor_commands": 8,
    "max_replans": 10,
    "search_depth": 10,
    "search_width": 100,
    "memory_facts": 1000,
    "trials": 100,
}


def _allowed(name: str) -> str:
    kind = get_type_hints(Preset)[name]
    choices = get_args(kind)
    if get_origin(kind) is Literal:
        return " or ".join(choices)
    if kind is bool:
        return "true or false"
    bounds = (
        f" from {_MINIMUM.get(name, 0)} to {_MAXIMUM[name]:,}"
        if name in _MAXIMUM
        else f" >= {_MINIMUM[name]}"
        if name in _MINIMUM
        else ""
    )
    return (
        " or ".join("none" if c is type(None) else "text" if c is str else c.__name__ + bounds for c in choices)
        if choices
        else kind.__name__ + bounds
    )


def parse_switch(name: str, value: Any) -> Any:
    """``value`` (text from a command line, or already typed) as switch ``name``'s type; ValueError
    naming the allowed values otherwise."""
    if name not in SWITCHES:
        raise ValueError(f"unknown switch '{name}' (switches: {', '.join(SWITCHES)})")
    kind = get_type_hints(Preset)[name]
    text = str(value).strip().lower()
    if not text:  # '--set thoughts=' would play with no thought graph and no planner: noop every step
        raise ValueError(f"switch '{name}' is given no value (it takes {_allowed(name)})")
    options = get_args(kind)
    if get_origin(kind) is Literal:
        if text in options:
            return text
    elif kind is bool:
        if isinstance(value, bool):
            return value
        if text in ("true", "on", "yes", "1", "false", "off", "no", "0"):
            return text in ("true", "on", "yes", "1")
    else:
        if type(None) in options and text in ("none", "null", "all"):
            return None
        try:
            number = int(text)
        except ValueError:
            number = None
        if (
            number is not None
            and _MINIMUM.get(name, 0) <= number <= _MAXIMUM.get(name, number)
            and int in (options or (kind,))
        ):
            return number
        if str in options and isinstance(value, str):
            return value
    raise ValueError(f"switch '{name}' takes {_allowed(name)}, got {value!r}")


def parse_switches(assignments: Sequence[str] | dict[str, Any] | None) -> dict[str, Any]:
    """``["critic_off=...", "qa_turns=0"]`` (``--set``) or a mapping, checked and typed."""
    if not assignments:
        return {}
    if isinstance(assignments, dict):
        return {name: parse_switch(name, value) for name, value in current_names(assignments).items()}
    parsed: dict[str, Any] = {}
    for item in assignments:
        name, sep, value = item.partition("=")
        if not sep or not name.strip():
            raise ValueError(f"--set takes SWITCH=VALUE, got {item!r} (switches: {', '.join(SWITCHES)})")
        name = RENAMED_SWITCHES.get(name.strip(), name.strip())
        parsed[name] = parse_switch(name, value)
    return parsed
