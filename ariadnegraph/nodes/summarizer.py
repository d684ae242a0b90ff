"""Summarizer: keeps the agent's temporal belief (STMA §4.1) up to date with each observation; under
``stma`` it also reads the history buffer (the last 25 steps, whole observations)."""

from __future__ import annotations

from typing import Any

from langgraph.runtime import Runtime

from .. import prompting as p
from ..agent.context import AgentContext
from ..agent.state import AgentState
from .common import ask_structured, environment_section, history_section
from .prompts import SUMMARIZER
from .schemas import Belief


def summarizer(state: AgentState, runtime: Runtime[AgentContext]) -> dict[str, Any]:
    previous = state.get("belief") or ""
    buffer = runtime.context.switches.summarizer_history  # STMA: the summarizer reads the history buffer
    sections = {
        p.ENVIRONMENT: environment_section(state),
        p.GOAL: state.get("goal", ""),
        p.HISTORY: history_section((state.get("history") or [])[:-1], buffer, True) if buffer else None,
        p.PREVIOUS_BELIEF: previous,
        p.LAST_ACTION: state.get("last_action") or p.EPISODE_START,
        p.OBSERVATION: state.get("observation", ""),
    }
    belief, update = ask_structured(
        runtime.context,
        node="summarizer",
        schema=Belief,
        system=SUMMARIZER,
        sections=sections,
        fallback=Belief(belief=previous),
        step=state.get("step", 0),
    )
    return {"belief": belief.belief, "decided": {"belief": belief.belief}, **update}
