"""The ``ask`` graph (langgraph.json): a user's question about a run's memory, answered by the inner
monologue the agent runs before planning (:mod:`ariadnegraph.nodes.world_model_qa`) — the same loop
and tools, here with a bare question in and the answer out (absolute imports: the LangGraph server
loads this file by path).

The served graph (``ask_graph``) first checks the request: the input's types, and that the client's
context leaves the operator's settings alone, so a client reads only runs in the server's run directory.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from langgraph.graph.state import CompiledStateGraph
from langgraph.runtime import Runtime
from typing_extensions import TypedDict

from ariadnegraph.agent.context import AgentContext, check_client_settings
from ariadnegraph.agent.session import memory_view
from ariadnegraph.models.doubles import check_answers_with_a_model
from ariadnegraph.nodes.world_model_qa import QAState, build_monologue
from ariadnegraph.runs import LAST, META_FILE, AmbiguousRun, RunNotFound, check_run_id, find_run
from ariadnegraph.tools.kg_tools import KGReader


class AskInput(TypedDict, total=False):
    run_id: str
    question: str
    as_of: int | None  # ask about the memory as it was at this step
    answer_format: str | None  # how the answer is to be written (memory QA's rules); never read as the question


class AskOutput(TypedDict, total=False):
    answer: str
    turns: int
    as_of: int | None  # the step the answer is as of: the one asked, or the run's last when it asked past that
    note: str  # said when the step asked is past the run's last (how the answer was read)


def check_question(state: QAState) -> None:
    """The question's input as the graph needs it, or one clear line."""
    run_id = state.get("run_id")
    if not isinstance(run_id, str):
        raise RunNotFound(f"ask needs a run_id (text), got {run_id!r:.60}")
    check_run_id(run_id)
    question = state.get("question")
    if not isinstance(question, str) or not question.strip():
        raise ValueError("ask needs a question (text)")
    as_of = state.get("as_of")
    if as_of is not None and (type(as_of) is not int or as_of < 0):
        raise ValueError(f"as_of must be a step number (an integer >= 0) or null, got {_shown(as_of)}")


def _shown(value: object) -> str:
    """A client's value in a line, short: an integer of thousands of digits by its size (Python will not even write
    one past 4300 digits)."""
    if type(value) is int and abs(value) >= 10**20:
        return f"~{'-' * (value < 0)}2**{abs(value).bit_length() - 1}"
    return f"{value!r:.60}"


SERVED_PREFIX = 8  # the shortest run-id prefix a server's client may name a run by


def served_request(state: QAState, runtime: Runtime[AgentContext]) -> dict[str, Any]:
    """A client's question checked, and its run named as the CLI takes one: an id, a unique prefix or 'last' (of the
    server's run directory)."""
    check_client_settings(runtime.context)
    check_question(state)
    check_answers_with_a_model(runtime.context.model_for("qa"), "a question about a run")
    given = state["run_id"]
    short = given != LAST and len(given) < SERVED_PREFIX  # a short prefix would let a client enumerate the runs
    if short and not Path(runtime.context.run_dir, given, META_FILE).is_file():
        raise RunNotFound(f"no run '{given}' on this server (a prefix needs {SERVED_PREFIX} characters or more)")
    try:
        run_id = find_run(runtime.context.run_dir, given)
    except AmbiguousRun:  # (which runs it matches is not the client's to list)
        raise RunNotFound(f"'{given}' names several runs on this server: give more of its id") from None
    except RunNotFound:  # (nor the server's folders)
        raise RunNotFound(f"no run '{given}' on this server") from None
    return {"run_id": run_id, **answered_as_of(run_id, runtime.context.run_dir, state.get("as_of"))}


def local_request(state: QAState, runtime: Runtime[AgentContext]) -> dict[str, Any]:
    check_question(state)
    check_answers_with_a_model(runtime.context.model_for("qa"), "a question about a run")
    return answered_as_of(state["run_id"], runtime.context.run_dir, state.get("as_of"))


def answered_as_of(run_id: str, run_dir: str, as_of: int | None) -> dict[str, Any]:
    """A step past the last one the run's memory recorded is answered as of that last step (nothing was recorded
    later: the same answer, at what the run costs), and the answer says so."""
    if as_of is None:
        return {}
    reader = memory_view(run_id, run_dir).kg(as_of)
    if not reader.past_end:
        return {}
    note = f"step {_shown(as_of)} is past the run's last step, {reader.at}: answered as of it"
    return {"as_of": reader.at, "note": note}


def saved_memory(state: QAState, runtime: Runtime[AgentContext]) -> KGReader:
    """The memory a question reads: the run's (the live session's, or its saved files), as of the asked step."""
    return memory_view(state["run_id"], runtime.context.run_dir).kg(state.get("as_of"))


def build_ask_graph(*, served: bool) -> CompiledStateGraph[QAState, AgentContext, Any, Any]:
    """``served``: the graph a LangGraph server runs for its clients; else the CLI's (its own run_dir)."""
    return build_monologue(
        saved_memory, AskInput, AskOutput, check=served_request if served else local_request
    ).compile(name="ask")


ask_graph = build_ask_graph(served=True)  # langgraph.json's "ask"
local_ask_graph = build_ask_graph(served=False)  # the CLI's and the evals' (they choose their run directory)
