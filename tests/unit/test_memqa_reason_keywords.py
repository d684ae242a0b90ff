"""EMemBench table 14 keys A_keyword_occurrence and the four B_keyword_* templates on the agent's logged
reason, not on the observation. The episode here names 'cellar' only in the reasons (steps 2 and 4) and
'lamp' only in an observation (step 1): keyed on observations the answers below would not exist."""

from __future__ import annotations

import pytest

from ariadnegraph.evals.memqa.generate import candidates, generate
from ariadnegraph.evals.memqa.index import Episode, StepState, Timeline
from ariadnegraph.evals.memqa.questions import Vocabulary
from ariadnegraph.evals.memqa.templates import BY_ID, match_question

STEPS = [
    StepState(0, None, "You are in a hall.", 0, "hall", ()),
    StepState(1, "look", "A lamp hangs from the ceiling.", 0, "hall", (), "Look around first."),
    StepState(2, "go east", "You are in a pantry.", 0, "pantry", (), "The cellar may be past the pantry."),
    StepState(3, "take jar", "Taken.", 1, "pantry", ("jar",), "A jar could be useful."),
    StepState(4, "go down", "It is dark here.", 1, "stairs", ("jar",), "Down the stairs to the cellar, I hope. Careful."),
    StepState(5, "wait", "Time passes.", 2, "stairs", ("jar",), "Listen."),
]
VOCAB = Vocabulary(items=("jar", "lamp"), locations=("hall", "pantry", "stairs", "cellar"))
# (template, slots, answer keyed on reasons)
CASES = [
    ("A_keyword_occurrence", {"ordinal": "first", "keyword": "cellar"}, 2),
    ("A_keyword_occurrence", {"ordinal": "last", "keyword": "cellar"}, 4),
    ("B_keyword_after_action", {"value": "cellar", "delta": 1}, "take jar"),
    ("B_keyword_after_location", {"value": "cellar", "delta": 2}, "stairs"),
    ("B_keyword_after_observation", {"value": "cellar", "delta": 3}, "Time passes."),
    ("B_keyword_after_reward", {"value": "cellar", "delta": 3}, 2),
]


def test_the_keyword_is_only_in_reasons() -> None:
    tl = Timeline(STEPS)
    assert tl.mention_steps("cellar") == []
    assert tl.reason_steps("cellar") == [2, 4]
    assert tl.mention_steps("lamp") == [1]
    assert tl.reason_steps("lamp") == []


@pytest.mark.parametrize(("template_id", "slots", "expected"), CASES)
def test_keyword_templates_answer_from_the_logged_reason(template_id: str, slots: dict, expected: object) -> None:
    tl = Timeline(STEPS)
    template = BY_ID[template_id]
    assert "reason mentions" in template.text
    solved = template.solve(tl, **slots)
    assert solved is not None
    assert solved[0] == expected
    # a keyword only an observation mentions does not anchor a reason question
    key = "keyword" if "keyword" in slots else "value"
    assert template.solve(tl, **{**slots, key: "lamp"}) is None
    # the generator instantiates the template from the reasons, and the question reads back
    made = [s for s, _, _ in candidates(template, tl, VOCAB)]
    assert slots in made
    assert {s[key] for s in made} == {"cellar", "jar", "pantry", "stairs"}
    matched = match_question(template.question(slots))
    assert matched is not None
    assert matched[0].id == template_id
    assert matched[1] == slots


def test_a_run_without_reasons_gets_no_keyword_questions() -> None:
    bare = Timeline(StepState(s.step, s.action, s.observation, s.score, s.location, s.inventory) for s in STEPS)
    for template_id in {c[0] for c in CASES}:
        assert candidates(BY_ID[template_id], bare, VOCAB) == []


def test_generated_keyword_questions_and_false_premises() -> None:
    episode = Episode("r", "hand:built", Timeline(STEPS), VOCAB.items, VOCAB.locations)
    items = generate(episode, per_type=60, seed=2)
    keyword = [i for i in items if i.template in {c[0] for c in CASES}]
    real = [i for i in keyword if not i.adversarial]
    assert real
    assert {i.slots.get("keyword", i.slots.get("value")) for i in real} <= {"cellar", "jar", "pantry", "stairs"}
    assert any(i.slots.get("keyword", i.slots.get("value")) == "cellar" for i in real)
    # 'cellar' occurs in the episode (in reasons): never offered as a false premise
    assert all(i.slots.get("keyword", i.slots.get("value")) != "cellar" for i in keyword if i.adversarial)
