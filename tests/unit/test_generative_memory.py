"""The Simulacra baseline (AriGraph §4.1; Park et al. 2023's memory stream): observations retrieved by recency +
importance + relevance, each rated when stored, and reflections once the importance since the last adds up."""

from __future__ import annotations

from langgraph.runtime import Runtime

from ariadnegraph import prompting as p
from ariadnegraph.agent.context import AgentContext
from ariadnegraph.memory import WorldMemory
from ariadnegraph.memory.generative import REFLECT_AT, generative_ranking, reflection_due
from ariadnegraph.nodes import common
from ariadnegraph.nodes import retriever as retriever_module
from ariadnegraph.prompting import parse_sections
from tests.fakes import QueuedChatModel, fake_session, structured


def test_an_important_old_observation_outranks_a_trivial_recent_one_when_both_are_as_relevant() -> None:
    relevance = {1: 0.5, 8: 0.5, 9: 0.1}
    assert generative_ranking(relevance, {1: 9, 8: 1, 9: 1}, now=10, k=2) == [1, 8]
    # with no importance between them, the recent and relevant first; each score is min-max normalised, so step 9
    # (newest, least relevant) and step 1 (oldest, most relevant) tie, and the newer comes first
    assert generative_ranking(relevance, {1: 3, 8: 3, 9: 3}, now=10, k=3) == [8, 9, 1]
    assert generative_ranking({}, {}, now=3, k=5) == []
    assert generative_ranking(relevance, {}, now=10, k=0) == []


def test_a_reflection_is_due_once_the_importance_since_the_last_one_adds_up_to_the_threshold() -> None:
    ratings = {step: 10 for step in range(1, 16)}  # 150 in all
    assert reflection_due(ratings, since=0)
    assert REFLECT_AT == 150
    assert not reflection_due(ratings, since=1)  # step 1's rating was before that reflection


def test_the_retriever_rates_the_new_observation_retrieves_by_the_three_scores_and_reflects_when_due(monkeypatch) -> None:
    memory = WorldMemory()
    memory.observe(1, "You open the fridge: a carrot.", [])
    for step in range(2, 19):
        memory.observe(step, f"You look around the hall ({step}).", [])
    memory.observe(19, "The fridge holds a carrot.", [])
    model = QueuedChatModel(replies=[structured("Importance", score=7),
                                     structured("Insights", insights=["The carrot is in the fridge."])])
    monkeypatch.setattr(common, "load_chat_model", lambda *a, **k: model)
    rated = {"1": 9, **{str(step): 8 for step in range(2, 19)}}  # 145 since the start
    state = {"run_id": "r", "step": 19, "goal": "Cook the carrot", "observation": "The fridge holds a carrot.",
             "admissible": ["look"], "importance": rated, "reflected_at": -1}
    context = Runtime(context=AgentContext(preset="simulacra"))
    update = retriever_module.retriever(state, context, fake_session(memory))
    assert update["importance"] == {**rated, "19": 7}
    # the oldest observation, the most important and relevant, outranks the newest hall
    assert len(update["episodes_text"]) == 5
    assert update["episodes_text"][0].startswith("step 1:")
    # 145 + 7 reaches 150: the model reflects on what it observed since the start
    assert update["insights"] == ["The carrot is in the fridge."]
    assert update["reflected_at"] == 19
    read = parse_sections(model.calls[1]["messages"][-1].content)
    assert "step 1:" in read[p.HISTORY]
    assert "step 19:" in read[p.HISTORY]
    # a state that holds this step's rating, with nothing new since the reflection: no call at all
    again = retriever_module.retriever({**state, **update}, context, fake_session(memory))
    assert again["importance"]["19"] == 7
    assert len(model.calls) == 2
    assert "insights" not in again


def test_simulacra_keeps_the_unexplored_exits_when_a_run_asks_for_them(monkeypatch) -> None:
    memory = WorldMemory()
    memory.observe(0, "-= Kitchen =- An exit north.", [("player", "in", "kitchen"), ("kitchen", "has exit", "north")])
    model = QueuedChatModel(replies=[structured("Importance", score=3)])
    monkeypatch.setattr(common, "load_chat_model", lambda *a, **k: model)
    state = {"run_id": "r", "step": 0, "goal": "Cook", "observation": "-= Kitchen =- An exit north.", "admissible": []}
    context = Runtime(context=AgentContext(preset="simulacra", switch_overrides={"unexplored_exits": True}))
    update = retriever_module.retriever(state, context, fake_session(memory))
    assert update["importance"] == {"0": 3}
    assert any("north" in line for line in update["unexplored"])
    assert update["usage"]["importance"]["calls"] == 1
