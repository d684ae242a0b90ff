"""World-model QA: an LLM that questions the temporal KG through tools, in a loop it drives.

The agent's inner monologue runs this graph before planning (DAVIS §3.4); exported on its own as
``ask`` it answers a user's question about a run's memory. The model decides which tools to call;
after ``qa_turns`` tool turns it must answer without tools, so the loop always ends.
"""

from __future__ import annotations

from typing import Annotated, Any, Literal, TypedDict

from langchain_core.messages import AIMessage, AnyMessage, HumanMessage, SystemMessage
from langgraph.graph import END, START, StateGraph
from langgraph.graph.message import add_messages
from langgraph.prebuilt import ToolNode
from langgraph.runtime import Runtime

from ariadnegraph.models import invoke_model, usage_of
from ariadnegraph.nodes.common import chat_model
from ariadnegraph.nodes.prompts import ASK
from ariadnegraph.prompting import QUESTION, render_sections
from ariadnegraph.tools.kg_tools import make_kg_tools
from ariadnegraph.graphs.context import AgentContext
from ariadnegraph.graphs.session import memory_for
from ariadnegraph.graphs.state import add_usage

FINAL_ANSWER = "You have used all your tool turns. Answer now from what the tools returned."


class AskInput(TypedDict, total=False):
    run_id: str
    question: str
    as_of: int | None  # ask about the memory as it was at this step


class QAState(AskInput, total=False):
    messages: Annotated[list[AnyMessage], add_messages]
    turns: int
    answer: str
    usage: Annotated[dict[str, dict[str, int]], add_usage]


class AskOutput(TypedDict, total=False):
    answer: str
    turns: int


def prepare(state: QAState) -> dict[str, Any]:
    """Turn a bare question into the conversation (the agent passes its own messages instead)."""
    if state.get("messages"):
        return {"turns": 0}
    if not state.get("question"):
        raise ValueError("ask needs a question")
    return {"turns": 0, "messages": [SystemMessage(content=ASK), HumanMessage(content=render_sections({QUESTION: state["question"]}))]}


def kg_tools(memory, as_of: int | None) -> list:
    """The KG tools of a memory, built once per (memory, as_of): building them costs ~20 ms."""
    cache = memory.__dict__.setdefault("_kg_tools", {})
    if as_of not in cache:
        cache[as_of] = make_kg_tools(memory, as_of)
    return cache[as_of]


def think(state: QAState, runtime: Runtime[AgentContext]) -> dict[str, Any]:
    context = runtime.context
    tools = kg_tools(memory_for(state["run_id"], context.run_dir), state.get("as_of"))
    messages = list(state["messages"])
    model = chat_model(context, "qa")
    if state.get("turns", 0) >= (context.effective_qa_turns() or context.qa_turns):
        messages.append(HumanMessage(content=FINAL_ANSWER))
    else:
        model = model.bind_tools(tools)
    reply: AIMessage = invoke_model(model, messages, retries=context.max_retries)
    update: dict[str, Any] = {"messages": [reply], "usage": {"world_model_qa": usage_of(messages, reply).to_dict()}}
    if not reply.tool_calls:
        update["answer"] = reply.content if isinstance(reply.content, str) else str(reply.content)
    return update


def run_tools(state: QAState, runtime: Runtime[AgentContext]) -> dict[str, Any]:
    tools = kg_tools(memory_for(state["run_id"], runtime.context.run_dir), state.get("as_of"))
    result = ToolNode(tools, handle_tool_errors=True).invoke({"messages": state["messages"]})
    return {"messages": result["messages"], "turns": state.get("turns", 0) + 1}


def route_after_think(state: QAState) -> Literal["tools", "__end__"]:
    last = state["messages"][-1]
    return "tools" if isinstance(last, AIMessage) and last.tool_calls else END


def build_qa_graph(input_schema: type = QAState, output_schema: type = QAState) -> StateGraph:
    builder = StateGraph(QAState, context_schema=AgentContext, input_schema=input_schema, output_schema=output_schema)
    builder.add_node("prepare", prepare)
    builder.add_node("think", think)
    builder.add_node("tools", run_tools)
    builder.add_edge(START, "prepare")
    builder.add_edge("prepare", "think")
    builder.add_conditional_edges("think", route_after_think)
    builder.add_edge("tools", "think")
    return builder


# The inner monologue (messages in, messages and answer out) and the user-facing ``ask`` graph.
# Invoked inside the agent's world_model_qa node it is a subgraph: its checkpoints live in their own
# namespace of the agent's thread.
qa_graph = build_qa_graph().compile(name="world_model_qa")


def run_inner_monologue(state: QAState, runtime: Runtime[AgentContext]) -> QAState:
    """The same loop (prepare → think ⇄ tools) driven in-line, for the agent's world_model_qa node.

    Inside an agent step the loop is one unit of work, re-run whole if the step is resumed; driving it
    here rather than as a nested graph saves a checkpoint write per turn (~6 ms each).
    """
    state = {**state, **prepare(state)}
    while True:
        update = think(state, runtime)
        state = {**state, **update, "messages": [*state["messages"], *update["messages"]],
                 "usage": add_usage(state.get("usage"), update.get("usage"))}
        if route_after_think(state) == END:
            return state
        update = run_tools(state, runtime)
        state = {**state, "messages": [*state["messages"], *update["messages"]], "turns": update["turns"]}
ask_graph = build_qa_graph(AskInput, AskOutput).compile(name="ask")
