"""ScriptedChatModel as a LangChain chat model: structured output, tool loops, retries, usage, determinism."""

from __future__ import annotations

from langchain_core.language_models import BaseChatModel
from langchain_core.messages import AIMessage, HumanMessage, SystemMessage, ToolMessage
from langchain_core.tools import tool

from ariadnegraph import prompting as p
from ariadnegraph.models import call_structured, load_chat_model
from ariadnegraph.nodes.schemas import (
    ActionChoice,
    Belief,
    Critique,
    Extraction,
    Plan,
    SafetyVerdict,
    SpatialBelief,
)
from ariadnegraph.testing.scripted import ScriptedChatModel

GOAL = "Prepare the meal from the recipe and eat it"


def planner_prompt() -> list:
    return [SystemMessage(content="You plan."), HumanMessage(content=p.render_sections({
        p.GOAL: GOAL, p.OBSERVATION: "-= Kitchen =-\nYou see a table. On the table you make out a cookbook.",
        p.LOCATION: "Kitchen", p.INVENTORY: "(unknown)", p.ADMISSIBLE: ["examine cookbook", "go east", "look"],
        p.BELIEF: "", p.MEMORY: [], p.EXPLORATION: [], p.NOTES: [], p.PLAN: [], p.FEEDBACK: "(none)", p.HISTORY: []}))]


def test_is_a_chat_model_loaded_by_name():
    model = load_chat_model("scripted")
    assert isinstance(model, ScriptedChatModel)
    assert isinstance(model, BaseChatModel)
    assert model._llm_type == "scripted"


def test_structured_output_plan():
    plan = ScriptedChatModel().with_structured_output(Plan).invoke(planner_prompt())
    assert isinstance(plan, Plan)
    assert plan.steps[0].action == "examine cookbook"


def test_structured_output_critique_with_raw():
    messages = [HumanMessage(content=p.render_sections({
        p.GOAL: GOAL, p.OBSERVATION: "You can't go that way.", p.ADMISSIBLE: ["go east"], p.BELIEF: "",
        p.LAST_ACTION: "go north", p.EXPECTED: "Garden", p.ACTUAL: "You can't go that way.", p.PROPOSED_ACTION: "go east"}))]
    out = ScriptedChatModel().with_structured_output(Critique, include_raw=True).invoke(messages)
    assert out["parsing_error"] is None
    assert out["parsed"].outcome_matches is False
    assert out["parsed"].action_approved is True
    assert out["raw"].tool_calls[0]["name"] == "Critique"


def test_every_role_schema_validates():
    model = ScriptedChatModel()
    for schema in (Belief, Extraction, SpatialBelief, Plan, Critique, ActionChoice):
        assert isinstance(model.with_structured_output(schema).invoke(planner_prompt()), schema)


def test_the_safety_check_rejects_a_trajectory_predicted_to_lose_the_game():
    def judged(*lines: str) -> SafetyVerdict:
        prompt = [HumanMessage(content=p.render_sections({p.GOAL: GOAL, p.PREDICTED: list(lines)}))]
        return ScriptedChatModel().with_structured_output(SafetyVerdict).invoke(prompt)

    assert judged("open fridge -> You open the fridge (reward 0)").safe is True
    lost = judged("open fridge -> You open the fridge", "eat raw chicken -> You eat it. You have died. (reward 0)")
    assert lost.safe is False
    assert "'eat raw chicken'" in lost.reason


def test_malformed_replies_then_valid_through_parse_and_retry():
    model = ScriptedChatModel(malformed_replies=1)
    first = model.with_structured_output(Plan, include_raw=True).invoke(planner_prompt())
    assert first["parsing_error"] is not None
    result = call_structured(model, Plan, planner_prompt(), max_tries=3)
    assert result.tries == 2
    assert not result.fell_back
    assert result.errors
    assert isinstance(result.value, Plan)


def test_usage_metadata_and_determinism():
    model = ScriptedChatModel()
    a = model.with_structured_output(Plan, include_raw=True).invoke(planner_prompt())["raw"]
    b = model.with_structured_output(Plan, include_raw=True).invoke(planner_prompt())["raw"]
    assert a.tool_calls == b.tool_calls
    usage = a.usage_metadata
    chars = sum(len(m.content) for m in planner_prompt())
    assert usage["input_tokens"] >= chars // 4
    assert usage["output_tokens"] > 0
    assert usage["total_tokens"] == usage["input_tokens"] + usage["output_tokens"]


@tool
def where_is(entity: str) -> str:
    """Where an entity is now."""
    return {"red potato": "red potato is on bed (since step 1)", "bed": "bed is in Bedroom (since step 0)"}.get(entity, f"{entity}: location unknown")


@tool
def unexplored_exits(location: str = "") -> str:
    """Unexplored exits."""
    return "Kitchen: north\nBedroom: west"


def test_kg_tool_loop_ends_in_a_text_answer():
    model = ScriptedChatModel().bind_tools([where_is, unexplored_exits])
    belief = "Recipe: red potato\nDirections: fry the red potato; prepare meal\nVisited: Bedroom, Kitchen"
    messages = [SystemMessage(content="monologue"), HumanMessage(content=p.render_sections({
        p.GOAL: GOAL, p.BELIEF: belief, p.LOCATION: "Kitchen", p.INVENTORY: "(unknown)", p.PLAN: [], p.FEEDBACK: "(none)"}))]
    tools = {"where_is": where_is, "unexplored_exits": unexplored_exits}
    for _ in range(4):
        reply = model.invoke(messages)
        assert reply.usage_metadata["total_tokens"] > 0
        messages.append(reply)
        if not reply.tool_calls:
            break
        messages += [ToolMessage(content=tools[c["name"]].invoke(c["args"]), tool_call_id=c["id"], name=c["name"]) for c in reply.tool_calls]
    assert isinstance(messages[-1], AIMessage)
    assert not messages[-1].tool_calls
    answer = messages[-1].content
    assert "where is red potato -> Bedroom (on bed)" in answer
    assert "unexplored exits -> Kitchen: north; Bedroom: west" in answer


def test_plain_answer_from_tool_results_for_ask():
    messages = [HumanMessage(content=p.render_sections({p.QUESTION: "Where is the knife?"})),
                AIMessage(content="", tool_calls=[{"name": "where_is", "args": {"entity": "knife"}, "id": "c1", "type": "tool_call"}]),
                ToolMessage(content="knife is on counter (since step 3)", tool_call_id="c1"),
                HumanMessage(content="You have used all your tool turns. Answer now from what the tools returned.")]
    reply = ScriptedChatModel().invoke(messages)
    assert not reply.tool_calls
    assert "knife is on counter" in reply.content


def test_question_with_tools_calls_the_matching_tool():
    model = ScriptedChatModel().bind_tools([where_is, unexplored_exits])
    reply = model.invoke([HumanMessage(content=p.render_sections({p.QUESTION: "Where is the red potato?"}))])
    assert reply.tool_calls[0]["name"] == "where_is"
    assert reply.tool_calls[0]["args"] == {"entity": "red potato"}
