"""Planner: the subgoal and the next actions with expected outcomes. By default it runs only when
there is no plan, the plan is used up, or the critic sent it back — AgentKit's gate that saves most
calls; presets that reproduce AriGraph and the baselines plan every step."""

from __future__ import annotations

from typing import Any

from langgraph.runtime import Runtime

from ..agent.context import AgentContext
from ..agent.state import AgentState
from ..envs.text import safe_command
from .common import ask_structured, working_memory
from .prompts import planner_prompt
from .schemas import Plan, PlanStep


def fallback_plan(state: AgentState) -> Plan:
    """When no valid plan comes back: look around, which is always safe and shows the exits."""
    action = safe_command(state.get("admissible") or [])
    return Plan(subgoal="recover: look around", reasoning="fallback", steps=[PlanStep(action=action)])


def planner(state: AgentState, runtime: Runtime[AgentContext]) -> dict[str, Any]:
    context = runtime.context
    preset = context.switches
    system = planner_prompt(preset.plan_length, preset.expected_rewards)
    plan, update = ask_structured(context, node="planner", role="planner", schema=Plan, system=system,
                                  sections=working_memory(state, context), fallback=fallback_plan(state), step=state.get("step", 0))
    steps = [s for s in plan.steps if s.action.strip()] or fallback_plan(state).steps
    keep = ("action", "expected", "reward") if preset.expected_rewards else ("action", "expected")
    return {"plan": [{k: getattr(s, k) for k in keep} for s in steps[:preset.plan_length]], "subgoal": plan.subgoal,
            "reason": plan.reasoning or None, "needs_plan": False, "feedback": None, "replans": state.get("replans", 0) + 1, **update}
