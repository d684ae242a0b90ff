"""DAVIS as its paper describes it: gold runs as dated history (never current state), algorithm 2's graph
search (narrow, top-2, expand, time order), the world model predicting each planned step, the actor
expanding a step into several commands, and the belief f(tau)."""

from __future__ import annotations

from types import SimpleNamespace
from typing import Any, get_args

import pytest
from langchain_core.messages import AIMessage, HumanMessage
from langgraph.runtime import Runtime
from langgraph.store.memory import InMemoryStore

from ariadnegraph import prompting as p
from ariadnegraph.agent.ablations import ablation
from ariadnegraph.agent.context import AgentContext
from ariadnegraph.agent.presets import PRESETS, switch_values
from ariadnegraph.agent.recall import recall, world_history
from ariadnegraph.graphs import agent
from ariadnegraph.memory import WorldMemory
from ariadnegraph.memory.longterm import LongTermMemory, Namespace
from ariadnegraph.memory.queries import dated_transitions
from ariadnegraph.memory.transitions import (
    ENTITY_TYPES,
    PLACE,
    STATE,
    THING,
    THIS_EPISODE,
    DatedFact,
    entity_types,
    expand,
    in_time_order,
    narrow,
    top_entities,
)
from ariadnegraph.nodes import actor as actor_module
from ariadnegraph.nodes import common
from ariadnegraph.nodes import world_model_qa as qa_module
from ariadnegraph.nodes.schemas import EntityKind
from tests.fakes import QueuedChatModel, fake_session, structured

GOLD = "gold:cooking:1:seed=101"


def gold_run_memory() -> WorldMemory:
    """A small gold run: the fridge starts closed, is opened at step 1, the apple taken at step 2."""
    memory = WorldMemory()
    memory.observe(0, "-= Kitchen =- A closed fridge.", [("player", "in", "Kitchen"), ("fridge", "in", "Kitchen"), ("fridge", "is", "closed")])
    memory.observe(1, "You open the fridge, revealing a red apple.", [("fridge", "is", "open"), ("red apple", "in", "fridge")],
                   outdated=[("fridge", "is", "closed")], action="open fridge")
    memory.observe(2, "You take the red apple.", [("red apple", "in", "inventory")], outdated=[("red apple", "in", "fridge")],
                   action="take red apple from fridge")
    return memory


def test_gold_runs_are_dated_history_never_the_current_state_of_a_new_episode(monkeypatch):
    gold = gold_run_memory()
    transitions = dated_transitions(gold, GOLD)
    # every transition the gold run saw, closed ones included, with its run, step and the command before it
    assert DatedFact("fridge", "is", "closed", GOLD, 0, None) in transitions
    assert DatedFact("red apple", "in", "fridge", GOLD, 1, "open fridge") in transitions
    store = InMemoryStore()
    ns = Namespace("davis", "cooking")
    longterm = LongTermMemory(store)
    assert longterm.add_transitions(ns, transitions, GOLD) == len(transitions)
    assert longterm.add_transitions(ns, transitions, GOLD) == len(transitions)  # read again: replaced, not doubled
    assert longterm.facts(ns) == []
    assert len(longterm.transitions(ns)) == len(transitions)

    # a new episode recalls the namespace: nothing of the gold run is current (the old lasting_facts seeded
    # 'fridge is open' and 'fridge in Kitchen' at step 0, another variation's end state standing as this one's)
    episode = WorldMemory()
    session = SimpleNamespace(memory=episode, recalled=None,
                              run=SimpleNamespace(meta=lambda: {}, write_meta=lambda meta: None))
    state = {"env": "cooking:1"}
    recall(state, session, "davis", store)  # type: ignore[arg-type]
    episode.observe(0, "-= Pantry =- A shelf.", [("player", "in", "Pantry"), ("shelf", "in", "Pantry")])
    assert episode.current().triplets() == {("player", "in", "Pantry"), ("shelf", "in", "Pantry")}

    # ... while the world model's search finds them, dated by their gold run and step
    history = world_history(state, session, "davis", store)  # type: ignore[arg-type]
    assert {f.source for f in history} == {GOLD, THIS_EPISODE}
    model = QueuedChatModel(replies=[structured("EntityFocus", types=["thing"], entities=["fridge"]),
                                     AIMessage(content="In the gold run the fridge was opened at step 1.")])
    monkeypatch.setattr(common, "load_chat_model", lambda *a, **k: model)
    answer, found, update = qa_module.graph_qa("what happens when I open the fridge?", history, episode.embedder.embed,
                                               {"step": 1}, AgentContext(preset="davis"))
    assert "fridge" in found["entities"]
    assert found["from_other_runs"] > 0
    assert f"[{GOLD}, step 1] after 'open fridge': fridge, is, open" in found["dated"]
    shown = p.parse_sections([m for m in model.calls[1]["messages"] if isinstance(m, HumanMessage)][0].content)[p.DATED_FACTS]
    assert f"[{GOLD}, step 1] after 'open fridge': fridge, is, open" in shown
    assert answer.startswith("In the gold run")
    assert update["usage"]["world_model_qa"]["calls"] == 2


# -- algorithm 2's graph search on a hand-built graph ------------------------------------------------
def fact(subject: str, relation: str, obj: str, step: int, source: str = "gold:a") -> DatedFact:
    return DatedFact(subject, relation, obj, source, step)


GRAPH = [
    fact("player", "in", "Kitchen", 0),
    fact("Kitchen", "has exit", "north", 0),
    fact("fridge", "in", "Kitchen", 0),
    fact("fridge", "is", "closed", 0),
    fact("fridge", "is", "open", 3),
    fact("milk", "in", "fridge", 3),
    fact("milk", "in", "inventory", 5),
    fact("Garden", "north of", "Kitchen", 2),
    fact("shovel", "in", "Garden", 2),
    fact("shed", "in", "Garden", 9, source=THIS_EPISODE),
    fact("rake", "in", "shed", 1, source="gold:b"),
]


def keyword_embed(texts):
    """Bag of letters: 'fridge' is nearest 'fridge', far from 'shovel'."""
    import numpy as np

    rows = np.zeros((len(texts), 26), dtype=np.float32)
    for row, text in enumerate(texts):
        for ch in text.lower():
            if "a" <= ch <= "z":
                rows[row, ord(ch) - 97] += 1
    return rows


def test_entities_are_narrowed_to_the_kinds_a_question_is_about():
    kinds = entity_types(GRAPH)
    assert PLACE in kinds["kitchen"]
    assert PLACE in kinds["garden"]
    assert STATE in kinds["open"]
    assert THING in kinds["milk"]
    assert set(narrow(GRAPH, [PLACE])) == {"kitchen", "garden"}
    assert "open" in narrow(GRAPH, [STATE])
    assert "kitchen" not in narrow(GRAPH, [STATE])
    assert len(narrow(GRAPH, ["no such kind"])) == len({n for f in GRAPH for n in (f.subject.lower(), f.object.lower())})
    assert set(get_args(EntityKind)) == set(ENTITY_TYPES)  # the model's choices are the kinds the search knows


def test_the_two_most_relevant_entities_are_taken_named_ones_first():
    things = narrow(GRAPH, [THING])
    assert top_entities("where is the fridge?", things, keyword_embed)[0] == "fridge"
    assert len(top_entities("where is the fridge?", things, keyword_embed)) == 2
    # what the model named comes first, each to its closest candidate; then the question's nearest
    assert top_entities("what is cold?", things, keyword_embed, named=["shovl", "milk"]) == ["shovel", "milk"]
    assert top_entities("x", [], keyword_embed) == []


def test_expansion_adds_neighbours_level_by_level_up_to_the_maximal_subgraph():
    one = expand(GRAPH, ["milk"], hops=1)
    assert {f.triplet for f in one} == {("milk", "in", "fridge"), ("milk", "in", "inventory")}
    two = expand(GRAPH, ["milk"], hops=2)
    assert ("fridge", "is", "open") in {f.triplet for f in two}
    assert ("shovel", "in", "Garden") not in {f.triplet for f in two}
    maximal = expand(GRAPH, ["milk"])  # until nothing new is reached: the whole connected graph
    assert len(maximal) == len(GRAPH)
    capped = expand(GRAPH, ["milk"], limit=4)
    assert len(capped) == 4
    assert {("milk", "in", "fridge"), ("milk", "in", "inventory")} <= {f.triplet for f in capped}


def test_the_subgraph_is_read_in_time_order_run_by_run_this_episode_last():
    ordered = in_time_order(GRAPH, sources=["gold:a", "gold:b"])
    assert [f.source for f in ordered][-1] == THIS_EPISODE
    gold_a = [f.step for f in ordered if f.source == "gold:a"]
    assert gold_a == sorted(gold_a)
    assert ordered.index(fact("rake", "in", "shed", 1, "gold:b")) > ordered.index(fact("milk", "in", "inventory", 5))


# -- the world model predicts each planned step (algorithm 2) -----------------------------------------
def test_the_world_model_asks_memory_then_predicts_each_planned_step(monkeypatch):
    memory = gold_run_memory()
    session = SimpleNamespace(memory=memory, recalled=[])
    model = QueuedChatModel(replies=[
        structured("TransitionPrediction", question="what did opening the fridge show?"),
        structured("EntityFocus", types=["thing"], entities=["fridge"]),
        AIMessage(content="a red apple, at step 1"),
        structured("TransitionPrediction", question="", observation="revealing a red apple", reward="0"),
        structured("TransitionPrediction", question="", observation="You take the red apple", reward="+1"),
    ])
    monkeypatch.setattr(common, "load_chat_model", lambda *a, **k: model)
    state = {"run_id": "r", "step": 3, "goal": "g", "observation": "-= Kitchen =-", "env": "cooking:1",
             "plan": [{"action": "open fridge", "expected": "", "reward": ""}, {"action": "take red apple", "expected": "taken", "reward": ""}]}
    transitions = AgentContext(preset="davis", switch_overrides={"monologue": "transitions"})  # a plan written whole
    update = qa_module.world_model_qa(state, Runtime(context=transitions), session)
    assert update["plan"] == [{"action": "open fridge", "expected": "revealing a red apple", "reward": "0"},
                              {"action": "take red apple", "expected": "You take the red apple", "reward": "+1"}]
    assert update["notes"] == ["what did opening the fridge show? -> a red apple, at step 1"]
    # the second step's prediction reads the first one's, and the first prediction read its monologue
    second = p.parse_sections([m for m in model.calls[4]["messages"] if isinstance(m, HumanMessage)][0].content)
    assert "open fridge -> revealing a red apple" in second[p.PREDICTED]
    first_again = p.parse_sections([m for m in model.calls[3]["messages"] if isinstance(m, HumanMessage)][0].content)
    assert "a red apple, at step 1" in first_again[p.MONOLOGUE]
    assert update["decided"]["monologue"][0]["entities"][0] == "fridge"


def test_the_monologue_of_one_step_is_bounded_by_qa_turns(monkeypatch):
    session = SimpleNamespace(memory=gold_run_memory(), recalled=[])

    def reply(messages, tools):
        if "EntityFocus" in tools:
            return structured("EntityFocus", types=["thing"], entities=[])
        if "TransitionPrediction" in tools:
            turns = sum(1 for m in messages if isinstance(m, HumanMessage) and "INNER MONOLOGUE" in str(m.content))
            return structured("TransitionPrediction", question=f"question {len(str(messages[-1].content))} {turns}?")
        return AIMessage(content="an answer")

    model = QueuedChatModel(replies=[reply], repeat_last=True)
    monkeypatch.setattr(common, "load_chat_model", lambda *a, **k: model)
    state = {"run_id": "r", "step": 3, "goal": "g", "observation": "o", "env": "cooking:1", "plan": [{"action": "open fridge", "expected": "opened"}]}
    context = AgentContext(preset="davis", switch_overrides={"qa_turns": 2, "monologue": "transitions"})
    update = qa_module.world_model_qa(state, Runtime(context=context), session)
    assert len(update["decided"]["monologue"]) == 2  # two questions, then the third reply must predict
    assert update["plan"][0]["expected"] == "opened"  # it never did: the planner's expectation stands


def test_davis_imagines_one_step_at_a_time_each_chosen_knowing_the_outcomes_predicted_before_it(monkeypatch):
    """Algorithm 1: the policy chooses step t, the world model predicts its outcome and reward (algorithm 2), and the
    policy chooses step t+1 with that prediction and the monologue before it; after L steps the trajectory is the
    plan."""
    from ariadnegraph.nodes import planner as planner_module
    from tests.fakes import fake_session

    model = QueuedChatModel(replies=[
        structured("Plan", subgoal="get the apple", steps=[{"action": "open fridge", "expected": "opened", "reward": "0"}]),
        structured("TransitionPrediction", question="what is in the fridge?"),
        structured("EntityFocus", types=["thing"], entities=["fridge"]),
        AIMessage(content="a red apple, at step 1"),
        structured("TransitionPrediction", question="", observation="revealing a red apple", reward="0"),
        structured("Plan", subgoal="get the apple", steps=[{"action": "take red apple", "expected": "taken", "reward": "+1"}]),
        structured("TransitionPrediction", question="", observation="You take the red apple", reward="+1"),
    ])
    monkeypatch.setattr(common, "load_chat_model", lambda *a, **k: model)
    session = fake_session(gold_run_memory())
    session.recalled = []  # no gold runs recalled: the world model reads this episode only
    runtime = Runtime(context=AgentContext(preset="davis", switch_overrides={"plan_length": 2}))
    state = {"run_id": "r", "step": 3, "goal": "g", "observation": "-= Kitchen =-", "env": "cooking:1", "plan": [],
             "admissible": ["open fridge", "take red apple"], "replans": 0, "notes": ["an old note"]}
    for node in (planner_module.planner, qa_module.world_model_qa, planner_module.planner, qa_module.world_model_qa):
        update = node(state, runtime, session)
        state = {**state, **{k: v for k, v in update.items() if k != "decided"}}
        if node is qa_module.world_model_qa and state.get("rollout"):
            assert agent.route_after_world_model_qa({**state, "switches": switch_values(runtime.context.switches)}) == "planner"
    first_plan = p.parse_sections([m for m in model.calls[0]["messages"] if isinstance(m, HumanMessage)][0].content)
    assert first_plan[p.PREDICTED] == p.NONE
    assert "an old note" not in first_plan.get(p.NOTES, "")
    second_plan = p.parse_sections([m for m in model.calls[5]["messages"] if isinstance(m, HumanMessage)][0].content)
    assert "open fridge -> revealing a red apple (reward 0)" in second_plan[p.PREDICTED]
    assert "a red apple, at step 1" in second_plan[p.NOTES]  # the monologue of the step before
    second_prediction = p.parse_sections([m for m in model.calls[6]["messages"] if isinstance(m, HumanMessage)][0].content)
    assert "open fridge -> revealing a red apple" in second_prediction[p.PREDICTED]
    assert [(s["action"], s["expected"]) for s in state["plan"]] == [("open fridge", "revealing a red apple"),
                                                                     ("take red apple", "You take the red apple")]
    assert state["rollout"] == []
    assert state["replans"] == 1
    assert agent.route_after_world_model_qa({**state, "switches": switch_values(runtime.context.switches)}) == "critic"


def test_davis_plans_then_predicts_while_ariadne_full_looks_up_before_planning():
    davis = {"switches": {**{k: getattr(PRESETS["davis"], k) for k in ("qa_turns", "monologue", "precheck", "outcome_check")}}, "plan": []}
    full = {"switches": {**{k: getattr(PRESETS["ariadne_full"], k) for k in ("qa_turns", "monologue", "precheck", "outcome_check")}}, "plan": []}
    assert agent.route_after_aggregator(davis) == "planner"
    assert agent.route_after_planner(davis) == "world_model_qa"
    assert agent.route_after_world_model_qa(davis) == "critic"
    assert agent.route_after_aggregator(full) == "world_model_qa"
    assert agent.route_after_world_model_qa(full) == "planner"
    assert agent.route_after_planner(full) == "critic"
    no_wm = {"switches": {**davis["switches"], **{"qa_turns": 0}}, "plan": []}  # D: no world model, the planner's guesses stand
    assert agent.route_after_planner(no_wm) == "critic"


def test_davis_keeps_a_belief_and_its_d_a_cell_has_no_actor_expansion():
    assert PRESETS["davis"].summarizer
    assert PRESETS["davis"].belief_read
    assert PRESETS["davis"].actor_commands > 1
    assert PRESETS["ariadne_full"].actor_commands == 1
    cells = {v.label: v.switches for v in ablation("davis")}
    assert cells["D-A"]["actor_commands"] == 1
    assert cells["D-A"]["grounding"] is False


# -- the actor decomposes a plan step into several commands --------------------------------------------
ACTOR_STATE: dict[str, Any] = {
    "run_id": "r", "step": 4, "goal": "g", "env": "cooking:1", "observation": "-= Kitchen =- A closed fridge.",
    "admissible": ["open fridge", "look", "go east"], "replans": 0,
    "plan": [{"action": "get the apple out of the fridge", "expected": "You take the red apple", "reward": "+1"},
             {"action": "go east", "expected": "Hall"}],
}


def test_the_davis_actor_expands_a_step_into_several_commands_each_validated(monkeypatch):
    session = fake_session(WorldMemory())
    model = QueuedChatModel(replies=[structured("Expansion", commands=[
        {"action": "open fridge", "expected": "You open the fridge"},
        {"action": "take red apple from fridge", "expected": ""},
        {"action": "eat red apple", "expected": ""},
        {"action": "look", "expected": ""},  # past actor_commands (3): dropped
    ])])
    monkeypatch.setattr(common, "load_chat_model", lambda *a, **k: model)
    update = actor_module.actor(ACTOR_STATE, Runtime(context=AgentContext(preset="davis")), session)
    assert update["command"] == "open fridge"
    assert update["expected"] == "You open the fridge"
    assert [s["action"] for s in update["plan"]] == ["take red apple from fridge", "eat red apple", "go east"]
    assert update["plan"][1]["expected"] == "You take the red apple"
    assert update["plan"][1]["reward"] == "+1"
    assert update["decided"]["actor"][0]["into"] == ["open fridge", "take red apple from fridge", "eat red apple"]
    # a later command of the expansion is grounded when due, not expanded again (no model call)
    later = {**ACTOR_STATE, "admissible": ["take red apple from fridge", "look"], "plan": update["plan"]}
    assert actor_module.actor(later, Runtime(context=AgentContext(preset="davis")), session)["command"] == "take red apple from fridge"
    assert len(model.calls) == 1


def test_an_expansion_whose_first_command_is_not_valid_falls_back_to_grounding(monkeypatch):
    session = fake_session(WorldMemory())
    model = QueuedChatModel(replies=[structured("Expansion", commands=[{"action": "fly to the moon", "expected": ""}]),
                                     structured("ActionChoice", reasoning="", action="open fridge")])
    monkeypatch.setattr(common, "load_chat_model", lambda *a, **k: model)
    update = actor_module.actor(ACTOR_STATE, Runtime(context=AgentContext(preset="davis")), session)
    assert update["command"] == "open fridge"
    assert update["replies"]["actor"]["inadmissible"] == 1
    # other presets never expand: one model call, the closest valid command
    model = QueuedChatModel(replies=[structured("ActionChoice", reasoning="", action="open fridge")])
    monkeypatch.setattr(common, "load_chat_model", lambda *a, **k: model)
    update = actor_module.actor(ACTOR_STATE, Runtime(context=AgentContext(preset="ariadne_full")), session)
    assert update["command"] == "open fridge"
    assert [s["action"] for s in update["plan"]] == ["go east"]
    assert len(model.calls) == 1


# -- algorithm 1, lines 7-8: the predicted trajectory checked before any of it is played ---------------------------
# A rollout of two steps whose first is imagined and predicted, and whose second the world model now predicts.
ROLLOUT_STATE: dict[str, Any] = {
    "run_id": "r", "step": 3, "goal": "g", "observation": "-= Kitchen =- A closed fridge.", "env": "cooking:1",
    "admissible": ["open fridge", "look"], "plan": [], "replans": 1, "notes": [],
    "rollout": [{"action": "open fridge", "expected": "revealing a red apple", "reward": "0"},
                {"action": "eat red apple", "expected": "", "reward": ""}],
}
SECOND_PREDICTED = structured("TransitionPrediction", question="", observation="You eat the red apple", reward="-1")
TRAJECTORY = ["open fridge -> revealing a red apple (reward 0)", "eat red apple -> You eat the red apple (reward -1)"]


def predict_last_step(monkeypatch, replies, state=None, **switches):
    """The world model predicts the rollout's last step under davis with ``switches``: (update, model)."""
    model = QueuedChatModel(replies=[SECOND_PREDICTED, *replies])
    monkeypatch.setattr(common, "load_chat_model", lambda *a, **k: model)
    session = fake_session(gold_run_memory())
    session.recalled = []
    runtime = Runtime(context=AgentContext(preset="davis", switch_overrides={"plan_length": 2, **switches}))
    return qa_module.world_model_qa({**ROLLOUT_STATE, **(state or {})}, runtime, session), model


def routed_after(update: dict[str, Any], **switches) -> str:
    preset = AgentContext(preset="davis", switch_overrides={"plan_length": 2, **switches}).switches
    return agent.route_after_world_model_qa({**ROLLOUT_STATE, **update, "switches": switch_values(preset)})


def test_the_safety_check_reads_the_whole_predicted_trajectory_and_a_rejection_replans_with_its_reason(monkeypatch):
    """Algorithm 1, lines 7-8: once every step's outcome is predicted, the trajectory (each command with its predicted
    outcome and reward) is judged before anything is played; a rejected one goes back to the planner with the reason."""
    from ariadnegraph.nodes import planner as planner_module

    reason = "'eat red apple' destroys the apple the recipe needs."
    update, model = predict_last_step(monkeypatch, [structured("SafetyVerdict", safe=False, reason=reason)],
                                      safety_check=True)
    assert model.calls[1]["tools"] == ["SafetyVerdict"]
    shown = p.parse_sections([m for m in model.calls[1]["messages"] if isinstance(m, HumanMessage)][0].content)
    assert shown[p.PREDICTED].splitlines() == [f"- {line}" for line in TRAJECTORY]  # every step, predicted outcome
    # nothing of it is played: no plan in hand, and the graph goes back to the planner, not to the critic or actor
    assert update["plan"] == []
    assert update["rollout"] == []
    assert update["needs_plan"] is True
    assert routed_after(update, safety_check=True) == "planner"
    assert reason in update["feedback"]["text"]
    assert "open fridge; eat red apple" in update["feedback"]["text"]
    assert update["decided"]["safety"] == [{"trajectory": TRAJECTORY, "safe": False, "reason": reason,
                                            "then": "replanned"}]
    assert update["replies"]["safety_check"] == {"parsed": 1}
    # the new plan starts a new rollout, told why the last one was rejected, and counts as the step's next plan
    model = QueuedChatModel(replies=[structured("Plan", subgoal="s", steps=[{"action": "look", "expected": ""}])])
    monkeypatch.setattr(common, "load_chat_model", lambda *a, **k: model)
    state = {**ROLLOUT_STATE, **{k: v for k, v in update.items() if k != "decided"}}
    replanned = planner_module.planner(state, Runtime(context=AgentContext(preset="davis")), fake_session(WorldMemory()))
    asked = p.parse_sections([m for m in model.calls[0]["messages"] if isinstance(m, HumanMessage)][0].content)
    assert reason in asked[p.FEEDBACK]
    assert asked[p.PREDICTED] == p.NONE
    assert replanned["rollout"] == [{"action": "look", "expected": "", "reward": "", "by": "model"}]
    assert replanned["replans"] == 2


def test_an_approved_trajectory_plays_as_before_and_the_switch_off_asks_nothing(monkeypatch):
    approved, model = predict_last_step(monkeypatch, [structured("SafetyVerdict", safe=True, reason="")],
                                        safety_check=True)
    assert len(model.calls) == 2
    assert approved["decided"]["safety"][0]["safe"] is True
    unchecked, model = predict_last_step(monkeypatch, [])  # the davis preset: no safety check
    assert PRESETS["davis"].safety_check is False
    assert [call["tools"] for call in model.calls] == [["TransitionPrediction"]]
    assert "safety" not in unchecked["decided"]
    for update in (approved, unchecked):
        assert [(s["action"], s["expected"]) for s in update["plan"]] == [("open fridge", "revealing a red apple"),
                                                                         ("eat red apple", "You eat the red apple")]
        assert update["rollout"] == []
        assert not update.get("needs_plan")
        assert "feedback" not in update
        assert routed_after(update, safety_check=True) == "critic"


def test_a_rejection_with_the_replans_used_up_plays_or_withholds_and_an_unreadable_verdict_passes(monkeypatch):
    """The step's replan bound holds (no loop): past it the rejected trajectory is played (davis: rejected=played),
    or withheld (a look instead); a reply that cannot be read passes the trajectory, counted as a fallback."""
    no = structured("SafetyVerdict", safe=False, reason="it loses the game")
    played, _ = predict_last_step(monkeypatch, [no], state={"replans": 2}, safety_check=True)
    assert [s["action"] for s in played["plan"]] == ["open fridge", "eat red apple"]
    assert not played.get("needs_plan")
    assert played["decided"]["safety"][0]["then"] == "played"
    assert routed_after(played, safety_check=True) == "critic"
    withheld, _ = predict_last_step(monkeypatch, [no], state={"replans": 2}, safety_check=True, rejected="withheld")
    assert withheld["plan"] == [{"action": "look", "expected": "", "by": "withheld"}]
    assert "it loses the game" in withheld["feedback"]["text"]
    assert routed_after(withheld, safety_check=True) == "critic"
    garbled = AIMessage(content="I think it is fine")
    passed, _ = predict_last_step(monkeypatch, [garbled, garbled, garbled], safety_check=True)
    assert passed["replies"]["safety_check"]["fallback"] == 1
    assert passed["decided"]["safety"][0]["safe"] is True
    assert [s["action"] for s in passed["plan"]] == ["open fridge", "eat red apple"]


def test_a_plan_written_whole_is_checked_once_predicted_and_a_check_of_nothing_predicted_is_refused(monkeypatch):
    """monologue=transitions: the same check, after the written plan's last step is predicted; with no prediction to
    check (no world model) the switch is refused."""
    written = {"plan": [{"action": "eat red apple", "expected": "", "reward": ""}], "rollout": []}
    rejected, model = predict_last_step(monkeypatch, [structured("SafetyVerdict", safe=False, reason="no apple left")],
                                        state=written, monologue="transitions", safety_check=True)
    shown = p.parse_sections([m for m in model.calls[1]["messages"] if isinstance(m, HumanMessage)][0].content)
    assert shown[p.PREDICTED] == "- eat red apple -> You eat the red apple (reward -1)"
    assert rejected["plan"] == []
    assert rejected["needs_plan"] is True
    assert "no apple left" in rejected["feedback"]["text"]
    assert routed_after(rejected, monologue="transitions", safety_check=True) == "planner"
    with pytest.raises(ValueError, match="switch 'safety_check' would check nothing"):
        AgentContext(preset="davis", switch_overrides={"qa_turns": 0, "safety_check": True})


# -- §3.2: coreference resolved before extraction (rules standing in for CoreNLP) -------------------------------------
def test_davis_extraction_reads_the_observation_with_its_pronouns_resolved(monkeypatch):
    from ariadnegraph.nodes import relation_retriever as retriever_module

    history = [{"step": 1, "action": "look", "observation": "-= Attic =- An old attic."},
               {"step": 2, "action": "go north", "observation": "You see a chest. It is closed."}]
    state = {"run_id": "r", "step": 2, "goal": "g", "env": "cooking:1", "history": history, "last_action": "go north",
             "observation": "You see a chest. It is closed."}
    model = QueuedChatModel(replies=[structured("TransitionExtraction", transition="A closed chest is here.",
                                                triplets=[["chest", "is", "closed"]], outdated=[])])
    monkeypatch.setattr(common, "load_chat_model", lambda *a, **k: model)
    update = retriever_module.relation_retriever(state, Runtime(context=AgentContext(preset="davis")),
                                                 fake_session(WorldMemory()))
    read = p.parse_sections([m for m in model.calls[0]["messages"] if isinstance(m, HumanMessage)][0].content)
    assert read[p.OBSERVATION] == "You see a chest. The chest is closed."
    assert update["extraction"] == [["chest", "is", "closed"]]
    assert update["decided"]["resolved"] == "You see a chest. The chest is closed."
    # what the game said is kept as it was: only extraction reads the resolved text
    assert state["observation"] == "You see a chest. It is closed."
    # a pronoun opening the observation is the thing the command acted on, else the one the observation before named
    after = {**state, "last_action": "open chest", "observation": "It is locked."}
    read = retriever_module.extraction_sections(after, WorldMemory(), PRESETS["davis"])
    assert read[p.OBSERVATION] == "The chest is locked."
    from ariadnegraph.envs.coreference import resolve_pronouns

    assert resolve_pronouns("It is locked.", "wooden box") == "The wooden box is locked."
    assert resolve_pronouns("There is an apple on the table. Its skin is red.") == (
        "There is an apple on the table. The apple's skin is red.")
    assert resolve_pronouns("You see two coins. You take them.") == "You see two coins. You take the coins."


def test_text_without_pronouns_is_unchanged_and_other_presets_read_the_observation_as_it_is():
    from ariadnegraph.envs.coreference import resolve_pronouns
    from ariadnegraph.nodes import relation_retriever as retriever_module

    closet = ("-= Closet =-\nYou're now in a closet. Oh wow! Is that what I think it is? It is! It's a crate.")
    for text in ("You see a chest. The chest is closed.", "-= Kitchen =-\nA fridge.", "It is dark here.",
                 "It is closed.", "You open the chest and find it empty.", closet):  # nothing to refer to, or ambiguous
        # (the closet: a TextWorld room's own words, where "it" refers to nothing named)
        assert resolve_pronouns(text) == text
    state = {"run_id": "r", "step": 2, "goal": "g", "env": "cooking:1", "last_action": "look",
             "history": [{"step": 1, "observation": "You see a chest."}, {"step": 2, "observation": "It is closed."}],
             "observation": "It is closed."}
    assert retriever_module.extraction_sections(state, WorldMemory(), PRESETS["davis"])[p.OBSERVATION] == (
        "The chest is closed.")
    assert [name for name, preset in PRESETS.items() if preset.coreference] == ["davis"]
    for name in ("ariadne_full", "arigraph"):
        assert retriever_module.extraction_sections(state, WorldMemory(), PRESETS[name])[p.OBSERVATION] == "It is closed."
