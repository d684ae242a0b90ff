"""The model layer's answers to bad replies: unreadable ones retried then one clear error, wrapped JSON
repaired, and the retry/timeout settings read from the environment with their types."""

from __future__ import annotations

import json

import pytest
from langchain_core.runnables import RunnableLambda

from ariadnegraph.agent.context import AgentContext
from ariadnegraph.models import MalformedReply, invoke_model, read_reply
from ariadnegraph.nodes.schemas import Plan

PLAN = {"subgoal": "find the knife", "reasoning": "it is on the counter", "steps": [{"action": "take knife", "expected": "You take the knife."}]}


def flaky(failures: list[BaseException]):
    """A runnable failing with ``failures`` in turn, then answering; it counts its calls."""
    calls = []

    def run(messages):
        calls.append(messages)
        if failures:
            raise failures.pop(0)
        return "ok"

    return RunnableLambda(run), calls


def test_unreadable_replies_are_retried_then_answered():
    runnable, calls = flaky([json.JSONDecodeError("cut", "{", 1), IndexError("no choices")])
    assert invoke_model(runnable, ["hi"], retries=2) == "ok"
    assert len(calls) == 3


def test_unreadable_replies_past_the_bound_are_one_clear_error():
    runnable, calls = flaky([IndexError("list index out of range")] * 5)
    with pytest.raises(MalformedReply, match=r"could not be read after 2 tries \(IndexError"):
        invoke_model(runnable, ["hi"], retries=1)
    assert len(calls) == 2


def test_other_errors_are_not_retried():
    runnable, calls = flaky([KeyError("a bug, not a bad reply")])
    with pytest.raises(KeyError):
        invoke_model(runnable, ["hi"], retries=3)
    assert len(calls) == 1


@pytest.mark.parametrize("text", [
    f"```json\n{json.dumps(PLAN)}\n```",
    f"Here is my plan:\n```json\n{json.dumps(PLAN)}\n```\nGood luck!",
    f"```\n{json.dumps(PLAN)}\n```",
    f"Here is my plan: {json.dumps(PLAN)} Good luck!",
])
def test_wrapped_json_is_repaired(text):
    reading = read_reply(Plan, text)
    assert reading.value == Plan.model_validate(PLAN)
    assert reading.repaired
    assert reading.issues == []


def test_plain_json_is_read_as_it_is():
    reading = read_reply(Plan, json.dumps(PLAN))
    assert reading.value == Plan.model_validate(PLAN)
    assert not reading.repaired


@pytest.mark.parametrize("text, issue", [("Sure! Let me look around first.", "invalid_json"), ("", "invalid_json"),
                                         ('```json\n{"subgoal": "x"}\n```', "schema")])
def test_what_cannot_be_repaired_is_left_to_the_re_ask(text, issue):
    reading = read_reply(Plan, text)
    assert reading.value is None
    assert reading.issues == [issue]
    assert reading.problem


def test_a_schema_violation_names_the_field():
    reading = read_reply(Plan, json.dumps({"subgoal": 3}))
    assert reading.issues == ["schema"]
    assert "subgoal" in reading.problem
    assert "steps" in reading.problem


def test_retry_and_timeout_settings_come_typed_from_the_environment(monkeypatch):
    monkeypatch.setenv("ARIADNE_REQUEST_TIMEOUT", "2.5")
    monkeypatch.setenv("ARIADNE_MAX_RETRIES", "1")
    context = AgentContext()
    assert context.request_timeout == 2.5
    assert context.max_retries == 1
    monkeypatch.setenv("ARIADNE_REQUEST_TIMEOUT", "soon")
    with pytest.raises(ValueError, match="ARIADNE_REQUEST_TIMEOUT='soon' is not a float"):
        AgentContext()
    monkeypatch.delenv("ARIADNE_REQUEST_TIMEOUT")
    with pytest.raises(ValueError, match="max retries must be between 0 and 10"):
        AgentContext(max_retries=-1)
    with pytest.raises(ValueError, match="request timeout must be between 0.01 and 3600"):
        AgentContext(request_timeout=0)


def test_a_base_url_never_receives_the_providers_or_the_servers_key(monkeypatch):
    """OPENAI_API_KEY is OpenAI's, ARIADNE_SERVER_API_KEY the LangGraph server's: a model at another URL
    gets ARIADNE_MODEL_API_KEY, or a placeholder when none is given. A loopback listener stands in."""
    from ariadnegraph.models.chat import NO_KEY, load_chat_model
    from ariadnegraph.testing.openai_server import serve

    monkeypatch.setenv("OPENAI_API_KEY", "sk-operator-provider-key")
    monkeypatch.setenv("ARIADNE_SERVER_API_KEY", "server-auth-secret")
    monkeypatch.delenv("ARIADNE_MODEL_API_KEY", raising=False)
    server, url = serve()
    try:
        load_chat_model("openai:scripted", base_url=url, max_retries=0).invoke("hello")
        monkeypatch.setenv("ARIADNE_MODEL_API_KEY", "key-for-this-server")
        load_chat_model("openai:scripted", base_url=url, max_retries=0).invoke("hello")
        seen = [request["authorization"] for request in server.requests]
    finally:
        server.close()
    assert seen == [f"Bearer {NO_KEY}", "Bearer key-for-this-server"]
