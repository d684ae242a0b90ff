"""Planner: the subgoal and the next actions with expected outcomes. It runs only when there is no
plan, the plan is used up, or the critic sent it back — AgentKit's gate that saves most calls."""

from __future__ import annotations

from typing import Any

from langgraph.runtime import Runtime

from .. import prompting as p
from ..graphs.context import AgentContext
from ..graphs.state import AgentState
from .common import ask_structured, first_line
from .prompts import PLANNER
from .schemas import Plan, PlanStep
from .world_model_qa import plan_lines


def fallback_plan(state: AgentState) -> Plan:
    """When no valid plan comes back: look around, which is always safe and shows the exits."""
    admissible = state.get("admissible") or []
    action = "look" if "look" in admissible or not admissible else admissible[0]
    return Plan(subgoal="recover: look around", reasoning="fallback", steps=[PlanStep(action=action)])


def planner_sections(state: AgentState, context: AgentContext) -> dict[str, object]:
    history = state.get("history") or []
    return {
        p.GOAL: state.get("goal", ""),
        p.OBSERVATION: state.get("observation", ""),
        p.LOCATION: state.get("location") or "(unknown)",
        p.INVENTORY: ", ".join(state.get("inventory") or []) or "(unknown)",
        p.ADMISSIBLE: state.get("admissible") or [],
        p.BELIEF: state.get("belief", ""),
        p.MEMORY: state.get("memory_text") or [],
        p.EPISODES: state.get("episodes_text") or [],
        p.SPATIAL: state.get("spatial_belief") or "(none)",
        p.EXPLORATION: state.get("unexplored") or [],
        p.NOTES: state.get("notes") or [],
        p.PLAN: plan_lines(state.get("plan")),
        p.FEEDBACK: state.get("feedback") or "(none)",
        p.REFLECTIONS: state.get("reflections") or [],
        p.HISTORY: [f"{h['action']} -> {first_line(h['observation'])}" for h in history[-context.history_length:]],
    }


def planner(state: AgentState, runtime: Runtime[AgentContext]) -> dict[str, Any]:
    plan, update = ask_structured(runtime.context, node="planner", role="planner", schema=Plan, system=PLANNER,
                                  sections=planner_sections(state, runtime.context), fallback=fallback_plan(state),
                                  step=state.get("step", 0))
    steps = [s.model_dump() for s in plan.steps if s.action.strip()] or [s.model_dump() for s in fallback_plan(state).steps]
    return {"plan": steps, "subgoal": plan.subgoal, "needs_plan": False, "feedback": None,
            "replans": state.get("replans", 0) + 1, **update}
