"""Planner: the subgoal and the next actions with expected outcomes. By default it runs only when
there is no plan, the plan is used up, or the critic sent it back — AgentKit's gate that saves most
calls; presets that reproduce AriGraph and the baselines plan every step."""

from __future__ import annotations

from typing import Any

from langgraph.runtime import Runtime

from .. import prompting as p
from ..agent.context import AgentContext
from ..agent.session import live_session
from ..agent.state import AgentState
from ..envs.text import ground_command, safe_command
from .common import ask_structured, go_to_choices, working_memory
from .prompts import PLAN_CHOICE, planner_prompt
from .schemas import Decision, Plan, PlanStep


def fallback_plan(state: AgentState) -> Plan:
    """When no valid plan comes back: look around, which is always safe and shows the exits."""
    action = safe_command(state.get("admissible") or [])
    return Plan(subgoal="recover: look around", reasoning="fallback", steps=[PlanStep(action=action)])


def oracle_plan(state: AgentState, context: AgentContext) -> dict[str, Any]:
    """ORACLE (``oracle_plan``, evaluation only): the next commands of the game's winning path from where
    it is; no model call."""
    policy = live_session(state, context).observation.oracle.policy
    if not policy and not state.get("done"):
        raise ValueError(f"oracle_plan needs a game that knows its winning commands from any state (TextWorld); {state.get('env')} does not")
    steps = [{"action": command, "expected": ""} for command in policy[:context.switches.plan_length]]
    return {"plan": steps, "subgoal": "the winning path (oracle)", "needs_plan": False, "feedback": None,
            "replans": state.get("replans", 0) + 1, "decided": {"plans": [{"subgoal": "oracle", "steps": [s["action"] for s in steps]}]}}


def _choose_plan(state: AgentState, context: AgentContext) -> tuple[Plan, dict[str, Any]]:
    """``plan_choice``: a sentence of reasoning, then the next command, written out (after a thought, a small
    model writes the command it means; forced into an enum of commands, or asked for a number in a long list,
    it lands on another one); a plan of that one step, which the actor plays when it is a valid command or
    sends back when not. The known places to go to are offered beside the valid commands."""
    avoid = set(state.get("avoid") or [])
    admissible = [c for c in state.get("admissible") or [] if c not in avoid] or state.get("admissible") or []
    places = go_to_choices(state, live_session(state, context).memory) if context.switches.go_to and admissible else []
    fallback = fallback_plan(state).steps[0].action
    chosen, update = ask_structured(context, node="planner", role="planner", schema=Decision, system=PLAN_CHOICE,
                                    sections={**working_memory(state, context), p.ADMISSIBLE: [*admissible, *places]},
                                    fallback=Decision(reasoning="no usable reply: a command that changes nothing", action=fallback),
                                    step=state.get("step", 0))
    command = ground_command(chosen.action, [*admissible, *places]) or chosen.action
    return Plan(subgoal=chosen.reasoning, reasoning=chosen.reasoning, steps=[PlanStep(action=command)]), update


def planner(state: AgentState, runtime: Runtime[AgentContext]) -> dict[str, Any]:
    context = runtime.context
    preset = context.switches
    if preset.oracle_plan:
        return oracle_plan(state, context)
    if preset.plan_choice:
        plan, update = _choose_plan(state, context)
    else:
        system = planner_prompt(preset.plan_length, preset.expected_rewards)
        plan, update = ask_structured(context, node="planner", role="planner", schema=Plan, system=system,
                                      sections=working_memory(state, context), fallback=fallback_plan(state), step=state.get("step", 0))
    steps = [s for s in plan.steps if s.action.strip()] or fallback_plan(state).steps
    keep = ("action", "expected", "reward") if preset.expected_rewards else ("action", "expected")
    kept = [{k: getattr(s, k) for k in keep} for s in steps[:preset.plan_length]]
    decided = {"plans": [{"subgoal": plan.subgoal, "steps": [s["action"] for s in kept], "feedback": state.get("feedback")}]}
    return {"plan": kept, "decided": decided, "subgoal": plan.subgoal,
            "reason": plan.reasoning or None, "needs_plan": False, "feedback": None, "replans": state.get("replans", 0) + 1, **update}
