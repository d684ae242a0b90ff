"""The agent: one LangGraph state machine with every role, exported as ``graph`` for langgraph.json
(absolute imports: the LangGraph server loads this file by path).

Per step: environment → summarizer → relation_retriever → memory_update → retriever → aggregator →
(world_model_qa → planner, only when a plan is needed; DAVIS: planner → world_model_qa, which predicts each
planned step's outcome, and back to the planner for the next step until L are imagined, or for a new plan when
the safety check rejects the predicted trajectory) → critic → actor → environment; after the last
step's memory_update, finish (the result into run.json, the game released). The critic
sends the planner back to work when the last outcome deviated from its expectation or the next
action is rejected (bounded per step); otherwise planned actions run without a planner call. Under STMA's
cadence (``memory_cadence="plan"``) the memory path runs only when a plan is to be made: a plan's later steps go
from the environment straight to the critic, and a rejection runs the memory path before the new plan.

Resources are handed in: a node that needs the game, the memory or the run's files takes the episode's
session as an argument, resolved here (``given_session``) once per call, so no node looks it up or can
trigger a replay; a test hands a node a fake session instead.

Presets (:mod:`ariadnegraph.agent.presets`) are switches of this one graph: the routing functions
read ``context.switches`` and skip the nodes a preset turns off (no summarizer, no KG, no QA, a
planner every step or never, no critic).

Every route is an edge reading the state (no node returns a ``Command(goto=...)``): a fork's ``update_state``
runs a node's edges, not its return value. ``served_agent`` is the graph a LangGraph server runs, with what
its runs hold released when each ends.
"""

from __future__ import annotations

import asyncio
import functools
import logging
from collections.abc import AsyncIterator, Callable, Mapping
from contextlib import asynccontextmanager
from typing import Any, Literal

from langchain_core.runnables import RunnableConfig
from langgraph.config import get_stream_writer
from langgraph.graph import END, START, StateGraph
from langgraph.graph.state import CompiledStateGraph
from langgraph.runtime import Runtime
from langgraph_sdk.runtime import ServerRuntime

from ariadnegraph.agent.context import AgentContext, checked_for_clients
from ariadnegraph.agent.events import node_events
from ariadnegraph.agent.presets import PRESETS, Preset, preset_of
from ariadnegraph.agent.session import Session, end_session, in_use, live_session, release_thread, rewind_run
from ariadnegraph.agent.state import AgentState, EpisodeInput, EpisodeResult, PlayInput
from ariadnegraph.agentkit.thoughts import thoughts
from ariadnegraph.config import run_dir as run_dir_setting
from ariadnegraph.nodes.actor import actor
from ariadnegraph.nodes.aggregator import aggregator
from ariadnegraph.nodes.critic import critic
from ariadnegraph.nodes.environment import environment, episode_state
from ariadnegraph.nodes.finish import finish
from ariadnegraph.nodes.memory_update import memory_update
from ariadnegraph.nodes.planner import planner
from ariadnegraph.nodes.relation_retriever import relation_retriever
from ariadnegraph.nodes.retriever import retriever
from ariadnegraph.nodes.summarizer import summarizer
from ariadnegraph.nodes.world_model_qa import world_model_qa
from ariadnegraph.tracing import traced_node

PlanningNode = Literal["world_model_qa", "planner", "critic", "actor"]


def _switches(state: AgentState) -> Preset:
    """The switches the run plays with, as its state holds them (the environment node keeps them there):
    routing reads the state alone, so a fork's ``update_state`` (Studio's "edit and re-run"), which runs a
    node's edges without a runtime, routes as the run did."""
    return preset_of(state.get("switches")) or PRESETS["ariadne"]


def _plan_due(state: AgentState, preset: Preset) -> bool:
    """Whether a plan is to be made now: none in hand, a replan asked for, or a planner every step."""
    return preset.planner != "never" and (
        preset.planner == "every_step" or bool(state.get("needs_plan")) or not state.get("plan")
    )


def _planning(state: AgentState, preset: Preset) -> PlanningNode:
    """After memory: think (QA, then plan) when a plan is needed, else check or act on the plan in hand."""
    if _plan_due(state, preset):
        return "world_model_qa" if preset.qa_turns != 0 and preset.monologue == "tools" else "planner"
    return "critic" if preset.critic else "actor"


def _memory_path(preset: Preset) -> Literal["summarizer", "relation_retriever", "memory_update"]:
    """The first node of the memory path: presets without a running belief skip the summarizer; those without a KG
    skip triplet extraction."""
    if preset.summarizer:
        return "summarizer"
    return "relation_retriever" if preset.knowledge_graph else "memory_update"


def route_after_environment(
    state: AgentState,
) -> Literal["summarizer", "relation_retriever", "memory_update", "critic", "actor", "finish"]:
    """The memory path, every step; under STMA's cadence (``memory_cadence="plan"``) only when a plan is to be made:
    a plan's later steps go to the critic (or the actor) with the beliefs the plan was made with, and the memory
    path runs again only when the critic rejects one (STMA's algorithm 2: a rejection goes back to line 4). An episode
    a person stopped at an approval goes to its end at once: nothing new was observed."""
    if state.get("stopped"):
        return "finish"
    preset = _switches(state)
    if preset.memory_cadence == "plan" and not state.get("done") and not _plan_due(state, preset):
        return "critic" if preset.critic else "actor"
    return _memory_path(preset)


def route_after_summarizer(state: AgentState) -> Literal["relation_retriever", "memory_update"]:
    return "relation_retriever" if _switches(state).knowledge_graph else "memory_update"


def route_after_memory(
    state: AgentState,
) -> Literal["retriever", "aggregator", "world_model_qa", "planner", "critic", "actor", "thoughts", "finish"]:
    """The episode ends once the final observation is in memory; otherwise retrieve what the preset reads
    (an AgentKit preset's thought graph does its own thinking)."""
    if state.get("done"):
        return "finish"
    if state.get("script"):  # a given trajectory: nothing to decide
        return "actor"
    preset = _switches(state)
    if preset.thoughts:
        return "thoughts"
    if preset.needs_retriever:
        return "retriever"
    return "aggregator" if preset.aggregator != "off" else _planning(state, preset)


def route_after_retriever(state: AgentState) -> Literal["aggregator", "world_model_qa", "planner", "critic", "actor"]:
    preset = _switches(state)
    return "aggregator" if preset.aggregator != "off" else _planning(state, preset)


def route_after_aggregator(state: AgentState) -> Literal["world_model_qa", "planner", "critic", "actor"]:
    """Plan only when needed (no plan left, or a replan was asked for), or every step for presets that do."""
    return _planning(state, _switches(state))


def route_after_planner(state: AgentState) -> Literal["world_model_qa", "critic", "actor"]:
    """DAVIS's world model predicts the new plan's outcomes; presets without a critic act on the plan at once."""
    preset = _switches(state)
    if preset.predicts:  # DAVIS's world model runs after the planner: algorithm 2 for each step planned or imagined
        return "world_model_qa"
    return "critic" if preset.critic else "actor"


def route_after_world_model_qa(state: AgentState) -> Literal["planner", "critic", "actor"]:
    """The monologue before planning hands its notes to the planner; DAVIS's predictions go to execution, or back to
    the policy: while its trajectory is still being imagined (algorithm 1), or when the safety check rejected it
    (``needs_plan``, algorithm 1 lines 7-8)."""
    preset = _switches(state)
    if not preset.predicts or state.get("rollout") or state.get("needs_plan"):
        return "planner"
    return "critic" if preset.critic else "actor"


def route_after_critic(
    state: AgentState,
) -> Literal["planner", "actor", "summarizer", "relation_retriever", "memory_update"]:
    """The critic sends the planner back to work (``needs_plan``) or lets the plan's next step run; under STMA's
    cadence a rejection of a plan's later step first runs the memory path this step skipped."""
    if not state.get("needs_plan"):
        return "actor"
    preset = _switches(state)
    if preset.memory_cadence == "plan" and state.get("memory_step", -1) < state.get("step", 0):
        return _memory_path(preset)
    return "planner"


def route_after_actor(state: AgentState) -> Literal["planner", "environment"]:
    """A plan step the actor sent back (invalid, a repeat, a stall: nothing proposed) goes to the planner."""
    return "environment" if state.get("command") is not None else "planner"


Node = Callable[[AgentState, Runtime[AgentContext]], Any]
SessionNode = Callable[[AgentState, Runtime[AgentContext], Session], Any]


def given_session(node: SessionNode) -> Node:
    """``node`` with the episode's session handed in (the game, the memory, the run's files): resolved here, where a
    process that has none (a resumed run, a server worker) or a fork's state rebuilds it by replaying the game."""

    def run(state: AgentState, runtime: Runtime[AgentContext]) -> Any:
        with in_use(live_session(state, runtime.context)) as session:
            return node(state, runtime, session)

    run.__name__ = run.__qualname__ = node.__name__
    run.__doc__ = node.__doc__
    return run


def environment_step(*, served: bool) -> Node:
    """The environment node: the step's input checked first, then the session (created on the first step) handed in."""

    def environment_node(state: AgentState, runtime: Runtime[AgentContext]) -> Any:
        state = episode_state(state, runtime.context, served=served)
        with in_use(live_session(state, runtime.context, start="observation" not in state)) as session:
            return environment(state, runtime, session)

    return environment_node


def finish_step(state: AgentState, runtime: Runtime[AgentContext]) -> Any:
    """The finish node: the result written, then the episode's game and memory released (its files stay)."""
    with in_use(live_session(state, runtime.context)) as session:
        update = finish(state, runtime, session)
    end_session(state["run_id"])
    return update


def streamed(name: str, node: Node) -> Callable[..., Any]:
    """Node ``name`` with what its update shows written as ``custom`` stream events (agent/events.py), for a client
    to render as the episode plays."""

    @functools.wraps(node)
    def run(state: AgentState, *args: Any, **kwargs: Any) -> Any:
        update = node(state, *args, **kwargs)
        if isinstance(update, Mapping):
            write = get_stream_writer()
            for event in node_events(name, state, update):
                write(event)
        return update

    return run


def build_agent_graph(*, served: bool = False) -> StateGraph[AgentState, AgentContext, EpisodeInput, EpisodeResult]:
    """The agent graph; ``served``: the one a LangGraph server runs for clients (their context may not
    change the operator's settings; their ``file:`` games held to the server's games directory)."""

    # every node of a served graph checks the client's context first: a paused thread resumes at any node
    def node(name: str, fn: Node) -> Callable[..., Any]:
        return traced_node(streamed(name, checked_for_clients(fn) if served else fn))

    # a client's input form holds the game and its budget; the CLI's runs also hand over lessons and a script
    inputs: type[EpisodeInput] = EpisodeInput if served else PlayInput
    builder = StateGraph(AgentState, context_schema=AgentContext, input_schema=inputs, output_schema=EpisodeResult)
    builder.add_node("environment", node("environment", environment_step(served=served)))
    builder.add_node("summarizer", node("summarizer", summarizer))
    builder.add_node("relation_retriever", node("relation_retriever", given_session(relation_retriever)))
    builder.add_node("memory_update", node("memory_update", given_session(memory_update)))
    builder.add_node("retriever", node("retriever", given_session(retriever)))
    builder.add_node("aggregator", node("aggregator", given_session(aggregator)))
    builder.add_node("world_model_qa", node("world_model_qa", given_session(world_model_qa)))
    builder.add_node("planner", node("planner", given_session(planner)))
    builder.add_node("critic", node("critic", critic))
    builder.add_node("actor", node("actor", given_session(actor)))
    builder.add_edge(START, "environment")
    builder.add_conditional_edges("environment", route_after_environment)
    builder.add_conditional_edges("summarizer", route_after_summarizer)
    builder.add_edge("relation_retriever", "memory_update")
    builder.add_conditional_edges("memory_update", route_after_memory)
    builder.add_conditional_edges("retriever", route_after_retriever)
    builder.add_conditional_edges("aggregator", route_after_aggregator)
    builder.add_conditional_edges("world_model_qa", route_after_world_model_qa)
    builder.add_conditional_edges("planner", route_after_planner)
    builder.add_conditional_edges("critic", route_after_critic)
    builder.add_conditional_edges("actor", route_after_actor)
    builder.add_node("thoughts", node("thoughts", thoughts))
    builder.add_edge("thoughts", "environment")
    builder.add_node("finish", node("finish", finish_step))
    builder.add_edge("finish", END)
    return builder


AgentGraph = CompiledStateGraph[AgentState, AgentContext, EpisodeInput, EpisodeResult]
graph: AgentGraph = build_agent_graph(served=True).compile(name="ariadne")

# How long a run's end waits for a node of a cancelled run (which runs on in its worker thread) to be done
# with the episode's session before leaving it to that node to close.
NODE_WAIT_SECONDS = 120.0
log = logging.getLogger(__name__)


@asynccontextmanager
async def served_agent(config: RunnableConfig, runtime: ServerRuntime) -> AsyncIterator[AgentGraph]:
    """langgraph.json's "agent": ``graph``, and the lifetime of what its runs hold. A run holds its episode's
    game process, memory and the run's writer lock only while it runs: when it ends, however it ends (the
    episode over, a pause at an approval or a breakpoint, a cancel, an error), the thread's sessions are
    released, and its next run rebuilds them from the run's files (session.open_session). So a paused thread
    holds nothing and deleting it leaves nothing behind. A run cancelled with ``action="rollback"`` loses its
    checkpoints: its steps leave the run's files too, back to the thread's state before it."""
    thread = (config.get("configurable") or {}).get("thread_id")
    if runtime.execution_runtime is None or thread is None:  # schemas, state reads, update_state: nothing to hold
        yield graph
        return
    head: RunnableConfig = {"configurable": {k: v for k, v in config["configurable"].items() if k != "checkpoint_id"}}
    try:
        before = (await graph.aget_state(head)).values  # the thread's state a rollback returns it to
    except ValueError:  # a stateless run: no checkpointer, nothing to return to
        before = {}
    try:
        yield graph
    except BaseException as exc:
        if type(exc).__name__ == "UserRollback":  # langgraph_api.errors (the server's; not a dependency here)
            await asyncio.to_thread(_rolled_back, str(thread), before)
        raise
    finally:
        await asyncio.to_thread(release_thread, str(thread), NODE_WAIT_SECONDS)


def _rolled_back(thread: str, before: dict[str, Any]) -> None:
    """The files of a rolled-back run's episode cut back to the thread's state before the run."""
    run_ids = release_thread(thread, NODE_WAIT_SECONDS) or [before.get("run_id") or thread]
    for run_id in run_ids:
        try:
            rewind_run(run_dir_setting(), run_id, before or None, thread)
        except Exception:  # the rollback itself stands; the next run's rebuild refuses what cannot be cut
            log.exception("run %s: its steps could not be cut back after the rollback", run_id)
