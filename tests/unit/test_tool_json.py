"""The inner monologue on a model without native tool calls (JSON mode), and command grounding that
never turns a near miss into another action."""

from __future__ import annotations

import json

import pytest
from langchain_core.messages import AIMessage, HumanMessage, SystemMessage

from ariadnegraph.agent.context import AgentContext
from ariadnegraph.agent.readers import MemoryView
from ariadnegraph.envs.text import ground_command, safe_command
from ariadnegraph.memory import WorldMemory
from ariadnegraph.nodes import common
from ariadnegraph.nodes import world_model_qa as qa
from ariadnegraph.tools.kg_tools import KG_TOOLS
from tests.fakes import QueuedChatModel


@pytest.fixture()
def memory(monkeypatch) -> WorldMemory:
    memory = WorldMemory()
    memory.observe(1, "-= Kitchen =- A knife is on the counter.", [("player", "in", "Kitchen"), ("knife", "on", "counter"),
                                                                     ("counter", "in", "Kitchen")])
    return memory


def json_model(monkeypatch, *replies: str) -> QueuedChatModel:
    model = QueuedChatModel(replies=[AIMessage(content=r) for r in replies])
    monkeypatch.setattr(common, "load_chat_model", lambda *a, **k: model)
    return model


def ask(context: AgentContext, memory: WorldMemory) -> dict:
    start = {"messages": [SystemMessage(content="monologue"), HumanMessage(content="## GOAL\ncook")], "run_id": "r"}
    return qa.agent_monologue(MemoryView(memory=memory)).invoke(start, context=context)


def test_json_mode_looks_up_through_a_response_format_and_unwraps_the_answer(monkeypatch, memory):
    model = json_model(monkeypatch, '{"tool": "where_is", "entity": "knife"}', '{"answer": "where is the knife? -> on the counter"}')
    result = ask(AgentContext(tool_calling="json", qa_turns=3), memory)
    assert result["answer"] == "where is the knife? -> on the counter"
    first, second = model.calls
    assert first["tools"] == []  # no native tools: a response format instead
    assert "where_is(entity)" in first["messages"][0].content  # the tools are described in the system prompt
    # the second turn reads the lookup as plain messages: its call as JSON, the result as a user message
    assert json.loads(second["messages"][-2].content) == {"tool": "where_is", "entity": "knife"}
    assert second["messages"][-1].content.startswith('Result of where_is(entity="knife"):\nknife is on counter')
    assert result["replies"]["world_model_qa"] == {"parsed": 2}


def test_json_mode_requests_allow_an_answer_only_after_the_first_lookup(monkeypatch, memory):
    captured = []
    model = json_model(monkeypatch, '{"tool": "unexplored_exits", "location": ""}', '{"answer": "exits -> none"}')
    original = model.bind

    def bind(**kwargs):
        captured.append(kwargs.get("response_format"))
        return original(**kwargs)

    monkeypatch.setattr(type(model), "bind", lambda self, **kwargs: bind(**kwargs))
    ask(AgentContext(tool_calling="json", qa_turns=3), memory)
    options = [[alt["required"][0] for alt in f["json_schema"]["schema"]["anyOf"]] for f in captured]
    assert "answer" not in options[0]
    assert options[0].count("tool") == len(KG_TOOLS)
    assert "answer" in options[1]


def test_a_call_it_cannot_write_twice_ends_the_lookups_with_no_findings(monkeypatch, memory):
    broken = '{"name": "unexplored exits", "arguments": {"Hallway: east"}}'  # Qwen2.5-0.5B wrote this (tests/fixtures)
    model = json_model(monkeypatch, broken, broken)
    result = ask(AgentContext(tool_calling="native", qa_turns=3), memory)
    assert result["answer"] == ""
    assert len(model.calls) == 2
    assert "not a tool call that could be read" in model.calls[1]["messages"][-1].content
    assert result["replies"]["world_model_qa"] == {"fallback": 1, "invalid_json": 2}


def test_the_mode_follows_the_model_unless_set():
    assert AgentContext(model="local:smollm2-135m").tool_mode() == "json"
    assert AgentContext(model="openai:gpt-4o-mini").tool_mode() == "native"
    assert AgentContext(model="local:smollm2-135m", tool_calling="native").tool_mode() == "native"
    with pytest.raises(ValueError, match="unknown tool calling mode 'xml'"):
        AgentContext(tool_calling="xml")


@pytest.mark.parametrize("wanted, valid, expected", [
    ("take the knife from the counter", ["take knife from counter"], "take knife from counter"),
    ("Open  Fridge", ["open fridge"], "open fridge"),
    ("go west", ["go east", "go north"], None),  # a near miss in spelling, the opposite way
    ("go northeast", ["go northwest"], None),
    ("open fridge", ["close fridge"], None),
    ("take red apple", ["take red potato"], None),
    ("eat red apple", ["eat red potato", "look"], None),
    ("slice red potatoe with knife", ["slice red potato with knife"], "slice red potato with knife"),
    ("cook green bell pepper with oven", ["cook red bell pepper with oven"], None),  # another thing, though 90% alike
    ("cook red bell peper with oven", ["cook red bell pepper with oven"], "cook red bell pepper with oven"),
])
def test_grounding_never_turns_a_command_into_another_action(wanted, valid, expected):
    assert ground_command(wanted, valid) == expected


def test_the_safe_command_changes_nothing():
    assert safe_command(["eat apple", "look", "drop knife"]) == "look"
    assert safe_command(["open door to kitchen", "look around"]) == "look around"
    assert safe_command(["eat apple"]) == "eat apple"
    assert safe_command([]) == "look"
