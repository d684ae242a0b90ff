"""The temporal KG as read-only LangChain tools for the inner monologue and the ``ask`` graph.

Every tool answers in short text lines a model can quote. Tools are built per memory (and optionally
per step, ``as_of``), so a question about step t sees exactly the memory of step t.
"""

from __future__ import annotations

from collections.abc import Iterable

from langchain_core.tools import BaseTool, tool

from .. import prompting as p
from ..memory import Fact, WorldMemory, order_by_time
from ..memory.retrieval import k_hop_nodes

MAX_LINES = 25
TOOL_NAMES = (
    "search_facts",
    "entity_neighbourhood",
    "entity_timeline",
    "where_is",
    "what_is_in",
    "path_between",
    "unexplored_exits",
    "search_episodes",
    "step_changes",
    "observation_at",
)
MAX_STEPS = 50  # steps per step_changes answer
_PLACEMENT = ("in", "on", "at", "inside", "held by", "carried by", "located in")


def describe(facts: Iterable[Fact], limit: int = MAX_LINES) -> str:
    lines = [fact.describe() for fact in facts]
    if not lines:
        return "nothing known"
    extra = f"\n... and {len(lines) - limit} more" if len(lines) > limit else ""
    return "\n".join(lines[:limit]) + extra


def make_kg_tools(memory: WorldMemory, as_of: int | None = None) -> list[BaseTool]:
    """The KG tools bound to ``memory`` (at step ``as_of``, default: now)."""

    def view():
        return memory.current() if as_of is None else memory.as_of(as_of)

    def key(name: str) -> str:
        return memory.key(name)

    @tool
    def search_facts(query: str) -> str:
        """Facts most related to the query (AriGraph semantic search), in the order they became true."""
        return describe(order_by_time(memory.semantic_search(query, as_of=as_of)))

    @tool
    def entity_neighbourhood(entity: str, hops: int = 1) -> str:
        """Current facts within `hops` links of an entity (1-3)."""
        v = view()
        nodes = k_hop_nodes(v, [key(entity)], max(1, min(hops, 3)))
        facts = [f for f in v.facts.values() if f.subject_key in nodes and f.object_key in nodes]
        return describe(order_by_time(facts)) if facts else f"nothing known about {entity}"

    @tool
    def entity_timeline(entity: str) -> str:
        """Everything ever recorded about an entity, oldest first, with when each fact held."""
        facts = [f for f in memory.timeline(entity) if as_of is None or f.recorded_at <= as_of]
        return describe(facts, limit=40) if facts else f"nothing known about {entity}"

    @tool
    def where_is(entity: str) -> str:
        """Where an entity is now (room, container or inventory), and where it was seen before."""
        k = key(entity)
        # newest first: a KG that never invalidates (DAVIS) holds every place the entity was seen in
        now = sorted((f for f in view().find(subject_key=k) if f.relation in _PLACEMENT), key=lambda f: (-f.valid_from, -f.id))
        before = [f for f in memory.timeline(entity) if f.subject_key == k and f.relation in _PLACEMENT and not f.valid_at(as_of or memory.last_step)]
        if not now and not before:
            return f"{entity}: location unknown"
        lines = [f"{entity} is {f.relation} {f.object} (since step {f.valid_from})" for f in now]
        lines += [f"earlier: {f.relation} {f.object} (steps {f.valid_from}-{f.valid_to})" for f in before[-3:]]
        return "\n".join(lines)

    @tool
    def what_is_in(container: str) -> str:
        """What is in or on a container, support, room or the inventory now."""
        facts = [f for f in view().find(object_key=key(container)) if f.relation in _PLACEMENT]
        return describe(facts) if facts else f"nothing known in {container}"

    @tool
    def path_between(start: str, goal: str) -> str:
        """Moves between two known locations along known exits, e.g. 'go east, go north'."""
        moves = memory.path(start, goal, as_of=as_of)
        if moves is None:
            return f"no known path from {start} to {goal}"
        if not moves:
            return f"already at {goal}"
        return ", ".join(f"go {direction}" for direction, _ in moves) + f" (via {', '.join(room for _, room in moves)})"

    @tool
    def unexplored_exits(location: str = "") -> str:
        """Exits not yet walked through: of one location, or of every visited location when empty."""
        found = memory.unexplored_exits(location or None, as_of=as_of)
        lines = [p.exits_line(room, dirs) for room, dirs in found.items() if dirs]
        return "\n".join(lines) if lines else "no unexplored exits known"

    @tool
    def search_episodes(query: str) -> str:
        """Past observations most similar to the query, with their steps."""
        before = None if as_of is None else as_of + 1
        hits = memory.similar_episodes(query, k=3, before=before)
        if not hits:
            return "no episodes"
        return "\n".join(p.episode_line(e.step, " ".join(e.text.split())[:300]) for e, _ in hits)

    @tool
    def step_changes(first: int, last: int) -> str:
        """What the knowledge graph recorded at each step from `first` to `last` (at most 50 per call):
        the command of the step, the facts that became true and the facts that stopped being true."""
        end = min(last, memory.last_step if as_of is None else as_of)
        steps = [t for t in sorted(memory.episodes) if max(first, 0) <= t <= end]
        if not steps:
            return f"no steps recorded from {first} to {last}"
        shown, rest = steps[:MAX_STEPS], steps[MAX_STEPS:]
        began: dict[int, list[Fact]] = {}
        ended: dict[int, list[Fact]] = {}
        for f in memory.all_facts:
            if shown[0] <= f.valid_from <= shown[-1]:
                began.setdefault(f.valid_from, []).append(f)
            if f.valid_to is not None and shown[0] <= f.valid_to <= shown[-1]:
                ended.setdefault(f.valid_to, []).append(f)
        lines = []
        for t in shown:
            line = p.memory_step_line(t, memory.episodes[t].action)
            if began.get(t):
                line += " | became true: " + "; ".join(p.fact_line(f.subject, f.relation, f.object) for f in began[t])
            if ended.get(t):
                line += " | stopped being true: " + "; ".join(p.fact_line(f.subject, f.relation, f.object) for f in ended[t])
            lines.append(line)
        if rest:
            lines.append(f"... steps {rest[0]}-{rest[-1]} not shown: call again with first={rest[0]}")
        return "\n".join(lines)

    @tool
    def observation_at(step: int) -> str:
        """The observation memory stored for one step (its episode), with the command that led to it."""
        episode = memory.episodes.get(step)
        if episode is None or (as_of is not None and step > as_of):
            return f"no episode recorded at step {step}"
        return f"{p.memory_step_line(step, episode.action)}\n{episode.text.strip()}"

    return [search_facts, entity_neighbourhood, entity_timeline, where_is, what_is_in, path_between, unexplored_exits, search_episodes,
            step_changes, observation_at]
