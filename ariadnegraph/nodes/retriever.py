"""Retriever: what the preset's memory gives the planner this step.

``arigraph`` (default): semantic facts by AriGraph BFS and episodes by eq. 1; ``stma``: top-n entities
then k-hop (STMA alg. 1); ``temporal``: the same neighbourhood (DAVIS §3.3); ``rag``: past observations
most similar to the observation and plan; ``rap``: moments of the namespace's gold runs most like the present;
``simulacra``: past observations by recency, importance and relevance, with reflections (Park et al.).
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
from ..memory.generative import NEUTRAL_IMPORTANCE, generative_ranking, reflection_due
from .common import ask_structured, environment_section, merged
from .prompts import EXPLORATION_CHECK, IMPORTANCE, INSIGHTS
from .schemas import ExplorationCheck, Importance, Insights

EPISODE_CHARS = 1200  # one retrieved episode in the planner's prompt (a recipe with its directions fits)


def retriever(state: AgentState, runtime: Runtime[AgentContext], session: Session) -> dict[str, Any]:
    context = runtime.context
    preset = context.switches
    memory = session.memory
    step = state.get("step", 0)
    facts, episodes = [], []
    own: dict[str, Any] = {}  # what rap and simulacra fetch for sections of their own, with the calls they made
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
        episodes = memory.similar_episodes(seen_and_planned(state), k=preset.episodic_k, before=step)
    elif preset.retrieval == "rap":
        own = {"experiences_text": experiences(state, runtime, session)}
    elif preset.retrieval == "simulacra":
        own = generative_memory(state, context, session)
    calls = [own] if "usage" in own else []
    facts = order_by_time(facts)[-preset.memory_facts :] if preset.retrieval != "stma" else order_by_time(facts)
    update: dict[str, Any] = {
        "memory_text": [f.describe() for f in facts],
        # whole episodes, as AriGraph shows them: a recipe read ten steps ago is in its episode's text
        "episodes_text": [p.episode_line(e.step, p.clip(e.text, EPISODE_CHARS)) for e, _ in episodes if e.step != step],
        "unexplored": [],
        **{key: value for key, value in own.items() if key not in ("usage", "replies", "fallbacks")},
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
            calls.append(usage)
        if explore:
            update["unexplored"] = [p.exits_line(room, dirs) for room, dirs in memory.unexplored_exits().items()]
    return {**update, **merged(calls)} if calls else update


def seen_and_planned(state: AgentState) -> str:
    """What past observations are compared with (RAG, Simulacra): the observation, the subgoal and the plan."""
    plan = " ".join([state.get("subgoal") or ""] + [s["action"] for s in state.get("plan") or []])
    return f"{state.get('observation', '')}\n{plan}"


REFLECTION_READS = 30  # most observations one reflection reads (Park et al. read the 100 newest records: ours)
REFLECTION_CHARS = 300  # one observation as a reflection reads it


def generative_memory(state: AgentState, context: AgentContext, session: Session) -> dict[str, Any]:
    """Simulacra (Park et al. 2023, AriGraph's baseline): the new observation is rated for importance (one call),
    the past ones most recent + important + relevant to the observation and plan are retrieved, and once the
    importance since the last reflection adds up, the model writes insights on what it observed since (one call)."""
    step = state.get("step", 0)
    memory = session.memory
    importance = {int(k): v for k, v in (state.get("importance") or {}).items()}
    calls: list[dict[str, Any]] = []
    if step not in importance:  # rated once (a state that holds this step's rating makes no call)
        rated, usage = ask_structured(
            context,
            node="importance",
            schema=Importance,
            system=IMPORTANCE,
            sections={
                p.ENVIRONMENT: environment_section(state),
                p.GOAL: state.get("goal", ""),
                p.OBSERVATION: state.get("observation", ""),
            },
            fallback=Importance(score=NEUTRAL_IMPORTANCE),
            step=step,
        )
        importance[step] = rated.score
        calls.append(usage)
    relevance = memory.episode_relevance(seen_and_planned(state), before=step)
    chosen = generative_ranking(relevance, importance, now=step, k=context.switches.episodic_k)
    update: dict[str, Any] = {
        "episodes_text": [p.episode_line(s, p.clip(memory.episodes[s].text, EPISODE_CHARS)) for s in chosen],
        "importance": {str(k): v for k, v in importance.items()},
    }
    since = state.get("reflected_at", -1)
    if reflection_due(importance, since):
        recent = [memory.episodes[s] for s in sorted(memory.episodes) if since < s <= step][-REFLECTION_READS:]
        written, usage = ask_structured(
            context,
            node="insights",
            schema=Insights,
            system=INSIGHTS,
            sections={
                p.ENVIRONMENT: environment_section(state),
                p.GOAL: state.get("goal", ""),
                p.HISTORY: [p.episode_line(e.step, p.clip(e.text, REFLECTION_CHARS)) for e in recent],
            },
            fallback=Insights(insights=[]),
            step=step,
        )
        update.update({"insights": written.insights, "reflected_at": step})
        calls.append(usage)
    return {**update, **merged(calls)}


def experiences(state: AgentState, runtime: Runtime[AgentContext], session: Session) -> list[str]:
    """RAP: the moments of the namespace's gold runs closest to the goal and what the agent sees now, each with
    the commands its run played next."""
    gold = moments(recalled_transitions(state, session, runtime.context.memory_from, runtime.store))
    query = f"{state.get('goal', '')}\n{state.get('observation', '')}"
    found = similar_moments(query, gold, session.memory.embedder.embed, runtime.context.switches.episodic_k)
    return [experience_line(moment, gold) for moment in found]
