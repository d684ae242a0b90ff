"""Studio's input form (issue 39): the served agent graph's input schema says what a person must fill (the game and
its budget), describes each field with examples, offers the splits as a choice, and holds none of the fields the
CLI's own runs hand the graph (a trial's lessons, a given script)."""

from __future__ import annotations

import pytest

from ariadnegraph.agent.episode_input import check_episode_input
from ariadnegraph.graphs.agent import build_agent_graph, graph


def test_the_served_input_form_requires_the_game_and_its_budget_and_describes_each_field():
    schema = graph.get_input_jsonschema()
    assert schema["required"] == ["env", "max_steps"]
    fields = schema["properties"]
    assert set(fields) == {"env", "max_steps", "seed", "variation", "split", "run_id"}  # no lessons, no script
    assert all(field.get("description") for field in fields.values())
    assert "cooking:1" in fields["env"]["examples"]
    assert fields["max_steps"]["minimum"] == 1
    splits = next(option for option in fields["split"]["anyOf"] if option.get("type") == "string")
    assert splits["enum"] == ["train", "dev", "test"]


def test_the_cli_graph_still_takes_lessons_and_a_script():
    fields = build_agent_graph().compile().get_input_jsonschema()["properties"]
    assert {"lessons", "script"} <= set(fields)


def test_a_split_that_is_no_split_is_refused_in_one_line():
    with pytest.raises(ValueError, match="has no split 'validation': train, dev, test"):
        check_episode_input({"env": "scienceworld:melt", "max_steps": 5, "split": "validation"})
