"""Summarizer: keeps the agent's temporal belief (STMA §4.1) up to date with each observation. Ours rewrites its
previous belief with the last step; ``summary="trajectory"`` (``stma``) writes it afresh each time from the history
buffer alone (the last 25 steps, whole observations, with the critic's feedback), as STMA's appendix D.1 does;
``summary="paragraphs"`` (the ``summary`` baseline) rewrites the last summary in at most three paragraphs, as
AriGraph's summarization prompt (appendix E) does."""

from __future__ import annotations

from typing import Any

from langgraph.runtime import Runtime

from .. import prompting as p
from ..agent.context import AgentContext
from ..agent.presets import HISTORY_BUFFER
from ..agent.state import AgentState
from .common import ask_structured, environment_section, history_section
from .prompts import SUMMARIZER, SUMMARIZER_PARAGRAPHS, SUMMARIZER_TRAJECTORY
from .schemas import Belief, ParagraphSummary, TrajectorySummary

# Per ``summary`` switch value: the reply's schema and the role's prompt
# A trajectory summary's budget grows with the steps it tells (a line each, plus the texts read): a reply that loops
# runs to its cap, and a fixed 1000 tokens on a 4-step buffer cost a small local model about a minute a call
TRAJECTORY_TOKENS_BASE = 200
TRAJECTORY_TOKENS_PER_STEP = 40

SUMMARIES: dict[str, tuple[type[Belief], str]] = {
    "belief": (Belief, SUMMARIZER),
    "trajectory": (TrajectorySummary, SUMMARIZER_TRAJECTORY),
    "paragraphs": (ParagraphSummary, SUMMARIZER_PARAGRAPHS),
}


def summarizer(state: AgentState, runtime: Runtime[AgentContext]) -> dict[str, Any]:
    previous = state.get("belief") or ""
    switches = runtime.context.switches
    buffer = switches.summarizer_history  # STMA: the summarizer reads the history buffer
    history = state.get("history") or []
    afresh = switches.summary == "trajectory"
    budget = None
    if afresh:  # the buffer ends with this step's observation, which it tells like the others
        told = len(history[-(buffer or HISTORY_BUFFER) :])
        budget = min(TrajectorySummary.reply_tokens, TRAJECTORY_TOKENS_BASE + TRAJECTORY_TOKENS_PER_STEP * told)
        sections = {
            p.ENVIRONMENT: environment_section(state),
            p.GOAL: state.get("goal", ""),
            p.HISTORY: history_section(history, buffer or HISTORY_BUFFER, True),
        }
    else:
        sections = {
            p.ENVIRONMENT: environment_section(state),
            p.GOAL: state.get("goal", ""),
            p.HISTORY: history_section(history[:-1], buffer, True) if buffer else None,
            p.PREVIOUS_BELIEF: previous,
            p.LAST_ACTION: state.get("last_action") or p.EPISODE_START,
            p.OBSERVATION: state.get("observation", ""),
        }
    schema, system = SUMMARIES[switches.summary]
    belief, update = ask_structured(
        runtime.context,
        node="summarizer",
        schema=schema,
        system=system,
        sections=sections,
        fallback=schema(belief=previous),
        step=state.get("step", 0),
        reply_tokens=budget,
    )
    return {"belief": belief.belief, "decided": {"belief": belief.belief}, **update}
