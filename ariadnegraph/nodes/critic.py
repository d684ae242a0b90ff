"""Critic: checks the last action's outcome against its expectation (DAVIS) and the next planned
action before it runs (STMA); either failure sends the planner back to work with feedback."""

from __future__ import annotations

from typing import Literal

from langgraph.runtime import Runtime
from langgraph.types import Command

from .. import prompting as p
from ..graphs.context import AgentContext
from ..graphs.state import AgentState
from .common import ask_structured
from .prompts import CRITIC
from .schemas import Critique


def critic(state: AgentState, runtime: Runtime[AgentContext]) -> Command[Literal["planner", "actor"]]:
    context = runtime.context
    plan = state.get("plan") or []
    proposed = plan[0]["action"] if plan else "look"
    expected = state.get("expected")
    sections = {
        p.GOAL: state.get("goal", ""),
        p.OBSERVATION: state.get("observation", ""),
        p.ADMISSIBLE: state.get("admissible") or [],
        p.BELIEF: state.get("belief", ""),
        p.LAST_ACTION: state.get("last_action") or "(none)",
        p.EXPECTED: expected or "(nothing expected)",
        p.ACTUAL: state.get("observation", "") if expected else "(not checked)",
        p.PROPOSED_ACTION: proposed,
    }
    verdict, update = ask_structured(context, node="critic", role="critic", schema=Critique, system=CRITIC, sections=sections,
                                     fallback=Critique(outcome_matches=True, action_approved=True), step=state.get("step", 0))
    update["expected"] = None  # an outcome is judged once
    can_replan = state.get("replans", 0) < context.max_replans
    if expected and not verdict.outcome_matches and can_replan:
        reflection = f"step {state.get('step', 0)}: '{state.get('last_action')}' was expected to give '{expected}' but did not. {verdict.feedback}".strip()
        return Command(goto="planner", update={**update, "plan": [], "feedback": verdict.feedback or reflection, "reflections": [reflection]})
    if not verdict.action_approved and can_replan:
        return Command(goto="planner", update={**update, "feedback": f"'{proposed}' was rejected: {verdict.feedback}".strip()})
    return Command(goto="actor", update=update)
