"""World-model QA node: the inner monologue before planning (DAVIS §3.4), via the QA graph."""

from __future__ import annotations

from typing import Any

from langgraph.runtime import Runtime

from .. import prompting as p
from ..graphs.context import AgentContext
from ..graphs.qa import run_inner_monologue
from ..graphs.session import open_session
from ..graphs.state import AgentState
from .common import environment_section, role_messages
from .planner import extra_commands
from .prompts import WORLD_MODEL_QA


def world_model_qa(state: AgentState, runtime: Runtime[AgentContext]) -> dict[str, Any]:
    open_session(runtime.context.run_dir, state, create=False)  # the QA tools must read the live memory
    sections = {
        p.ENVIRONMENT: environment_section(state),
        p.GOAL: state.get("goal", ""),
        p.COMMANDS: extra_commands(runtime.context.switches),
        p.BELIEF: state.get("belief", ""),
        p.LOCATION: state.get("location") or p.UNKNOWN,
        p.INVENTORY: p.inventory_text(state.get("inventory")),
        p.PLAN: p.plan_lines(state.get("plan")),
        p.FEEDBACK: state.get("feedback") or p.NONE,
    }
    result = run_inner_monologue({"messages": role_messages(WORLD_MODEL_QA, sections), "run_id": state["run_id"]}, runtime)
    answer = result.get("answer") or ""
    notes = [line.strip("- ").strip() for line in answer.splitlines() if line.strip()]
    return {"notes": notes, "usage": result.get("usage", {}), "replies": result.get("replies", {})}
