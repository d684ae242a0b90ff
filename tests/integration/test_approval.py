"""Approval (agent/approval.py), in-process: the interrupt declares the answers it takes, refuses anything else in
one line at the same step with nothing played, plays a replacement, ends the episode on 'stop', and stays on for the
thread until a run's context turns it off. The server's clients go through the same node
(test_langgraph_server.py)."""

from __future__ import annotations

import json

import pytest
from langgraph.checkpoint.memory import InMemorySaver
from langgraph.types import Command

from ariadnegraph.agent.approval import RESPONSE_SCHEMA, Decision, read_decision
from ariadnegraph.agent.context import AgentContext
from ariadnegraph.agent.session import end_session
from ariadnegraph.graphs.agent import build_agent_graph
from ariadnegraph.runs import RunDir

GAME = {"env": "cooking:1", "seed": 1, "max_steps": 6}


@pytest.mark.parametrize(
    ("answer", "decision"),
    [
        ("accept", Decision("open door")),
        ({"type": "accept"}, Decision("open door")),
        ({"type": "replace", "command": "look"}, Decision("look", replaced=True)),
        ({"type": "replace", "command": "open door"}, Decision("open door")),  # the agent's own: nothing replaced
        ("stop", Decision(None)),
        ({"type": "stop"}, Decision(None)),
    ],
)
def test_each_answer_the_schema_declares_decides_one_thing(answer, decision):
    assert read_decision(answer, "open door") == decision


@pytest.mark.parametrize(
    "answer",
    ["reject", "yes please", "look", {"command": "look"}, {"accept": True}, {"type": "replace", "command": ""},
     {"type": "replace"}, {"type": "stop", "why": "bored"}, None, 3],
)
def test_anything_else_is_refused_in_one_line(answer):
    refusal = read_decision(answer, "open door")
    assert isinstance(refusal, str)
    assert "\n" not in refusal
    assert refusal.startswith("answer 'accept', 'stop' or {\"type\": \"replace\"")


def test_the_schema_a_client_renders_names_the_three_answers():
    text = json.dumps(RESPONSE_SCHEMA)
    assert all(word in text for word in ('"accept"', '"replace"', '"stop"', '"command"'))


@pytest.fixture
def thread(tmp_path):
    graph = build_agent_graph().compile(checkpointer=InMemorySaver())
    config = {"configurable": {"thread_id": "approved"}}
    yield graph, config, tmp_path
    end_session("approved")


def _context(tmp_path, approve: bool | None) -> AgentContext:
    return AgentContext(run_dir=str(tmp_path), model="scripted", approve_commands=approve)


def _question(graph, config) -> tuple[dict, dict | None]:
    interrupts = graph.get_state(config).interrupts
    assert len(interrupts) == 1
    return interrupts[0].value, interrupts[0].response_schema


def test_a_person_accepts_refused_replaces_and_stops_with_approval_kept_on(thread):
    graph, config, tmp_path = thread
    graph.invoke({**GAME, "run_id": "approved"}, config, context=_context(tmp_path, True))
    first, schema = _question(graph, config)
    assert first["step"] == 1
    assert first["command"]
    assert schema == RESPONSE_SCHEMA
    # later runs name no approve_commands: approval stays on; a refused answer plays nothing and asks again
    unset = _context(tmp_path, None)
    graph.invoke(Command(resume="reject"), config, context=unset)
    again, _ = _question(graph, config)
    assert again["step"] == 1
    assert again["error"].startswith("answer 'accept', 'stop'")
    run = RunDir.open(tmp_path, "approved")
    assert [r["step"] for r in run.steps()] == [0]
    graph.invoke(Command(resume="accept"), config, context=unset)
    second, _ = _question(graph, config)
    assert second["step"] == 2
    assert "error" not in second
    graph.invoke(Command(resume={"type": "replace", "command": "look"}), config, context=unset)
    third, _ = _question(graph, config)
    assert third["step"] == 3
    shown = list(graph.stream(Command(resume="stop"), config, context=unset, stream_mode="custom"))
    assert {"event": "stopped", "step": 2, "run_id": "approved"} in shown
    state = graph.get_state(config)
    assert not state.interrupts
    assert state.values["done"]
    assert state.values["stopped"]
    assert [r["action"] for r in run.steps()] == [None, first["command"], "look"]
    assert run.meta()["result"]["stopped"] is True
    assert run.meta()["result"]["steps"] == 2


def test_a_run_whose_context_says_false_turns_approval_off(thread):
    graph, config, tmp_path = thread
    graph.invoke({**GAME, "run_id": "approved"}, config, context=_context(tmp_path, True))
    assert _question(graph, config)[0]["step"] == 1
    graph.invoke(Command(resume="accept"), config, context=_context(tmp_path, False))
    state = graph.get_state(config)
    assert not state.interrupts
    assert state.values["done"]
    assert not state.values.get("stopped")
    assert state.values["step"] == GAME["max_steps"] or state.values["won"]
