"""Memory update: store this step's observation and facts in the temporal KG (closing outdated ones).

Idempotent per step, so a run resumed after a crash between this write and its checkpoint does not
record the step twice. At the end of the episode it also writes the result and releases the game.
"""

from __future__ import annotations

from typing import Any

from langgraph.runtime import Runtime

from ..graphs.context import AgentContext
from ..graphs.session import close_session, open_session
from ..graphs.state import AgentState


def memory_update(state: AgentState, runtime: Runtime[AgentContext]) -> dict[str, Any]:
    session = open_session(runtime.context.run_dir, state, create=False)
    memory, step = session.memory, state.get("step", 0)
    if step not in memory.episodes:
        triplets = [tuple(t) for t in state.get("extraction", []) if len(t) == 3 and all(str(x).strip() for x in t)]
        outdated = [tuple(t) for t in state.get("outdated", []) if len(t) == 3]
        memory.observe(step, state.get("observation", ""), triplets, outdated, action=state.get("last_action"))
    if state.get("done"):
        finish(state, session)
    return {"extraction": [], "outdated": []}


def finish(state: AgentState, session) -> None:
    """Write the episode's result into run.json and release the game and the memory."""
    result = {key: state.get(key) for key in ("score", "max_score", "won", "lost", "step")}
    result["steps"] = result.pop("step")
    result["usage"] = state.get("usage", {})
    result["replies"] = state.get("replies", {})
    session.run.write_meta({**session.run.meta(), "result": result})
    close_session(state["run_id"])
