"""Planner: the subgoal and the next actions with expected outcomes. By default it runs only when
there is no plan, the plan is used up, or the critic sent it back — AgentKit's gate that saves most
calls; presets that reproduce AriGraph and the baselines plan every step."""

from __future__ import annotations

from typing import Any

from langgraph.runtime import Runtime

from .. import prompting as p
from ..envs.text import safe_command
from ..graphs.context import AgentContext
from ..graphs.presets import Preset
from ..graphs.state import AgentState
from .common import ask_structured, environment_section, history_section
from .prompts import GO_TO_COMMAND, planner_prompt
from .schemas import Plan, PlanStep


def fallback_plan(state: AgentState) -> Plan:
    """When no valid plan comes back: look around, which is always safe and shows the exits."""
    action = safe_command(state.get("admissible") or [])
    return Plan(subgoal="recover: look around", reasoning="fallback", steps=[PlanStep(action=action)])


def extra_commands(preset: Preset) -> list[str] | None:
    """The EXTRA COMMANDS section: 'go to' where the actor expands it on the KG's map."""
    return [GO_TO_COMMAND] if preset.go_to else None


def working_memory(state: AgentState, context: AgentContext, preset: Preset | None = None) -> dict[str, object]:
    """What the preset shows its deciding roles (planner, ReAct actor); sections it lacks are left out."""
    preset = preset or context.switches
    history = preset.history if preset.history is None else min(preset.history, context.history_length) if preset.history else 0
    return {
        p.ENVIRONMENT: environment_section(state),
        p.GOAL: state.get("goal", ""),
        p.COMMANDS: extra_commands(preset),
        p.OBSERVATION: state.get("observation", ""),
        p.LOCATION: state.get("location") or p.UNKNOWN,
        p.INVENTORY: p.inventory_text(state.get("inventory")),
        p.ADMISSIBLE: state.get("admissible") or [],
        p.BELIEF: state.get("belief", "") if preset.summarizer else None,
        p.MEMORY: (state.get("memory_text") or []) if preset.memory_facts_shown else None,
        p.EPISODES: (state.get("episodes_text") or []) if preset.retrieval in ("arigraph", "rag") else None,
        p.SPATIAL: (state.get("spatial_belief") or p.NONE) if preset.aggregator != "off" else None,
        p.EXPLORATION: (state.get("unexplored") or []) if preset.unexplored_exits else None,
        p.NOTES: (state.get("notes") or []) if preset.qa_turns != 0 else None,
        p.PLAN: p.plan_lines(state.get("plan")),
        p.FEEDBACK: state.get("feedback") or p.NONE,
        p.REFLECTIONS: (state.get("reflections") or []) if preset.reflections else None,
        # the whole episode only grows (cache-friendly, early); a window slides every step (late)
        p.FULL_HISTORY if history is None else p.HISTORY:
            history_section(state.get("history"), history, preset.history_full_text) if history != 0 else None,
    }


def planner(state: AgentState, runtime: Runtime[AgentContext]) -> dict[str, Any]:
    context = runtime.context
    preset = context.switches
    system = planner_prompt(preset.plan_length, preset.expected_rewards)
    plan, update = ask_structured(context, node="planner", role="planner", schema=Plan, system=system,
                                  sections=working_memory(state, context), fallback=fallback_plan(state), step=state.get("step", 0))
    steps = [s for s in plan.steps if s.action.strip()] or fallback_plan(state).steps
    keep = ("action", "expected", "reward") if preset.expected_rewards else ("action", "expected")
    return {"plan": [{k: getattr(s, k) for k in keep} for s in steps[:preset.plan_length]], "subgoal": plan.subgoal,
            "needs_plan": False, "feedback": None, "replans": state.get("replans", 0) + 1, **update}
