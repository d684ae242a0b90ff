"""The rules shield: what a game family's rules say ruins an episode for good (envs/rules.py)."""

from __future__ import annotations

import pytest

from ariadnegraph.envs.rules import allowed, cooking_family, ruinous, tools_needed


@pytest.mark.parametrize("spec, command, inventory, ruled_out", [
    ("cooking:1", "eat red apple", ["red apple"], "loses the game"),
    ("cooking:1", "eat meal", ["meal"], None),
    ("cooking:1", "cook red bell pepper with stove", ["roasted red bell pepper", "red onion"], "cooked already"),
    ("cooking:1", "cook red onion with stove", ["roasted red bell pepper", "red onion"], None),
    ("cooking:1", "cook red bell pepper with oven", ["red bell pepper"], None),
    ("twx:cookingworld", "cook yellow bell pepper in oven", ["fried yellow bell pepper"], "cooked already"),
    ("arigraph:cook", "eat carrot", [], "loses the game"),
    ("treasure:1", "eat red apple", ["red apple"], None),  # another family: its rules are not known here
    ("twx:coincollector", "eat coin", [], None),
])
def test_what_the_cooking_rules_rule_out(spec, command, inventory, ruled_out):
    reason = ruinous(spec, command, inventory)
    assert (reason is None) if ruled_out is None else (ruled_out in reason)


def test_the_shield_keeps_every_other_command():
    valid = ["cook red bell pepper with stove", "chop red bell pepper with knife", "eat red bell pepper", "prepare meal", "go south"]
    assert allowed("cooking:1", valid, ["roasted red bell pepper", "knife"]) == ["chop red bell pepper with knife", "prepare meal", "go south"]
    assert allowed("coin:1", valid, ["roasted red bell pepper"]) == valid
    assert cooking_family("cooking:3") and not cooking_family("scienceworld:boil")


def test_a_cooking_direction_is_worded_as_the_command_that_does_it():
    from ariadnegraph.envs.rules import phrasings

    assert phrasings("cooking:1", "fry the white tuna") == ["cook white tuna stove"]
    assert phrasings("twx:cookingworld", "roast the carrot") == ["cook carrot oven"]
    assert phrasings("cooking:1", "chop the carrot") == [] and phrasings("coin:1", "fry the tuna") == []


def test_cutting_needs_the_knife_in_the_cooking_family_only():
    assert tools_needed("cooking:1", "chop the white tuna") == ["knife"]
    assert tools_needed("twx:cookingworld", "Slice the carrot") == ["knife"]
    assert tools_needed("cooking:1", "fry the white tuna") == []
    assert tools_needed("treasure:1", "chop the tree") == []
