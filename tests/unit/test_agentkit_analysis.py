"""AgentKit's analyses of the learned agent (§4.1.2 fig. 4 right): Crafter's commands by category under each skill,
from the skill each step's trajectory line records."""

from __future__ import annotations

from collections import Counter
from types import SimpleNamespace

from ariadnegraph.evals.agentkit_analysis import NO_SKILL, action_category, actions_per_skill


def test_crafter_commands_fall_into_figure_4s_categories() -> None:
    assert [action_category(c) for c in ("move left", "do", "place table", "make wood pickaxe", "sleep", "noop", "")] == [
        "move", "do", "place", "make", "sleep", "noop", "noop"]


def test_commands_are_counted_under_the_skill_their_step_was_played_with() -> None:
    lines = [{"step": 0, "action": None},
             {"step": 1, "action": "move left", "decided": {"skill": [""]}},
             {"step": 2, "action": "do", "decided": {"skill": ["CollectWood"]}},
             {"step": 3, "action": "move up", "decided": {"skill": ["CollectWood"]}},
             {"step": 4, "action": "do", "decided": {"skill": ["CollectWood"]}},
             {"step": 5, "action": "place table", "decided": {"skill": ["CollectWood", "PlaceTable"]}}]
    run = SimpleNamespace(steps=lambda: iter(lines))
    assert actions_per_skill(run) == {NO_SKILL: Counter(move=1), "CollectWood": Counter(do=2, move=1),
                                      "PlaceTable": Counter(place=1)}
