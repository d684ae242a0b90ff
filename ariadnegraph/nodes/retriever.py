"""Retriever: semantic facts (AriGraph BFS), episodes (eq. 1) and unexplored exits for this step,
shown in the order they became true (DAVIS)."""

from __future__ import annotations

from typing import Any

from langgraph.runtime import Runtime

from ..graphs.context import AgentContext
from ..graphs.session import open_session
from ..graphs.state import AgentState
from ..memory import order_by_time
from .common import first_line


def retriever(state: AgentState, runtime: Runtime[AgentContext]) -> dict[str, Any]:
    context = runtime.context
    memory = open_session(context.run_dir, state, create=False).memory
    step = state.get("step", 0)
    episode = memory.episodes.get(step)
    # AriGraph queries with what the agent just saw, plus what it is trying to do.
    queries: list[str] = []
    if episode is not None:
        for fact_id in sorted(episode.fact_ids):
            fact = memory.kg.get(fact_id)
            queries += [fact.subject, fact.object]
    queries += [q for q in (state.get("subgoal"), state.get("goal")) if q]
    queries = list(dict.fromkeys(queries))
    facts = memory.semantic_search(queries, depth=context.search_depth, width=context.search_width) if queries else []
    episodes = memory.episodic_search(facts, k=context.episodic_k)
    facts = order_by_time(facts)[-context.memory_facts:]
    exits = memory.unexplored_exits()
    return {
        "memory_text": [f.describe() for f in facts],
        "episodes_text": [f"step {e.step}: {first_line(e.text, 300)}" for e, _ in episodes if e.step != step],
        "unexplored": [f"{room}: {', '.join(dirs)}" for room, dirs in exits.items()],
    }
