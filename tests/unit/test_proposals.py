"""The controller proposes (controller/propose.py): candidates built from recorded observations of each family, forced
only where an instruction read, the goal or memory says what to play; the model chooses among them, and a choice that
overrides the first candidate is recorded and diagnosed."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from langgraph.runtime import Runtime

from ariadnegraph.agent.context import AgentContext
from ariadnegraph.agent.past import EpisodePast
from ariadnegraph.controller.candidates import FORCED_SOURCES, Source
from ariadnegraph.controller.guards import Situation, taking_first, way_forward
from ariadnegraph.controller.propose import MAX_CANDIDATES, propose
from ariadnegraph.controller.steps import next_step
from ariadnegraph.controller.worked import question_now
from ariadnegraph.envs.textworld_env import COOKING_GOAL
from ariadnegraph.evals.diagnostics import diagnose
from ariadnegraph.memory import WorldMemory
from ariadnegraph.nodes import common
from ariadnegraph.nodes import planner as planner_module
from ariadnegraph.nodes.memory_update import perceived, place_facts
from ariadnegraph.runs import RunDir, new_run_meta
from tests.fakes import QueuedChatModel, fake_session, structured, view_of

FIXTURES = Path(__file__).parent.parent / "fixtures" / "observations"
FAMILY_FIXTURES = [
    "textworld_cooking.json",
    "textworld_hunt.json",
    "textworld_treasure.json",
    "textworld_clean.json",
    "scienceworld.json",
    "twx_cookingworld.json",
    "twx_doors.json",
    "twx_held.json",
    "twx_arithmetic.json",
    "twx_sorting.json",
    "twx_commonsense.json",
    "scienceworld_lifespan.json",
    "scienceworld_thermometer.json",
]
ARIADNE = AgentContext(model="scripted", preset="ariadne")


def replayed(fixture: str):
    """Each recorded step of ``fixture`` as the state the planner would see after it, with the memory and the past of
    the steps up to it (as memory_update and the session keep them; both go on growing: read each before the next)."""
    data = json.loads((FIXTURES / fixture).read_text())
    memory, past = WorldMemory(), EpisodePast()
    for s in data["steps"]:
        state = {
            "env": data["env"],
            "goal": data.get("goal") or "",
            "observation": s["observation"],
            "last_action": s["action"],
            "admissible": s["valid"] or [],
            "location": s["location"],
            "inventory": s["inventory"],
            "step": s["step"],
        }
        facts, ended = perceived(memory, state)
        memory.observe(
            s["step"], s["observation"], [*place_facts(memory, state, env_map=True), *facts], ended, action=s["action"]
        )
        past.add(
            {
                "step": s["step"],
                "action": s["action"],
                "observation": s["observation"],
                "trail": str(s["step"]),
                "location": s["location"],
                "inventory": s["inventory"],
                "score": s.get("score", 0),
            }
        )
        yield state, fake_session(memory, past=past)


def unanswered(state: dict, session) -> dict:
    """``state`` with the task's question now (sorting's: which thing left is smallest) asked already and left
    unanswered, so the step's choice is the model's (nodes/worked_out.py)."""
    question = question_now(view_of(state, ARIADNE, session))
    return {**state, "worked_out": [{"question": question.key, "answer": ""}]}


def at_step(step: int, fixture: str = "textworld_cooking.json"):
    """The recorded cooking game as it stood after ``step`` (the replay's memory and past go on growing after)."""
    return next(replay for k, replay in enumerate(replayed(fixture)) if k == step)


@pytest.mark.parametrize("fixture", FAMILY_FIXTURES)
def test_every_recorded_step_gets_a_proposal_of_valid_distinct_candidates_each_with_its_source(fixture):
    proposals = 0
    for state, session in replayed(fixture):
        view = view_of(state, ARIADNE, session)
        proposal = propose(view)
        proposals += 1
        commands = [c.command for c in proposal.candidates]
        assert commands, (fixture, state["step"])
        assert len(commands) == len(set(commands)) <= MAX_CANDIDATES
        assert all(isinstance(c.source, Source) and c.why for c in proposal.candidates)
        valid = set(state["admissible"])
        assert all(c in valid for c in commands) or not proposal.forced and len(commands) == 1
        if proposal.forced:  # only what an instruction read, the goal or memory says is played by code alone
            assert len(commands) == 1
            assert proposal.first.source in FORCED_SOURCES
        else:  # the first is what code alone plays: the way forward's own choice, when it is offered
            forward = way_forward(Situation(view, "", None)).command
            assert proposal.first.command == forward or forward not in proposal.offered
    assert proposals


def test_a_cooking_kitchen_proposes_reading_the_recipe_and_a_closed_fridge_is_a_place_to_search():
    state, session = at_step(2)  # the kitchen, the cookbook on the counter, the fridge closed
    proposal = propose(view_of({**state, "goal": COOKING_GOAL}, ARIADNE, session))
    assert proposal.forced
    assert (proposal.first.command, proposal.first.source) == ("examine cookbook", Source.GOAL)
    # a TextWorld game that says only to find the cheese (no recipe to read first): where to search is the model's
    find = {**state, "env": "treasure:1", "goal": "Find the cheese."}
    unread = propose(view_of(find, ARIADNE, session))
    assert not unread.forced
    assert [c.source for c in unread.candidates][:1] == [Source.SEARCH]
    assert "open fridge" in [c.command for c in unread.candidates]


def test_an_override_of_the_first_candidate_is_recorded_and_diagnosed(monkeypatch, tmp_path):
    """The model chose another command than the controller's first: the trajectory keeps the candidates and the
    override; `diagnose` counts it, and whether the score rose within a few steps of it (it did: it paid)."""
    state, session = at_step(2)
    state = {**state, "env": "treasure:1", "goal": "Find the cheese.", "run_id": "r"}
    first = propose(view_of(state, ARIADNE, session)).first.command
    other = next(c for c in state["admissible"] if c != first and c.startswith("take"))
    model = QueuedChatModel(replies=[structured("Decision", reasoning="the recipe's knife first", action=other)])
    monkeypatch.setattr(common, "load_chat_model", lambda *a, **k: model)
    update = planner_module.planner(state, Runtime(context=ARIADNE), session)
    choice = update["decided"]["choices"][0]
    assert (choice["chosen"], choice["by"], choice["override"]) == (other, "model", True)
    assert choice["candidates"][0]["command"] == first
    assert {"command", "source", "why"} <= choice["candidates"][0].keys()
    prompt = model.calls[0]["messages"][-1].content
    assert "## CANDIDATES" in prompt
    assert first in prompt.split("## CANDIDATES", 1)[1]
    # the choice in a run: played at step 1, the score rising at step 2
    meta = new_run_meta(
        "r",
        env="cooking:3",
        seed=1,
        variation=None,
        max_steps=5,
        context={"model": "scripted", "preset": "ariadne"},
        thread_id="r",
    )
    run = RunDir.create(tmp_path, "r", meta)
    for step, (action, score, decided) in enumerate([(None, 0, {}), (other, 0, update["decided"]), ("look", 1, {})]):
        record = {"step": step, "action": action, "observation": "x", "trail": str(step), "decided": decided}
        run.append_step(record, {"facts": [], "score": score, "max_score": 3, "location": "Kitchen"})
    totals = diagnose(run).totals["choice"]
    assert totals == {
        "choices": 1,
        "by_model": 1,
        "by_code": 0,
        "overrides": 1,
        "told_left_out": 0,
        "vetoed": 0,
        "override_rate": 1.0,
        "override_paid": 1.0,
        "agreement_paid": None,
        "questions": 0,
        "answered": 0,
        "worked_moves": 0,
        "worked_paid": None,
    }


def test_a_model_choice_the_controller_left_out_is_told_once_then_vetoed_for_its_first_candidate(monkeypatch):
    """A placement tried here already (it scored nothing: the situation is the same) is left out; a model that writes
    it is told so and asked again (SENT BACK names it); writing it a second time gets the first candidate played
    instead, and the record says what was vetoed."""
    state, session = at_step(2)
    state = {**state, "env": "treasure:1", "goal": "Find the cheese.", "run_id": "r"}
    put = next(c for c in state["admissible"] if c.startswith("put "))
    session.past.add(
        {
            "step": 3,
            "action": put,
            "observation": "You put it there.",
            "trail": "3",
            "location": state["location"],
            "inventory": state["inventory"],
            "score": 0,
        }
    )
    session.past.add(
        {
            "step": 4,
            "action": "take pork chop from counter",
            "observation": "Taken.",
            "trail": "4",
            "location": state["location"],
            "inventory": state["inventory"],
            "score": 0,
        }
    )
    view = view_of(state, ARIADNE, session)
    proposal = propose(view)
    assert put in proposal.avoided
    model = QueuedChatModel(replies=[structured("Decision", reasoning="put it there again", action=put)] * 2)
    monkeypatch.setattr(common, "load_chat_model", lambda *a, **k: model)
    update = planner_module.planner(state, Runtime(context=ARIADNE), session)
    choice = update["decided"]["choices"][0]
    assert (choice["left_out"], choice["vetoed"]) == (put, put)
    assert (choice["chosen"], choice["by"]) == (proposal.first.command, "way forward")
    assert update["usage"]["planner"]["calls"] == 2
    told = model.calls[1]["messages"][-1].content
    assert "SENT BACK" in told
    assert f"{put}: not offered here" in told
    # told once, a model that names another command has it played: the model decides, not the first candidate
    other = next(c for c in proposal.offered if c != proposal.first.command)
    model = QueuedChatModel(
        replies=[
            structured("Decision", reasoning="again", action=put),
            structured("Decision", reasoning="something else", action=other),
        ]
    )
    monkeypatch.setattr(common, "load_chat_model", lambda *a, **k: model)
    choice = planner_module.planner(state, Runtime(context=ARIADNE), session)["decided"]["choices"][0]
    assert (choice["left_out"], choice["chosen"], choice["by"]) == (put, other, "model")
    assert "vetoed" not in choice


def _street(past: EpisodePast, commands: list[tuple[str, float]], inventory: list[str]) -> None:
    """Record ``commands`` (each with the score after it) played in one street, carrying ``inventory`` throughout."""
    if not past.steps:
        past.add(
            {
                "step": 0,
                "action": None,
                "observation": "You are in the street.",
                "trail": "0",
                "location": "street",
                "inventory": inventory,
                "score": 0,
            }
        )
    for command, score in commands:
        step = past.steps
        past.add(
            {
                "step": step,
                "action": command,
                "observation": "Done.",
                "trail": str(step),
                "location": "street",
                "inventory": inventory,
                "score": score,
            }
        )


SORTING_STATE = {
    "env": "twx:sorting@1/dev",
    "goal": "Sort the objects by quantity, the smallest in the box first.",
    "observation": "You are in the street. You see a box.",
    "last_action": "look around",
    "location": "street",
    "inventory": ["27g of steel", "41g of acrylic"],
    "step": 5,
    "admissible": ["look around", "put 27g of steel in box", "put 41g of acrylic in box"],
}


def test_when_every_move_of_code_is_a_repeat_a_use_of_a_thing_carried_comes_first():
    """Code's own moves all worn here (a look played four times): code alone plays a use of a thing carried, not the
    look a fifth time."""
    past = EpisodePast()
    _street(past, [("look around", 0)] * 4, SORTING_STATE["inventory"])
    proposal = propose(view_of(SORTING_STATE, ARIADNE, fake_session(past=past)))
    assert "look around" in proposal.avoided
    assert proposal.first.command.startswith("put ")
    assert proposal.first.source == Source.CARRIED


def test_a_placement_that_scored_and_was_undone_is_offered_again_and_the_undoing_take_is_left_out(monkeypatch):
    """A placement that raised the score here, then taken back (the score and the situation back where they were), is
    the way back to that score, not a dead end; the take that lost the score is left out where it was played."""
    past = EpisodePast()
    inventory = SORTING_STATE["inventory"]
    _street(past, [("put 27g of steel in box", 0.25)], inventory)
    past.add(
        {
            "step": 2,
            "action": "take 27g of steel",
            "observation": "You take the 27g of steel.",
            "trail": "2",
            "location": "street",
            "inventory": inventory,
            "score": 0,
        }
    )
    session = fake_session(past=past)
    proposal = propose(view_of(SORTING_STATE, ARIADNE, session))
    assert "put 27g of steel in box" not in proposal.avoided
    assert "put 27g of steel in box" in proposal.offered
    after_placing = {**SORTING_STATE, "admissible": [*SORTING_STATE["admissible"], "take 27g of steel"], "score": 0.25}
    assert "take 27g of steel" in propose(view_of(after_placing, ARIADNE, session)).avoided
    # a model writing the first candidate, which the controller plays anyway, is no veto
    first = proposal.first.command
    model = QueuedChatModel(replies=[structured("Decision", reasoning="the smallest first", action=first)])
    monkeypatch.setattr(common, "load_chat_model", lambda *a, **k: model)
    state = unanswered({**SORTING_STATE, "run_id": "r"}, session)
    choice = planner_module.planner(state, Runtime(context=ARIADNE), session)["decided"]["choices"][0]
    assert "vetoed" not in choice
    assert choice["chosen"] == first
    assert choice["by"] == "model"


def test_code_does_not_take_back_a_thing_the_agent_put_somewhere_but_the_model_may():
    """Once the agent put a thing in the box, code's candidates never include taking it back out (it was put where it
    was meant to be); the take stays among the commands offered to the model."""
    past = EpisodePast()
    inventory = SORTING_STATE["inventory"]
    _street(past, [("put 27g of steel in box", 0.25)], inventory)
    after = {
        **SORTING_STATE,
        "inventory": ["41g of acrylic"],
        "score": 0.25,
        "admissible": ["look around", "put 41g of acrylic in box", "take 27g of steel", "take 3 pears"],
    }
    proposal = propose(view_of(after, ARIADNE, fake_session(past=past)))
    assert "take 27g of steel" not in [c.command for c in proposal.candidates]
    assert "take 3 pears" in [c.command for c in proposal.candidates]
    assert "take 27g of steel" in proposal.offered


def test_a_placement_written_again_does_not_take_the_thing_back_out():
    """A model writing again a placement already made (not valid now: the thing is in the box) is not turned into
    taking the thing back out (the take-first guard), which would undo the score it won."""
    past = EpisodePast()
    _street(past, [("put 27g of steel in box", 0.25)], SORTING_STATE["inventory"])
    after = {
        **SORTING_STATE,
        "inventory": ["41g of acrylic"],
        "score": 0.25,
        "admissible": ["look around", "put 41g of acrylic in box", "take 27g of steel"],
    }
    view = view_of(after, ARIADNE, fake_session(past=past))
    assert taking_first(Situation(view, "put 27g of steel in box", None)) is None
    fresh = view_of(after, ARIADNE, fake_session(past=EpisodePast()))
    assert taking_first(Situation(fresh, "put 27g of steel in box", None)).command == "take 27g of steel"


def test_the_way_forward_uses_a_thing_carried_rather_than_looking_a_third_time():
    """With nothing else that changes anything (one room, everything taken) and a look played twice here, the way
    forward (what the actor plays for a step it cannot play) uses a thing carried, not the look again."""
    past = EpisodePast()
    _street(past, [("look around", 0)], SORTING_STATE["inventory"])
    once = view_of(SORTING_STATE, ARIADNE, fake_session(past=past))
    assert way_forward(Situation(once, "put 3g of steel in box", None)).command == "look around"
    _street(past, [("look around", 0)], SORTING_STATE["inventory"])
    twice = view_of(SORTING_STATE, ARIADNE, fake_session(past=past))
    found = way_forward(Situation(twice, "put 3g of steel in box", None))
    assert found.command in {"put 27g of steel in box", "put 41g of acrylic in box"}
    assert found.source == Source.CARRIED


def test_a_short_reading_of_a_text_that_changes_is_kept_and_its_instruction_played_at_once():
    """Recorded (peckingorder dev index 2): the book's reading is one short sentence. It is kept (a text the family says
    changes each time it is read, however short), so the take it names is within the rules and played at once, and a
    take it does not name stays ruled out."""
    from ariadnegraph.nodes.memory_update import text_read

    state = {
        "env": "twx:peckingorder@2/dev",
        "goal": "Your task is to read and follow the instructions book found in "
        "the environment. Repeat this until the game is completed.",
        "last_action": "read instructions book",
        "observation": "The current task is to take the broccoli.",
        "location": "laundry room",
        "inventory": [],
        "step": 1,
        "admissible": ["look around", "read instructions book", "take broccoli", "take pear"],
    }
    reading = text_read(state)
    assert reading == "read instructions book:\nThe current task is to take the broccoli."
    assert text_read({**state, "env": "twx:arithmetic@1/dev", "last_action": "read note"}) is None  # (short: kept not)
    proposal = propose(view_of({**state, "readings": [reading]}, ARIADNE))
    assert proposal.forced
    assert proposal.first.command == "take broccoli"
    assert "take pear" not in proposal.offered


def test_where_which_thing_to_take_is_the_task_code_takes_none_at_random_and_the_model_weighs_every_take():
    """Recorded (arithmetic dev index 1, the problem read): the 1.5B wrote 'read math problem' again, the way forward
    took the first thing lying about (1 olive), and the model then put the olive in the box as if it were the answer.
    Where which thing to take is the task itself (arithmetic, sorting), code's first candidate and its way forward
    take nothing at random; every take here is a candidate the model weighs, and a step it writes that names a thing
    here still has the thing taken first."""
    state, session = at_step(2, "twx_arithmetic.json")
    takes = {c for c in state["admissible"] if c.startswith("take ")}
    view = view_of(state, ARIADNE, session)
    proposal = propose(view)
    assert not proposal.forced
    assert not proposal.first.command.startswith("take ")
    weighed = {c.command for c in proposal.candidates if c.source == Source.WEIGH}
    assert weighed == takes
    assert not way_forward(Situation(view, "read math problem", None)).command.startswith("take ")
    assert taking_first(Situation(view, "put 3 pears in box", None)).command == "take 3 pears"
    # the same situation in a family where code takes what lies about (a coin game): code's first is a take
    coins = propose(view_of({**state, "env": "twx:coin"}, ARIADNE, session))
    assert coins.first.command.startswith("take ")
    assert Source.WEIGH not in {c.source for c in coins.candidates}


def test_a_take_written_again_in_sorting_is_not_turned_into_a_take_at_random():
    """Recorded (sorting dev index 1, two things held): the model wrote 'take 37g of plastic' again (held: not valid)
    and the way forward took the 41g of acrylic, which the model then placed first. Now the way forward takes
    nothing; the takes left are the model's to weigh, and what is held can be placed."""
    state, session = at_step(2, "twx_sorting.json")
    view = view_of(state, ARIADNE, session)
    assert not way_forward(Situation(view, "take 37g of plastic", None)).command.startswith("take ")
    proposal = propose(view)
    sources = {c.command: c.source for c in proposal.candidates}
    assert sources.get("take 41g of acrylic") == Source.WEIGH
    assert sources.get("put 27g of steel in box") == Source.CARRIED


@pytest.mark.parametrize(
    ("env", "goal", "step"),
    [
        (
            "scienceworld:grow-fruit",
            "Your task is to grow a apple. This will require growing several plants, and them being crosspollinated to"
            " produce fruit.  Seeds can be found in the kitchen. To complete the task, focus on the grown apple.",
            "focus on the grown apple",
        ),
        (
            "scienceworld:boil",
            "Your task is to boil water. For compounds without a boiling point, combusting the substance is also"
            " acceptable. First, focus on the substance. Then, take actions that will cause it to change its state of"
            " matter.",
            "focus on water",
        ),
        (
            "scienceworld:inclined-plane-friction-named-surfaces",
            "Your task is to determine which of the two inclined planes (paper, cloth) has the most friction. After"
            " completing your experiment, focus on the inclined plane with the most friction.",
            "focus on the inclined plane with the most friction",
        ),
    ],
)
def test_a_remark_of_the_goal_is_no_next_step(env, goal, step):
    """ScienceWorld's goals (recorded task texts) hold remarks between their steps: "This will require growing several
    plants", "For compounds without a boiling point", "cloth) has the most friction". No command carries one out, so
    read as a step it stood as the next step all episode, and its words were a thing to search for ("the this will
    require growing several plants is not seen yet"). The next step is the goal's first instruction."""
    state = {
        "env": env,
        "goal": goal,
        "observation": "This room is called the kitchen. In it, you see: a counter.",
        "last_action": "look around",
        "location": "kitchen",
        "inventory": [],
        "step": 1,
        "admissible": ["look around"],
    }
    found = next_step(view_of(state, ARIADNE, fake_session()))
    assert found is not None
    assert (found.kind, found.text, found.first) == ("goal", step, True)


def test_a_thing_placed_in_sortings_box_is_not_offered_back_out():
    """Recorded (sorting dev index 1, the steel placed): taking it back out is left out of what the model is offered
    (the rules shield), while the things still lying about stay takes to weigh."""
    state, session = at_step(3, "twx_sorting.json")
    proposal = propose(view_of(state, ARIADNE, session))
    assert "take 27g of steel" not in proposal.offered
    assert {c.command for c in proposal.candidates if c.source == Source.WEIGH} == {
        "take 41g of acrylic",
        "take 44kg of steel",
    }


def test_every_place_a_thing_carried_may_go_is_a_candidate():
    """Recorded (textworldcommonsense dev index 3, the bathrobe taken in the bathroom): where it belongs is the model's
    knowledge, so every placement of it is a candidate. Cut to the first four (alphabetically: bath tub, dressing table,
    shower, sink), the towel rack and the wall hook were never offered, as the 1.5B's choices went."""
    state, session = at_step(1, "twx_commonsense.json")
    proposal = propose(view_of(state, ARIADNE, session))
    placements = {c for c in state["admissible"] if c.startswith("put bathrobe in ")}
    assert len(placements) == 7
    assert placements <= {c.command for c in proposal.candidates if c.source == Source.CARRIED}


def test_the_choosers_sentence_has_room_to_work_something_out():
    """The chooser's sentence is where a sum or an order is worked out; the schema (a grammar on a local model) keeps
    a sentence of two hundred characters whole."""
    from ariadnegraph.nodes.schemas import Decision

    working = "The problem says divide 12 by 4, which is 3; of the things here only the 3 pumpkins have that quantity, "
    working += "so take the 3 pumpkins before putting them in the box."
    assert len(working) > 150
    assert Decision(reasoning=working, action="take 3 pumpkins").reasoning == working
    assert Decision.model_json_schema()["properties"]["reasoning"]["maxLength"] >= len(working)


def test_a_choice_the_rules_forbid_is_sent_back_with_the_rules_reason(monkeypatch):
    """Recorded (sorting dev index 1, the steel placed): a model writing 'take 27g of steel' again (the 1.5B wrote such
    a take 45 times on a pool game, told only that it was not offered) is told the rule: what is in the box stays."""
    state, session = at_step(3, "twx_sorting.json")
    state = unanswered({**state, "run_id": "r"}, session)
    model = QueuedChatModel(
        replies=[structured("Decision", reasoning="the smallest first", action="take 27g of steel")] * 2
    )
    monkeypatch.setattr(common, "load_chat_model", lambda *a, **k: model)
    choice = planner_module.planner(state, Runtime(context=ARIADNE), session)["decided"]["choices"][0]
    assert choice["vetoed"] == "take 27g of steel"
    told = model.calls[1]["messages"][-1].content
    assert "take 27g of steel: not offered here (what is in the box stays there" in told
