"""The temporal KG as read-only LangChain tools for the inner monologue and the ``ask`` graph.

Every tool answers in short text lines a model can quote. The tools are module-level; the memory they read
is handed to each call as an injected argument (``kg``: a :class:`KGReader`, the memory as it was at a step),
which the model never sees in the tool's schema and cannot write: the monologue's tools node adds it
(:func:`call_kg_tool`), so a question about step t sees exactly the memory of step t.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Annotated, Any

from langchain_core.messages import ToolMessage
from langchain_core.tools import BaseTool, InjectedToolArg, tool

from .. import prompting as p
from ..memory import Fact, WorldMemory, objects, order_by_time, spatial
from ..memory.episodic import Episode
from ..memory.retrieval import k_hop_nodes
from ..memory.temporal_kg import KGView

MAX_LINES = 25
MAX_STEPS = 50  # steps per step_changes answer
_PLACEMENT = ("in", "on", "at", "inside", "held by", "carried by", "located in")


def describe(facts: Iterable[Fact], limit: int = MAX_LINES) -> str:
    lines = [fact.describe() for fact in facts]
    if not lines:
        return "nothing known"
    extra = f"\n... and {len(lines) - limit} more" if len(lines) > limit else ""
    return "\n".join(lines[:limit]) + extra


@dataclass(frozen=True)
class KGReader:
    """What the KG tools read: ``memory`` as it was at step ``as_of`` (None: now). The tools read memory through
    these methods only, each of which applies the reader's step (``Fact.known_at``), so no answer about step k holds
    anything recorded after k. A step past the last one memory recorded reads memory as of that last step (:attr:`at`):
    nothing was recorded later, so the answers are the same, and a question as of step 10**8 costs what the run costs
    (the recall lays out a list a step long up to :attr:`now`)."""

    memory: WorldMemory
    as_of: int | None = None

    @property
    def last(self) -> int:
        """The last step memory recorded (-1: none yet)."""
        return max(self.memory.last_step, self.memory.last_episode)

    @property
    def at(self) -> int | None:
        """The step memory is read at: None (now), else ``as_of`` up to the last step memory recorded."""
        return None if self.as_of is None else min(self.as_of, max(self.last, 0))

    @property
    def past_end(self) -> bool:
        """Whether ``as_of`` is past the last step memory recorded (it is read as of that step)."""
        return self.as_of is not None and self.at != self.as_of

    @property
    def now(self) -> int:
        """The step the reader stands at: :attr:`at`, else the last step memory recorded."""
        return self.last if self.at is None else self.at

    def view(self) -> KGView:
        """The facts that held at the reader's step."""
        return self.memory.current() if self.at is None else self.memory.as_of(self.at)

    def key(self, name: str) -> str:
        return self.memory.key(name)

    def history(self) -> list[Fact]:
        """Every fact recorded by the reader's step, closed ones included, as memory knew them then."""
        return self.memory.history(self.at)

    def timeline(self, entity: str) -> list[Fact]:
        return self.memory.timeline(entity, self.at)

    def episode(self, step: int) -> Episode | None:
        return self.memory.episodes.get(step) if step <= self.now else None

    def episodes(self) -> list[Episode]:
        """The episodes recorded by the reader's step, oldest first."""
        return [e for t, e in sorted(self.memory.episodes.items()) if t <= self.now]

    def semantic_search(self, query: str) -> list[Fact]:
        return self.memory.semantic_search(query, as_of=self.at)

    def path(self, start: str, goal: str) -> list[tuple[str, str]] | None:
        return self.memory.path(start, goal, as_of=self.at)

    def unexplored_exits(self, location: str | None) -> dict[str, list[str]]:
        return self.memory.unexplored_exits(location, as_of=self.at)

    def similar_episodes(self, query: str, k: int) -> list[Episode]:
        before = None if self.at is None else self.at + 1
        return [episode for episode, _ in self.memory.similar_episodes(query, k=k, before=before)]


KG = Annotated[KGReader, InjectedToolArg]  # handed in by the tools node, hidden from the model


@tool
def search_facts(kg: KG, query: str) -> str:
    """Facts most related to the query (AriGraph semantic search), in the order they became true."""
    return describe(order_by_time(kg.semantic_search(query)))


@tool
def entity_neighbourhood(kg: KG, entity: str, hops: int = 1) -> str:
    """Current facts within `hops` links of an entity (1-3)."""
    v = kg.view()
    nodes = k_hop_nodes(v, [kg.key(entity)], max(1, min(hops, 3)))
    facts = [f for f in v.facts.values() if f.subject_key in nodes and f.object_key in nodes]
    return describe(order_by_time(facts)) if facts else f"nothing known about {entity}"


@tool
def entity_timeline(kg: KG, entity: str) -> str:
    """Everything ever recorded about an entity, oldest first, with when each fact held."""
    facts = kg.timeline(entity)
    return describe(facts, limit=40) if facts else f"nothing known about {entity}"


@tool
def where_is(kg: KG, entity: str) -> str:
    """Where an entity is now (room, container or inventory), and where it was seen before."""
    k = kg.key(entity)
    # newest first: a KG that never invalidates (DAVIS) holds every place the entity was seen in
    now = sorted(
        (f for f in kg.view().find(subject_key=k) if f.relation in _PLACEMENT), key=lambda f: (-f.valid_from, -f.id)
    )
    # closed by the reader's step (a fact closed later was still open then, and is in ``now``)
    before = [
        f for f in kg.timeline(entity) if f.subject_key == k and f.relation in _PLACEMENT and f.valid_to is not None
    ]
    if not now and not before:
        return f"{entity}: location unknown"
    lines = [f"{entity} is {f.relation} {f.object} (since step {f.valid_from})" for f in now]
    lines += [f"earlier: {f.relation} {f.object} (steps {f.valid_from}-{f.valid_to})" for f in before[-3:]]
    return "\n".join(lines)


@tool
def what_is_in(kg: KG, container: str) -> str:
    """What is in or on a container, support, room or the inventory now."""
    facts = [f for f in kg.view().find(object_key=kg.key(container)) if f.relation in _PLACEMENT]
    return describe(facts) if facts else f"nothing known in {container}"


@tool
def path_between(kg: KG, start: str, goal: str) -> str:
    """Moves between two known locations along known exits, e.g. 'go east, go north'."""
    moves = kg.path(start, goal)
    if moves is None:
        return f"no known path from {start} to {goal}"
    if not moves:
        return f"already at {goal}"
    return ", ".join(f"go {direction}" for direction, _ in moves) + f" (via {', '.join(room for _, room in moves)})"


@tool
def unexplored_exits(kg: KG, location: str = "") -> str:
    """Exits not yet walked through: of one location, or of every visited location when empty."""
    found = kg.unexplored_exits(location or None)
    lines = [p.exits_line(room, dirs) for room, dirs in found.items() if dirs]
    return "\n".join(lines) if lines else "no unexplored exits known"


@tool
def where_to_search(kg: KG) -> str:
    """Where to look for something not seen yet, nearest first: containers never seen open, closed doors, exits not
    taken, each with the command that searches it and its room."""
    view = kg.view()
    here = spatial.current_location(view)
    history = kg.history()
    leads = objects.leads(view, here, objects.ever_open(history), set(spatial.visited_locations(history)))
    if not leads:
        return "nothing left unsearched that memory knows of"
    return "\n".join(p.lead_text(lead.command, view.entity_name(lead.room)) for lead in leads[:MAX_LINES])


@tool
def search_episodes(kg: KG, query: str) -> str:
    """Past observations most similar to the query, with their steps."""
    hits = kg.similar_episodes(query, k=3)
    if not hits:
        return "no episodes"
    return "\n".join(p.episode_line(e.step, " ".join(e.text.split())[:300]) for e in hits)


FactsByStep = dict[int, list[Fact]]


def changes_by_step(history: Iterable[Fact], first: int, last: int) -> tuple[FactsByStep, FactsByStep]:
    """The facts that became true and those that stopped being true at each step from ``first`` to ``last``."""
    began: FactsByStep = {}
    ended: FactsByStep = {}
    for f in history:
        if first <= f.valid_from <= last:
            began.setdefault(f.valid_from, []).append(f)
        if f.valid_to is not None and first <= f.valid_to <= last:
            ended.setdefault(f.valid_to, []).append(f)
    return began, ended


@tool
def step_changes(kg: KG, first: int, last: int) -> str:
    """What the knowledge graph recorded at each step from `first` to `last` (at most 50 per call):
    the command of the step, the facts that became true and the facts that stopped being true."""
    episodes = [e for e in kg.episodes() if max(first, 0) <= e.step <= last]
    if not episodes:
        return f"no steps recorded from {first} to {last}"
    shown, rest = [e.step for e in episodes[:MAX_STEPS]], [e.step for e in episodes[MAX_STEPS:]]
    began, ended = changes_by_step(kg.history(), shown[0], shown[-1])
    lines = []
    for episode in episodes[:MAX_STEPS]:
        t = episode.step
        line = p.memory_step_line(t, episode.action)
        if began.get(t):
            line += " | became true: " + "; ".join(p.fact_line(f.subject, f.relation, f.object) for f in began[t])
        if ended.get(t):
            line += " | stopped being true: " + "; ".join(
                p.fact_line(f.subject, f.relation, f.object) for f in ended[t]
            )
        lines.append(line)
    if rest:
        lines.append(f"... steps {rest[0]}-{rest[-1]} not shown: call again with first={rest[0]}")
    return "\n".join(lines)


@tool
def observation_at(kg: KG, step: int) -> str:
    """The observation memory stored for one step (its episode), with the command that led to it."""
    episode = kg.episode(step)
    if episode is None:
        return f"no episode recorded at step {step}"
    return f"{p.memory_step_line(step, episode.action)}\n{episode.text.strip()}"


KG_TOOLS: tuple[BaseTool, ...] = (
    search_facts,
    entity_neighbourhood,
    entity_timeline,
    where_is,
    what_is_in,
    path_between,
    unexplored_exits,
    where_to_search,
    search_episodes,
    step_changes,
    observation_at,
)
TOOL_NAMES = tuple(t.name for t in KG_TOOLS)
_BY_NAME = {t.name: t for t in KG_TOOLS}


def call_kg_tool(call: Mapping[str, Any], kg: KGReader) -> ToolMessage:
    """A model's tool call answered over ``kg``: the tool's lines, or what was wrong with the call (an unknown
    tool, arguments the tool does not take) as an error the model reads and may correct."""
    found = _BY_NAME.get(call["name"])
    if found is None:
        text = p.unknown_tool_line(call["name"], TOOL_NAMES)
    else:
        try:
            return found.invoke({**call, "args": {**call.get("args", {}), "kg": kg}})
        except Exception as error:  # a bad argument, or memory that cannot answer: the model is told, the loop goes on
            text = p.tool_error_line(error)
    return ToolMessage(content=text, name=call["name"], tool_call_id=call.get("id") or "", status="error")
