"""Planner: the subgoal and the next actions with expected outcomes. By default it runs only when
there is no plan, the plan is used up, or the critic sent it back — AgentKit's gate that saves most
calls; presets that reproduce AriGraph and the baselines plan every step."""

from __future__ import annotations

from typing import Any

from langgraph.runtime import Runtime

from .. import prompting as p
from ..agent.context import AgentContext
from ..agent.records import feedback_text
from ..agent.session import Session
from ..agent.state import AgentState
from ..envs.text import safe_command
from .choice import choose_command
from .common import (
    BY_FALLBACK,
    BY_MODEL,
    BY_ORACLE,
    ask_structured,
    fell_back,
    working_memory,
)
from .prompts import PLANNER_GOALS, planner_prompt, rollout_prompt
from .schemas import GoalPlan, Plan, StepReply, SubGoal


def fallback_plan(state: AgentState) -> Plan:
    """When no valid plan comes back: look around, which is always safe and shows the exits."""
    action = safe_command(state.get("admissible") or [])
    return Plan(subgoal="recover: look around", reasoning="fallback", steps=[StepReply(action=action)])


def oracle_plan(state: AgentState, context: AgentContext, session: Session) -> dict[str, Any]:
    """ORACLE (``oracle_plan``, evaluation only): the next commands of the game's winning path from where
    it is; no model call."""
    policy = session.observation.oracle.policy
    if not policy and not state.get("done"):
        raise ValueError(
            f"oracle_plan needs a game that knows its winning commands from any state (TextWorld); {state.get('env')} "
            f"does not"
        )
    steps = [{"action": command, "expected": "", "by": BY_ORACLE} for command in policy[: context.switches.plan_length]]
    return {
        "plan": steps,
        "subgoal": "the winning path (oracle)",
        "needs_plan": False,
        "feedback": None,
        "replans": state.get("replans", 0) + 1,
        "decided": {"plans": [{"subgoal": "oracle", "steps": [s["action"] for s in steps]}]},
    }


def imagine_step(state: AgentState, context: AgentContext, session: Session) -> dict[str, Any]:
    """DAVIS's algorithm 1, line 3: the policy chooses the next step of the imagined trajectory from the belief, the
    steps imagined so far with their predicted outcomes, and the notes of the world model's monologue; the world
    model then predicts its outcome (nodes/world_model_qa.predict_rollout_step) and, until L steps are imagined,
    hands back here."""
    preset = context.switches
    rollout = list(state.get("rollout") or [])
    plan, update = ask_structured(
        context,
        node="planner",
        schema=Plan,
        system=rollout_prompt(preset.expected_rewards),
        sections={
            **working_memory(state, context, session),
            p.NOTES: (state.get("notes") or []) if rollout else [],  # the monologue of this rollout only
            p.PREDICTED: p.prediction_lines(rollout) or p.NONE,
        },
        fallback=fallback_plan(state),
        step=state.get("step", 0),
    )
    by = BY_FALLBACK if fell_back(update, "planner") else BY_MODEL
    step = next((s for s in plan.steps if s.action.strip()), None) or fallback_plan(state).steps[0]
    keep = ("action", "expected", "reward") if preset.expected_rewards else ("action", "expected")
    imagined = {**{k: getattr(step, k) for k in keep}, "by": by}
    return {
        "rollout": [*rollout, imagined],
        "decided": {"imagined": [{"subgoal": plan.subgoal, "action": imagined["action"]}]},
        "subgoal": plan.subgoal,
        "reason": plan.reasoning or None,
        "needs_plan": False,
        "feedback": None,
        # a rollout is one plan: its first step counts as the replan, the others continue it
        "replans": state.get("replans", 0) + (0 if rollout else 1),
        **({"notes": []} if not rollout else {}),
        **update,
    }


def goal_plan(state: AgentState, context: AgentContext, session: Session) -> dict[str, Any]:
    """AriGraph's planner (appendix E): the main goal and sub-goals, each with its progress; the sub-goals are the
    plan's steps, which the ReAct choice reads and turns into a command (the first is the step's subgoal)."""
    # an unusable reply keeps the sub-goals the plan has (their wording is what the prompt asks to keep)
    held = [SubGoal(sub_goal=s["action"], reason=s.get("expected") or "") for s in state.get("plan") or []]
    fallback = GoalPlan(
        main_goal=state.get("goal", ""), plan_steps=held or [SubGoal(sub_goal=fallback_plan(state).subgoal)]
    )
    planned, update = ask_structured(
        context,
        node="planner",
        schema=GoalPlan,
        system=PLANNER_GOALS,
        sections=working_memory(state, context, session),
        fallback=fallback,
        step=state.get("step", 0),
    )
    goals = [g for g in planned.plan_steps if g.sub_goal.strip()] or fallback.plan_steps
    by = BY_FALLBACK if fell_back(update, "planner") else BY_MODEL
    kept = [{"action": g.sub_goal, "expected": g.reason, "by": by} for g in goals[: context.switches.plan_length]]
    # sub-goals, not commands: the diagnostics that ground a plan's steps as commands do not read them
    written = {"subgoal": kept[0]["action"], "main_goal": planned.main_goal, "sub_goals": [s["action"] for s in kept]}
    return {
        "plan": kept,
        "decided": {
            "plans": [{**written, "feedback": feedback_text(state.get("feedback")), "emotion": planned.emotion}]
        },
        "subgoal": kept[0]["action"],
        "reason": kept[0]["expected"] or None,
        "needs_plan": False,
        "feedback": None,
        "replans": state.get("replans", 0) + 1,
        **update,
    }


def planner(state: AgentState, runtime: Runtime[AgentContext], session: Session) -> dict[str, Any]:
    context = runtime.context
    preset = context.switches
    if preset.oracle_plan:
        return oracle_plan(state, context, session)
    if preset.monologue == "rollout" and preset.qa_turns != 0 and not preset.plan_choice:
        return imagine_step(state, context, session)
    if preset.plan_form == "goals":
        return goal_plan(state, context, session)
    if preset.plan_choice:
        plan, update, by = choose_command(state, context, session)
    else:
        system = planner_prompt(preset.plan_length, preset.expected_rewards)
        plan, update = ask_structured(
            context,
            node="planner",
            schema=Plan,
            system=system,
            sections=working_memory(state, context, session),
            fallback=fallback_plan(state),
            step=state.get("step", 0),
        )
        by = BY_FALLBACK if fell_back(update, "planner") else BY_MODEL
    steps = [s for s in plan.steps if s.action.strip()] or fallback_plan(state).steps
    keep = ("action", "expected", "reward") if preset.expected_rewards else ("action", "expected")
    kept = [{**{k: getattr(s, k) for k in keep}, "by": by} for s in steps[: preset.plan_length]]
    written = update.pop("written", None)
    choice = update.pop("choice", None)  # the controller's candidates and what was chosen (nodes/choice.py)
    question = update.pop("question", None)  # the task's question asked this step, and the answer (nodes/worked_out.py)
    decided: dict[str, Any] = {
        "plans": [
            {
                "subgoal": plan.subgoal,
                "steps": [s["action"] for s in kept],
                "feedback": feedback_text(state.get("feedback")),
                **({"written": written} if written else {}),
            }
        ],
        **({"choices": [choice]} if choice else {}),
        **({"questions": [question]} if question else {}),
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
