"""The task's question (nodes/worked_out.py, controller/worked.py): where the task is to work something out (TWX
arithmetic's sum, sorting's smallest quantity left), the family poses it as a choice among the things it can be; the
model answers it once, and code carries the answer out (takes the thing, puts it in the box). With no language model
it is never asked and nothing is taken at random. Recorded observations (TWX dev games)."""

from __future__ import annotations

from dataclasses import replace

import pytest
from langchain_core.messages import AIMessage
from langgraph.runtime import Runtime

from ariadnegraph.agent.context import AgentContext
from ariadnegraph.controller.candidates import Source
from ariadnegraph.controller.propose import propose
from ariadnegraph.controller.worked import answer_to, question_now
from ariadnegraph.envs.families import family_of
from ariadnegraph.envs.families.base import Question, Scale
from ariadnegraph.envs.families.twx_sorting import smallest_unit
from ariadnegraph.evals.diagnostics import diagnose
from ariadnegraph.nodes import common
from ariadnegraph.nodes import planner as planner_module
from ariadnegraph.nodes.memory_update import text_read
from ariadnegraph.nodes.schemas import weighing_for
from ariadnegraph.nodes.worked_out import named_option, result_option, weighed_answer, work_out
from ariadnegraph.runs import RunDir, new_run_meta
from tests.fakes import QueuedChatModel, structured, view_of
from tests.unit.test_proposals import ARIADNE, at_step

NONE = AgentContext(model="none", preset="ariadne")


def _arithmetic_read():
    """The arithmetic dev game once its problem is read ("subtract 23 from 26"), with the reading kept as
    memory_update keeps it."""
    state, session = at_step(2, "twx_arithmetic.json")
    return {**state, "readings": [text_read(state)], "run_id": "r"}, session


def test_arithmetic_poses_its_problem_as_a_choice_among_the_things_here_and_never_the_problem_itself():
    state, session = _arithmetic_read()
    question = question_now(view_of(state, ARIADNE, session))
    assert question is not None
    assert "subtract 23 from 26" in question.asked
    assert "math problem" not in question.options
    assert set(question.options) == {c.removeprefix("take ") for c in state["admissible"] if c.startswith("take ")}
    # before the problem is read there is no question
    unread, session = at_step(1, "twx_arithmetic.json")
    assert question_now(view_of(unread, ARIADNE, session)) is None


def test_the_models_answer_is_taken_by_code_and_asked_once(monkeypatch):
    """The model answers '3 pears' (26 - 23): code takes them, with no choice call; the next step's question is the
    same, answered already, and code puts the pears in the box."""
    state, session = _arithmetic_read()
    model = QueuedChatModel(replies=[structured("WorkedOut", working="26 - 23 = 3", answer="3 pears")])
    monkeypatch.setattr(common, "load_chat_model", lambda *a, **k: model)
    update = planner_module.planner(state, Runtime(context=ARIADNE), session)
    assert update["plan"][0]["action"] == "take 3 pears"
    assert update["plan"][0]["by"] == common.BY_WORKED
    assert len(model.calls) == 1  # the question only: the take is code's
    assert update["worked_out"] == [
        {"question": question_now(view_of(state, ARIADNE, session)).key, "answer": "3 pears"}
    ]
    assert update["decided"]["questions"][0]["answer"] == "3 pears"
    assert update["usage"]  # the question's call is accounted for
    # carried now: the same question (the pears are among its options still), answered already: into the box
    carrying = {
        **state,
        "worked_out": update["worked_out"],
        "inventory": [*state["inventory"], "3 pears"],
        "admissible": [c for c in state["admissible"] if c != "take 3 pears"] + ["put 3 pears in box"],
    }
    proposal = propose(view_of(carrying, ARIADNE, session))
    assert proposal.forced
    assert proposal.first.command == "put 3 pears in box"
    assert proposal.first.source == Source.WORKED
    again = planner_module.planner(carrying, Runtime(context=ARIADNE), session)
    assert again["plan"][0]["action"] == "put 3 pears in box"
    assert len(model.calls) == 1  # not asked again


def test_with_no_language_model_the_question_is_never_asked_and_nothing_is_taken_at_random():
    state, session = _arithmetic_read()
    update = planner_module.planner(state, Runtime(context=NONE), session)
    assert "worked_out" not in update
    assert not update["plan"][0]["action"].startswith("take ")


def test_an_answer_that_names_no_option_leaves_the_choice_to_the_model_and_is_not_asked_again(monkeypatch):
    state, session = _arithmetic_read()
    model = QueuedChatModel(
        replies=[
            structured("WorkedOut", working="subtract the two numbers", answer="three"),
            structured("Decision", reasoning="26 - 23 = 3, so the 3 pears", action="take 3 pears"),
        ]
    )
    monkeypatch.setattr(common, "load_chat_model", lambda *a, **k: model)
    update = planner_module.planner(state, Runtime(context=ARIADNE), session)
    assert update["worked_out"][0]["answer"] == ""
    assert update["plan"][0]["by"] == common.BY_MODEL
    assert len(model.calls) == 2
    assert update["decided"]["questions"][0]["called"]
    view = view_of({**state, "worked_out": update["worked_out"]}, ARIADNE, session)
    assert not propose(view).forced


def test_sorting_asks_which_thing_left_is_smallest_and_leaves_out_what_is_in_the_box():
    """Recorded (sorting dev index 1): the things here are the options; once one is in the box it is none."""
    state, session = at_step(0, "twx_sorting.json")
    question = question_now(view_of(state, ARIADNE, session))
    assert set(question.options) == {"27g of steel", "37g of plastic", "41g of acrylic", "44kg of steel"}
    assert "smallest" in question.asked
    assert "1000 g" in question.asked
    session.past.add(
        {
            "step": 1,
            "action": "put 27g of steel in box",
            "observation": "You put the 27g of steel in the box.",
            "trail": "1",
            "location": state["location"],
            "inventory": [],
            "score": 0.25,
        }
    )
    after = {**state, "admissible": [*state["admissible"], "take 27g of steel"]}
    left = question_now(view_of(after, ARIADNE, session))
    assert "27g of steel" not in left.options
    assert left.key != question.key


@pytest.mark.parametrize(
    ("answer", "named"),
    [
        ("3 pears", "3 pears"),
        ("The 3 Pears", "3 pears"),
        ("the 3 pears, since 26 - 23 = 3", "3 pears"),
        ("3", ""),  # a number alone names no thing
        ("3 pears or 7 brocollis", ""),  # two things: none
        ("baby brown bear", "baby baby brown bear"),  # ScienceWorld's doubled word
        ("3 pears.", "3 pears"),
        ('"3 Pears!"', "3 pears"),
        ("brown bear", "baby baby brown bear"),  # its words, all in one option's name
        ("3 g of pears", ""),  # (words of no option's name)
    ],
)
def test_an_answer_names_an_option_by_its_words_only_when_it_names_one(answer, named):
    assert named_option(answer, ("3 pears", "7 brocollis", "31 watermelons", "baby baby brown bear")) == named


def test_diagnose_counts_the_questions_asked_answered_and_whether_carrying_the_answer_out_paid(monkeypatch, tmp_path):
    state, session = _arithmetic_read()
    model = QueuedChatModel(replies=[structured("WorkedOut", working="26 - 23 = 3", answer="3 pears")])
    monkeypatch.setattr(common, "load_chat_model", lambda *a, **k: model)
    update = planner_module.planner(state, Runtime(context=ARIADNE), session)
    meta = new_run_meta(
        "r",
        env="twx:arithmetic",
        seed=1,
        variation=None,
        max_steps=5,
        context={"model": "scripted", "preset": "ariadne"},
        thread_id="r",
    )
    run = RunDir.create(tmp_path, "r", meta)
    steps = [(None, 0, {}), ("take 3 pears", 0, update["decided"]), ("put 3 pears in box", 1, {})]
    for step, (action, score, decided) in enumerate(steps):
        record = {"step": step, "action": action, "observation": "x", "trail": str(step), "decided": decided}
        run.append_step(record, {"facts": [], "score": score, "max_score": 1, "location": "street"})
    totals = diagnose(run).totals["choice"]
    assert (totals["questions"], totals["answered"], totals["worked_moves"], totals["worked_paid"]) == (1, 1, 1, 1.0)
    assert totals["by_code"] == 1


LIFESPAN = "scienceworld_lifespan.json"  # recorded: lifespan-longest-lived-then-shortest-lived, dev variation 0


def test_a_lifespan_task_asks_which_animal_here_lives_longest_then_which_lives_shortest(monkeypatch):
    """Recorded (the dev variation, outside): three animals in sight. The model's answer is focused on by code; once
    that focus raised the score, the task's second focus is the next question, the first animal aside."""
    state, session = at_step(1, LIFESPAN)
    state = {**state, "run_id": "r"}
    question = question_now(view_of(state, ARIADNE, session))
    assert set(question.options) == {"ant", "baby baby brown bear", "baby baby wolf"}
    assert "longest" in question.asked
    assert question.scale == Scale("typical life span", "years", most=True)
    # each animal is weighed as its kind: asked for a "baby baby wolf", the 1.5B gives the baby's age
    kinds = dict(zip(question.options, question.weighed_names(), strict=True))
    assert kinds == {"ant": "ant", "baby baby brown bear": "brown bear", "baby baby wolf": "wolf"}
    model = QueuedChatModel(replies=[structured("Weighing", **{"ant": 1, "brown bear": 30, "wolf": 14})])
    monkeypatch.setattr(common, "load_chat_model", lambda *a, **k: model)
    update = planner_module.planner(state, Runtime(context=ARIADNE), session)
    assert update["plan"][0]["action"] == "focus on baby baby brown bear"
    asked_for = model.calls[0]["messages"][-1].content
    assert "- brown bear" in asked_for
    assert "baby" not in asked_for.split("## OPTIONS")[1]
    # the step's record keeps the model's numbers, by the game's names
    assert update["decided"]["questions"][0]["weighed"] == {"ant": 1, "baby baby brown bear": 30, "baby baby wolf": 14}
    session.past.add(
        {
            "step": 2,
            "action": "focus on baby baby brown bear",
            "observation": "You focus on the baby brown bear.",
            "trail": "2",
            "location": "outside",
            "inventory": [],
            "score": 83.0,
        }
    )
    then = question_now(view_of({**state, "step": 2, "score": 83.0}, ARIADNE, session))
    assert "shortest" in then.asked
    assert set(then.options) == {"ant", "baby baby wolf"}
    assert then.scale is not None
    assert not then.scale.most


def test_a_lifespan_task_asks_nothing_with_one_animal_in_sight_or_before_any():
    state, session = at_step(0, LIFESPAN)
    assert question_now(view_of(state, ARIADNE, session)) is None  # in the house: no animal here
    state, session = at_step(1, LIFESPAN)
    alone = {
        **state,
        "admissible": [c for c in state["admissible"] if c not in ("focus on ant", "focus on baby baby wolf")],
    }
    assert question_now(view_of(alone, ARIADNE, session)) is None


def test_a_reply_that_could_not_be_read_keeps_no_answer_and_the_question_is_asked_again(monkeypatch):
    state, session = _arithmetic_read()
    model = QueuedChatModel(
        replies=[
            AIMessage(content="I cannot"),  # no structured reply: the fallback
            structured("Decision", reasoning="26 - 23 = 3, so the 3 pears", action="take 3 pears"),
        ],
    )
    monkeypatch.setattr(common, "load_chat_model", lambda *a, **k: model)
    update = planner_module.planner(state, Runtime(context=replace(ARIADNE, structured_tries=1)), session)
    assert "worked_out" not in update
    assert update["replies"]["worked_out"]  # the failed call is accounted for
    view = view_of({**state, "worked_out": update.get("worked_out") or []}, ARIADNE, session)
    assert answer_to(view, question_now(view)) is None  # not asked yet, as far as the next step knows


def test_with_no_language_model_even_a_question_of_one_option_is_left_alone():
    state, session = at_step(0, "twx_sorting.json")
    one = {**state, "admissible": ["look around", "take 44kg of steel"], "run_id": "r"}
    assert len(question_now(view_of(one, NONE, session)).options) == 1
    update = planner_module.planner(one, Runtime(context=NONE), session)
    assert "worked_out" not in update
    assert update["plan"][0]["by"] != common.BY_WORKED


def test_a_lifespan_question_is_asked_only_where_the_task_says_the_animals_are():
    state, session = at_step(1, LIFESPAN)
    elsewhere = {**state, "location": "kitchen"}
    assert question_now(view_of(elsewhere, ARIADNE, session)) is None


@pytest.mark.parametrize(
    ("fixture", "step", "answer"),
    [("twx_arithmetic.json", 2, "3 pears"), ("twx_sorting.json", 0, "27g of steel"), (LIFESPAN, 1, "")],
)
def test_the_scripted_double_works_out_sums_and_quantities_by_rules_and_knows_no_life_spans(fixture, step, answer):
    """The test double's rule (testing/scripted/questions.py): it answers from the prompt's sections only."""
    state, session = at_step(step, fixture)
    state = {**state, "readings": [r for r in [text_read(state)] if r], "run_id": "r"}
    view = view_of(state, ARIADNE, session)
    worked, kept, _ = work_out(ARIADNE, view)
    assert kept["worked_out"][0]["answer"] == answer


THERMOMETER = "scienceworld_thermometer.json"  # recorded: use-thermometer, dev variation 0, to the measurement


def test_a_temperature_measured_poses_which_of_the_tasks_branches_it_calls_for_and_code_moves_the_thing(monkeypatch):
    """Recorded (dev use-thermometer#0): the thermometer measured 35 degrees on the unknown substance B; the task
    says above 50.0 the green box, below it the blue box. Comparing is the model's; moving the substance is code's."""
    state, session = at_step(6, THERMOMETER)
    state = {**state, "run_id": "r"}
    question = question_now(view_of(state, ARIADNE, session))
    assert set(question.options) == {"green box", "blue box"}
    assert "35 degrees celsius" in question.asked
    assert "above 50.0 degrees celsius, place it in the green box" in question.asked
    model = QueuedChatModel(replies=[structured("WorkedOut", working="35 is below 50.0", answer="blue box")])
    monkeypatch.setattr(common, "load_chat_model", lambda *a, **k: model)
    update = planner_module.planner(state, Runtime(context=ARIADNE), session)
    assert update["plan"][0]["action"] == "move unknown substance to blue box"
    # before the measurement there is nothing to work out
    before, session = at_step(5, THERMOMETER)
    assert question_now(view_of(before, ARIADNE, session)) is None


def test_the_working_s_result_decides_where_the_answer_field_copied_another_option(monkeypatch):
    """Recorded (arithmetic dev index 2): the 1.5B wrote "24 ÷ 3 = 8" and answered "72 pears", the first option its
    eye fell on. Its working is where it did the sum: the option of quantity 8 is the answer."""
    state, session = _arithmetic_read()
    model = QueuedChatModel(replies=[structured("WorkedOut", working="26 - 23 = 3", answer="1 olive")])
    monkeypatch.setattr(common, "load_chat_model", lambda *a, **k: model)
    update = planner_module.planner(state, Runtime(context=ARIADNE), session)
    assert update["plan"][0]["action"] == "take 3 pears"
    assert update["decided"]["questions"][0]["working"] == "26 - 23 = 3"


@pytest.mark.parametrize(
    ("working", "named"),
    [
        ("24 ÷ 3 = 8", "8 brocollis"),  # recorded: the answer field said 72 pears
        ("8 * 9 = 72 pears", "72 pears"),
        ("21 + 6 = 27.", "27 mangos"),
        ("41g = 41000mg; 44kg = 44000000mg; 41000mg < 44000000mg", ""),  # no "=" ends it: no result
        ("24 / 3 = 5", ""),  # no option of that quantity
        ("divide 24 by 3", ""),
    ],
)
def test_a_working_names_the_option_its_last_result_is_the_quantity_of(working, named):
    options = ("21 olives", "27 mangos", "29 cucumbers", "47 cucumbers", "72 pears", "8 brocollis")
    assert result_option(working, options) == named


def test_a_sorting_question_is_weighed_in_the_smallest_unit_its_things_are_named_in():
    state, session = at_step(0, "twx_sorting.json")
    question = question_now(view_of(state, ARIADNE, session))
    assert question.scale == Scale("quantity", "g", most=False)
    assert smallest_unit(("13g of plastic", "38kg of steel")) == "g"
    assert smallest_unit(("5m of rope", "30cm of wire", "2 m of cable")) == "cm"
    assert smallest_unit(("4l of water", "300ml of milk")) == "ml"
    assert smallest_unit(("a red apple", "3 pears")) is None


def test_a_weighed_question_is_a_form_of_one_number_per_option_and_nothing_else():
    """Under a grammar the keys are the form's: the model writes a number for each thing and no other key."""
    form = weighing_for(("38kg of steel", "43g of steel", "49g of steel")).model_json_schema()
    assert set(form["required"]) == set(form["properties"]) == {"38kg of steel", "43g of steel", "49g of steel"}
    assert all(spec["type"] == "number" for spec in form["properties"].values())
    assert form.get("additionalProperties") is not True


def test_the_option_at_the_scales_end_answers_and_a_tie_answers_nothing():
    least, most = Scale("quantity", "g", most=False), Scale("life span", "years", most=True)
    # recorded (sorting dev index 2): the 1.5B answered "38kg of steel", the first option, after "38kg = 38000g"
    weighed = {"38kg of steel": 38000.0, "43g of steel": 43.0, "49g of steel": 49.0}
    assert weighed_answer(weighed, least) == "43g of steel"
    assert weighed_answer(weighed, most) == "38kg of steel"
    assert weighed_answer({"ant": 1.0, "wolf": 1.0, "bear": 0.5}, most) == ""
    assert weighed_answer({}, least) == ""


def test_sorting_takes_the_thing_the_models_numbers_make_smallest_whatever_its_place_in_the_list(monkeypatch):
    """Recorded (sorting dev index 1): the model weighs the four things; the one it gives the least number is taken,
    though the options list it last."""
    state, session = at_step(0, "twx_sorting.json")
    state = {**state, "run_id": "r"}
    weighed = {"27g of steel": 27000, "37g of plastic": 37000, "41g of acrylic": 41000, "44kg of steel": 44}
    model = QueuedChatModel(replies=[structured("Weighing", **weighed)])
    monkeypatch.setattr(common, "load_chat_model", lambda *a, **k: model)
    update = planner_module.planner(state, Runtime(context=ARIADNE), session)
    assert update["worked_out"][0]["answer"] == "44kg of steel"
    assert update["plan"][0]["action"] == "take 44kg of steel"
    assert update["plan"][0]["by"] == common.BY_WORKED


def test_a_weighing_with_a_tie_is_answered_with_nothing_and_not_asked_again(monkeypatch):
    state, session = at_step(1, LIFESPAN)
    state = {**state, "run_id": "r"}
    model = QueuedChatModel(
        replies=[
            structured("Weighing", **{"ant": 10, "brown bear": 10, "wolf": 10}),
            structured("Decision", reasoning="bears live longest", action="focus on baby baby brown bear"),
        ]
    )
    monkeypatch.setattr(common, "load_chat_model", lambda *a, **k: model)
    update = planner_module.planner(state, Runtime(context=ARIADNE), session)
    assert update["worked_out"][0]["answer"] == ""
    assert update["plan"][0]["by"] == common.BY_MODEL


def test_an_option_is_weighed_under_its_own_name_where_the_names_given_would_merge_two():
    two_wolves = Question("which lives longest?", ("baby wolf", "wolf"), weighed_as=("wolf", "wolf"))
    assert two_wolves.weighed_names() == ("baby wolf", "wolf")
    assert Question("q", ("13g of steel", "2kg of wood")).weighed_names() == ("13g of steel", "2kg of wood")


def test_a_tool_the_task_needs_is_taken_where_it_lies_by_code_with_or_without_a_model():
    """Recorded (dev use-thermometer#0): in the kitchen the thermometer lies about; a task that measures a temperature
    needs it carried (the family's tools_for, beside the brief that says so), so code takes it before it walks on."""
    state, session = at_step(1, THERMOMETER)
    state = {**state, "run_id": "r"}
    proposal = propose(view_of(state, ARIADNE, session))
    assert proposal.forced
    assert (proposal.first.command, proposal.first.source) == ("pick up thermometer", Source.TOOL)
    update = planner_module.planner(state, Runtime(context=NONE), session)
    assert update["plan"][0]["action"] == "pick up thermometer"
    assert update["plan"][0]["by"] == common.BY_TOOL
    # carried, it is not taken again
    carried, session = at_step(2, THERMOMETER)
    assert propose(view_of(carried, ARIADNE, session)).first.source is not Source.TOOL


def test_a_tool_carried_is_offered_for_its_use_though_its_inventory_line_describes_it():
    """Recorded: "thermometer, currently reading a temperature of 10 degrees celsius" is the thermometer; by the
    substance, its use is a candidate for the model."""
    state, session = at_step(5, THERMOMETER)
    candidates = {c.command: c.source for c in propose(view_of(state, ARIADNE, session)).candidates}
    assert candidates.get("use thermometer on unknown substance") == Source.CARRIED


@pytest.mark.parametrize(
    ("goal", "tools"),
    [
        ("Your task is to measure the temperature of unknown substance B, which is located around the bathroom.", 1),
        ("Your task is to measure the melting point of lead, which is located around the kitchen.", 1),
        ("Your task is to find the animal with the longest life span.", 0),
        ("Your task is to use chemistry to create green paint.", 0),
    ],
)
def test_scienceworld_declares_the_thermometer_for_the_tasks_that_measure_a_temperature(goal, tools):
    assert family_of("scienceworld:use-thermometer").tools_for(goal) == ("thermometer",) * tools
    assert family_of("twx:sorting").tools_for(goal) == ()
