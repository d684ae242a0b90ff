"""The agent: one LangGraph state machine with every role, exported as ``graph`` for langgraph.json
(absolute imports: the LangGraph server loads this file by path).

Per step: environment → summarizer → relation_retriever → memory_update → retriever → aggregator →
(world_model_qa → planner, only when a plan is needed) → critic → actor → environment. The critic
sends the planner back to work when the last outcome deviated from its expectation or the next
action is rejected (bounded per step); otherwise planned actions run without a planner call.
"""

from __future__ import annotations

from typing import Literal

from langgraph.graph import END, START, StateGraph

from ariadnegraph.nodes.actor import actor
from ariadnegraph.nodes.aggregator import aggregator
from ariadnegraph.nodes.critic import critic
from ariadnegraph.nodes.environment import environment
from ariadnegraph.nodes.memory_update import memory_update
from ariadnegraph.nodes.planner import planner
from ariadnegraph.nodes.relation_retriever import relation_retriever
from ariadnegraph.nodes.retriever import retriever
from ariadnegraph.nodes.summarizer import summarizer
from ariadnegraph.nodes.world_model_qa import world_model_qa
from ariadnegraph.graphs.context import AgentContext
from ariadnegraph.graphs.state import AgentState, EpisodeInput


def route_after_memory(state: AgentState) -> Literal["retriever", "__end__"]:
    """The episode ends once the final observation is in memory."""
    return END if state.get("done") else "retriever"


def route_after_aggregator(state: AgentState) -> Literal["world_model_qa", "critic"]:
    """Plan only when needed: no plan left, or a replan was asked for."""
    return "world_model_qa" if state.get("needs_plan") or not state.get("plan") else "critic"


def build_agent_graph() -> StateGraph:
    builder = StateGraph(AgentState, context_schema=AgentContext, input_schema=EpisodeInput)
    builder.add_node("environment", environment)
    builder.add_node("summarizer", summarizer)
    builder.add_node("relation_retriever", relation_retriever)
    builder.add_node("memory_update", memory_update)
    builder.add_node("retriever", retriever)
    builder.add_node("aggregator", aggregator)
    builder.add_node("world_model_qa", world_model_qa)
    builder.add_node("planner", planner)
    builder.add_node("critic", critic, destinations=("planner", "actor"))
    builder.add_node("actor", actor)
    builder.add_edge(START, "environment")
    builder.add_edge("environment", "summarizer")
    builder.add_edge("summarizer", "relation_retriever")
    builder.add_edge("relation_retriever", "memory_update")
    builder.add_conditional_edges("memory_update", route_after_memory)
    builder.add_edge("retriever", "aggregator")
    builder.add_conditional_edges("aggregator", route_after_aggregator)
    builder.add_edge("world_model_qa", "planner")
    builder.add_edge("planner", "critic")
    builder.add_edge("actor", "environment")
    return builder


graph = build_agent_graph().compile(name="ariadne")
