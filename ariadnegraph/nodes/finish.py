"""Finish: the episode is over (its last observation is in memory). Writes the result into run.json; the
graph then releases the game and the memory (graphs/agent.py)."""

from __future__ import annotations

from typing import Any

from langgraph.runtime import Runtime

from ..agent.context import AgentContext
from ..agent.session import Session
from ..agent.state import AgentState

RESULT_KEYS = ("score", "max_score", "won", "lost", "step")


def finish(state: AgentState, runtime: Runtime[AgentContext], session: Session) -> dict[str, Any]:
    run = session.run
    result: dict[str, Any] = {key: state.get(key) for key in RESULT_KEYS}
    result["steps"] = result.pop("step")
    result["usage"] = state.get("usage", {})
    result["replies"] = state.get("replies", {})
    if state.get("stopped"):
        result["stopped"] = True  # by a person, at an approval
    run.write_meta({**run.meta(), "result": result})
    return {}
