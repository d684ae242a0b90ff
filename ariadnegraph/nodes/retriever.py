"""Retriever: what the preset's memory gives the planner this step.

``arigraph`` (default): semantic facts by AriGraph BFS and episodes by eq. 1; ``stma``: top-n entities
then k-hop (STMA alg. 1); ``temporal``: the same neighbourhood (DAVIS §3.3); ``rag``: past observations
most similar to the observation and plan; ``rap``: moments of the namespace's gold runs most like the present.
Facts are shown in the order they became true (DAVIS), with the unexplored exits (AriGraph appendix B) — behind
AriGraph's exploration check when the preset has it.
"""

from __future__ import annotations

from typing import Any

from langgraph.runtime import Runtime

from .. import prompting as p
from ..agent.context import AgentContext
from ..agent.recall import recalled_transitions
from ..agent.session import Session
from ..agent.state import AgentState
from ..memory import order_by_time
from ..memory.experience import experience_line, moments, similar_moments
from .common import ask_structured, environment_section
from .prompts import EXPLORATION_CHECK
from .schemas import ExplorationCheck

EPISODE_CHARS = 1200  # one retrieved episode in the planner's prompt (a recipe with its directions fits)


def retriever(state: AgentState, runtime: Runtime[AgentContext], session: Session) -> dict[str, Any]:
    context = runtime.context
    preset = context.switches
    memory = session.memory
    step = state.get("step", 0)
    facts, episodes = [], []
    if preset.retrieval == "arigraph":
        # AriGraph queries with what the agent just saw, plus what it is trying to do.
        queries: list[str] = []
        episode = memory.episodes.get(step)
        if episode is not None:
            for fact_id in sorted(episode.fact_ids):
                fact = memory.fact(fact_id)
                queries += [fact.subject, fact.object]
        queries += [q for q in (state.get("subgoal"), state.get("goal")) if q]
        queries = list(dict.fromkeys(queries))
        facts = memory.semantic_search(queries, depth=preset.search_depth, width=preset.search_width) if queries else []
        episodes = memory.episodic_search(facts, k=preset.episodic_k)
    elif preset.retrieval in ("stma", "temporal"):
        # STMA: the query comes from the task and what the agent sees now.
        query = f"{state.get('goal', '')}\n{state.get('observation', '')}"
        facts = memory.stma_retrieve(query, n=preset.stma_n, k=preset.stma_hops, directed=preset.hops_directed)
    elif preset.retrieval == "rag":
        plan = " ".join([state.get("subgoal") or ""] + [s["action"] for s in state.get("plan") or []])
        episodes = memory.similar_episodes(f"{state.get('observation', '')}\n{plan}", k=preset.episodic_k, before=step)
    elif preset.retrieval == "rap":
        return {"experiences_text": experiences(state, runtime, session), "unexplored": []}
    facts = order_by_time(facts)[-preset.memory_facts :] if preset.retrieval != "stma" else order_by_time(facts)
    update: dict[str, Any] = {
        "memory_text": [f.describe() for f in facts],
        # whole episodes, as AriGraph shows them: a recipe read ten steps ago is in its episode's text
        "episodes_text": [p.episode_line(e.step, p.clip(e.text, EPISODE_CHARS)) for e, _ in episodes if e.step != step],
        "unexplored": [],
    }
    if preset.unexplored_exits:
        explore = True
        if preset.exploration_check:
            sections = {
                p.ENVIRONMENT: environment_section(state),
                p.GOAL: state.get("goal", ""),
                p.SUBGOAL: state.get("subgoal") or p.NONE,
                p.PLAN: p.plan_lines(state.get("plan")),
            }
            check, usage = ask_structured(
                context,
                node="exploration_check",
                schema=ExplorationCheck,
                system=EXPLORATION_CHECK,
                sections=sections,
                fallback=ExplorationCheck(explore=True),
                step=step,
            )
            explore = check.explore
            update.update(usage)
        if explore:
            update["unexplored"] = [p.exits_line(room, dirs) for room, dirs in memory.unexplored_exits().items()]
    return update


def experiences(state: AgentState, runtime: Runtime[AgentContext], session: Session) -> list[str]:
    """RAP: the moments of the namespace's gold runs closest to the goal and what the agent sees now, each with
    the commands its run played next."""
    gold = moments(recalled_transitions(state, session, runtime.context.memory_from, runtime.store))
    query = f"{state.get('goal', '')}\n{state.get('observation', '')}"
    found = similar_moments(query, gold, session.memory.embedder.embed, runtime.context.switches.episodic_k)
    return [experience_line(moment, gold) for moment in found]
