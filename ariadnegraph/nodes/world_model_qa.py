"""World-model QA node: the inner monologue before planning (DAVIS §3.4), via the QA graph."""

from __future__ import annotations

from typing import Any

from langchain_core.messages import HumanMessage, SystemMessage
from langgraph.runtime import Runtime

from .. import prompting as p
from ..graphs.context import AgentContext
from ..graphs.qa import run_inner_monologue
from ..graphs.session import open_session
from ..graphs.state import AgentState
from .prompts import WORLD_MODEL_QA


def plan_lines(plan: list[dict[str, str]] | None) -> list[str]:
    return [f"{s['action']} (expect: {s.get('expected') or 'anything'})" for s in plan or []]


def world_model_qa(state: AgentState, runtime: Runtime[AgentContext]) -> dict[str, Any]:
    open_session(runtime.context.run_dir, state, create=False)  # the QA tools must read the live memory
    sections = {
        p.GOAL: state.get("goal", ""),
        p.BELIEF: state.get("belief", ""),
        p.LOCATION: state.get("location") or "(unknown)",
        p.INVENTORY: ", ".join(state.get("inventory") or []) or "(unknown)",
        p.PLAN: plan_lines(state.get("plan")),
        p.FEEDBACK: state.get("feedback") or "(none)",
    }
    messages = [SystemMessage(content=WORLD_MODEL_QA), HumanMessage(content=p.render_sections(sections))]
    result = run_inner_monologue({"messages": messages, "run_id": state["run_id"]}, runtime)
    answer = result.get("answer") or ""
    notes = [line.strip("- ").strip() for line in answer.splitlines() if line.strip()]
    return {"notes": notes, "usage": result.get("usage", {})}
