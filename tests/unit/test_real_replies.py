"""What the agent does with bad replies real models wrote: each failure class, replayed from llama.cpp's
HTTP answers recorded with SmolLM2-135M and Qwen2.5-Coder-0.5B (tests/fixtures/record_replies.py).

The recorded response bodies go through the real client path (langchain-openai, the openai client,
``response_format`` parsing, usage with cached tokens) by an httpx transport that answers from the
recordings, so no server runs here.
"""

from __future__ import annotations

import json
from pathlib import Path

import httpx
import pytest
from langchain_core.messages import HumanMessage, SystemMessage
from langchain_openai import ChatOpenAI

from ariadnegraph import prompting as p
from ariadnegraph.agent.context import AgentContext
from ariadnegraph.models import FALLBACK, PARSED, REASKED, REPAIRED, call_structured
from ariadnegraph.models.structured import CUT, INVALID_JSON, SCHEMA
from ariadnegraph.models.tool_json import attempted_call, calls_in_content
from ariadnegraph.nodes import actor as actor_node
from ariadnegraph.nodes import common
from ariadnegraph.nodes.relation_retriever import grounded
from ariadnegraph.nodes.schemas import ActionChoice, Belief, ExplorationCheck, Extraction, Plan
from tests.fakes import fake_session

REPLIES = Path(__file__).parents[1] / "fixtures" / "replies"


def recorded(name: str) -> dict:
    return json.loads((REPLIES / f"{name}.json").read_text())


class Replay:
    """An httpx transport answering chat requests with recorded bodies, in turn; it keeps the requests."""

    def __init__(self, *names: str) -> None:
        self.bodies = [recorded(name)["response"] for name in names]
        self.requests: list[dict] = []

    def __call__(self, request: httpx.Request) -> httpx.Response:
        self.requests.append(json.loads(request.content))
        body = self.bodies.pop(0) if len(self.bodies) > 1 else self.bodies[0]
        return httpx.Response(200, json={"id": "replay", "object": "chat.completion", "created": 0, **body})


def model_for(replay: Replay, max_tokens: int = 256) -> ChatOpenAI:
    return ChatOpenAI(model="replay", api_key="test", base_url="http://replay.invalid/v1", max_retries=0, temperature=0,
                      max_tokens=max_tokens, http_client=httpx.Client(transport=httpx.MockTransport(replay)))


def prompt_of(name: str) -> list:
    request = recorded(name)["request"]
    return [SystemMessage(content=request["messages"][0]["content"]), HumanMessage(content=request["messages"][1]["content"])]


# -- cut by the length limit ------------------------------------------------------------------------
def test_a_belief_cut_mid_string_is_kept_as_far_as_it_goes():
    replay = Replay("cut_belief")
    result = call_structured(model_for(replay, 24), Belief, prompt_of("cut_belief"))
    assert result.outcome == REPAIRED
    assert result.issues == {CUT: 1}
    assert len(replay.requests) == 1
    assert result.value.belief.startswith("Recipe: red apple")
    assert result.value.belief.endswith("Have:")
    assert replay.requests[0]["response_format"]["type"] == "json_schema"
    assert result.usage.prompt_tokens == recorded("cut_belief")["response"]["usage"]["prompt_tokens"]  # usage survives the cut


def test_an_extraction_cut_inside_a_triplet_drops_the_unfinished_one():
    result = call_structured(model_for(Replay("cut_extraction"), 40), Extraction, prompt_of("cut_extraction"))
    assert result.outcome == REPAIRED
    assert result.issues == {CUT: 1}
    assert result.value.triplets == [["player", "in", "Kitchen"], ["Kitchen", "north of", "Hallway"], ["fridge", "in", "Kitchen"]]


# -- no JSON at all ------------------------------------------------------------------------------------
def test_rambling_prose_cut_by_the_limit_is_sent_back_then_falls_back():
    replay = Replay("no_grammar_plan_smollm2")
    fallback = Plan(subgoal="look", steps=[{"action": "look"}])
    result = call_structured(model_for(replay), Plan, prompt_of("no_grammar_plan_smollm2"), max_tries=2, fallback=fallback)
    assert result.outcome == FALLBACK
    assert result.value == fallback
    assert len(replay.requests) == 2
    assert result.issues[CUT] == 2
    assert result.tries == 2
    second = replay.requests[1]["messages"]
    assert second[-2]["role"] == "assistant"
    assert second[-2]["content"].startswith("The game's answer is")
    assert "could not be used as Plan" in second[-1]["content"]
    assert "cut off" in second[-1]["content"]


def test_a_prose_reply_is_sent_back_as_invalid_json_then_falls_back():
    replay = Replay("no_grammar_exploration_qwen")
    result = call_structured(model_for(replay, 24), ExplorationCheck, prompt_of("no_grammar_exploration_qwen"), max_tries=2,
                             fallback=ExplorationCheck(explore=True))
    assert result.outcome == FALLBACK
    assert result.issues == {INVALID_JSON: 2}
    assert len(replay.requests) == 2
    assert "no JSON object could be read (The current plan indicates" in replay.requests[1]["messages"][-1]["content"]


def test_a_reply_that_is_valid_json_without_the_grammar_is_read_as_it_is():
    result = call_structured(model_for(Replay("no_grammar_plan_qwen")), Plan, prompt_of("no_grammar_plan_qwen"))
    assert result.outcome == PARSED
    assert result.value.steps[0].action == "open fridge"


def test_after_a_bad_reply_a_good_one_is_counted_as_reasked():
    replay = Replay("no_grammar_plan_smollm2", "plan_qwen")
    result = call_structured(model_for(replay), Plan, prompt_of("plan_qwen"), max_tries=3)
    assert result.outcome == REASKED
    assert result.tries == 2
    assert result.value.steps


# -- tool calls written in the content ---------------------------------------------------------------
def tool_reply(name: str):
    replay = Replay(name)
    request = recorded(name)["request"]
    return model_for(replay).bind_tools(request["tools"]).invoke(prompt_of(name))


def test_tool_calls_written_in_the_content_become_tool_calls():
    reply = tool_reply("tools_in_content_qwen")
    assert not reply.tool_calls  # the server returned them as text
    fixed = calls_in_content(reply, ["where_is", "unexplored_exits"])
    assert [(c["name"], c["args"]) for c in fixed.tool_calls] == [("where_is", {"entity": "Kitchen"}),
                                                                   ("unexplored_exits", {"location": "Kitchen"})]


def test_a_broken_call_of_an_unknown_tool_is_recognised_as_an_attempt():
    reply = tool_reply("unknown_tool_qwen")
    assert calls_in_content(reply, ["where_is"]) is None  # {"Hallway: east"} is no JSON: nothing to run
    assert attempted_call(reply.content)  # ... but it tried: the monologue asks again (nodes.world_model_qa.think)


def test_an_unknown_tool_in_a_readable_call_is_kept_for_the_tool_node_to_refuse():
    text = recorded("unknown_tool_qwen")["response"]["choices"][0]["message"]["content"].replace('{"Hallway: east"}', '{"location": "Room A"}')
    from langchain_core.messages import AIMessage

    fixed = calls_in_content(AIMessage(content=text), ["where_is"])
    assert [c["name"] for c in fixed.tool_calls] == ["unexplored exits"]


def test_prose_is_no_tool_call():
    reply = tool_reply("tools_in_content_smollm2")
    assert calls_in_content(reply, ["where_is", "unexplored_exits"]) is None
    assert not attempted_call(reply.content)


# -- a command that is not valid ----------------------------------------------------------------------
def ground(monkeypatch, name: str) -> tuple[dict, list[str]]:
    """The actor asked to ground 'open fridge' in a bedroom, answered by a recorded reply."""
    replay = Replay(name)
    monkeypatch.setattr(common, "load_chat_model", lambda *a, **k: model_for(replay, ActionChoice.reply_tokens))
    session = fake_session()  # no map known
    shown = p.parse_sections(recorded(name)["request"]["messages"][1]["content"])
    admissible = p.bullet_items(shown[p.ADMISSIBLE])
    state = {"env": "cooking:1", "step": 0, "plan": [{"action": "open fridge", "expected": ""}], "admissible": admissible,
             "observation": shown[p.OBSERVATION]}

    class Runtime:
        context = AgentContext(preset="ariadne_full", structured_tries=2)  # the model grounds a plan step (ariadne sends it back)

    return actor_node.actor(state, Runtime(), session), admissible


def test_with_the_valid_commands_in_the_schema_the_actor_can_only_choose_one(monkeypatch):
    update, admissible = ground(monkeypatch, "actor_grounding")
    assert update["command"] == "go north"
    assert update["replies"]["actor"] == {PARSED: 1}


def test_an_invalid_command_from_a_server_that_ignores_the_choices_is_sent_back_then_replaced_safely(monkeypatch):
    update, admissible = ground(monkeypatch, "actor_grounding_no_choices")
    assert "take knife from fridge" in recorded("actor_grounding_no_choices")["response"]["choices"][0]["message"]["content"]
    assert update["command"] == "look"  # the safe command: it changes nothing
    assert update["replies"]["actor"] == {FALLBACK: 1, SCHEMA: 2}


# -- triplets naming what the text never mentioned -------------------------------------------------
def test_triplets_naming_nothing_in_the_text_are_dropped():
    result = call_structured(model_for(Replay("extraction_smollm2")), Extraction, prompt_of("extraction_smollm2"))
    sections = p.parse_sections(prompt_of("extraction_smollm2")[1].content)
    assert result.outcome == PARSED
    assert result.value.triplets
    kept, dropped = grounded(result.value.triplets, sections)
    assert kept == []
    assert dropped == len(result.value.triplets)


@pytest.mark.parametrize("triplet, keep", [
    (["knife", "on", "counter"], True),
    (["fridge", "is", "closed"], True),
    (["red apple", "in", "fridge"], False),  # no apple in this kitchen
    (["player", "in", "Kitchen"], True),  # a convention of the extraction prompt
    (["Kitchen", "has exit", "west"], True),
])
def test_grounding_keeps_what_the_text_names(triplet, keep):
    sections = p.parse_sections(prompt_of("extraction_smollm2")[1].content)
    assert (grounded([triplet], sections)[0] == [triplet]) is keep


# -- JSON that breaks the syntax the way models do (json-repair) ----------------------------------------
def written(content: str) -> Replay:
    """A transport answering every request with ``content`` as the reply's text."""
    replay = Replay("plan_qwen")
    body = json.loads(json.dumps(replay.bodies[0]))
    body["choices"][0]["message"]["content"] = content
    body["choices"][0]["finish_reason"] = "stop"
    replay.bodies = [body]
    return replay


MALFORMED_PLANS = {
    "single quotes": "{'subgoal': 'get the milk', 'steps': [{'action': 'open fridge', 'expected': 'You open'}]}",
    "a trailing comma": '{"subgoal": "get the milk", "steps": [{"action": "open fridge", "expected": "You open"},],}',
    "an unquoted key": '{subgoal: "get the milk", steps: [{action: "open fridge", expected: "You open"}]}',
    "a comment": '{"subgoal": "get the milk", // the fridge holds it\n "steps": [{"action": "open fridge", "expected": "You open"}]}',
    "a raw newline": '{"subgoal": "get the\nmilk", "steps": [{"action": "open fridge", "expected": "You open"}]}',
    "a block comment": '{"subgoal": "get the milk", /* one step */ "steps": [{"action": "open fridge", "expected": "You open"}]}',
}


@pytest.mark.parametrize("kind", list(MALFORMED_PLANS))
def test_malformed_json_is_read_without_a_re_ask_and_counted_as_repaired(kind):
    from ariadnegraph.models.structured import MALFORMED_JSON

    text = MALFORMED_PLANS[kind]
    with pytest.raises(ValueError):
        json.loads(text)  # what a strict reader refuses
    replay = written(text)
    result = call_structured(model_for(replay), Plan, prompt_of("plan_qwen"), max_tries=3)
    assert len(replay.requests) == 1, kind  # no re-ask
    assert result.outcome == REPAIRED
    assert result.issues == {MALFORMED_JSON: 1}
    assert result.counts() == {REPAIRED: 1, MALFORMED_JSON: 1}
    assert result.value.steps[0].action == "open fridge"
    assert " ".join(result.value.subgoal.split()) == "get the milk"


def test_repaired_json_the_schema_refuses_is_still_sent_back():
    replay = written("{'subgoal': 'get the milk'}")  # readable once repaired, but no steps
    result = call_structured(model_for(replay), Plan, prompt_of("plan_qwen"), max_tries=2,
                             fallback=Plan(subgoal="look", steps=[{"action": "look"}]))
    assert result.outcome == FALLBACK
    assert result.issues == {SCHEMA: 2}
    assert len(replay.requests) == 2
    assert "steps: Field required" in replay.requests[1]["messages"][-1]["content"]
