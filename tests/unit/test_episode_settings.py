"""What play and play_trials take: the game as an Episode, what it starts with as a HeadStart."""

from __future__ import annotations

import pytest

from ariadnegraph.agent.context import AgentContext
from ariadnegraph.play import Episode, HeadStart, play_trials


def test_an_episode_hands_the_game_only_the_draw_it_names():
    assert Episode("cooking:1", seed=3).draw() == {"seed": 3}
    assert Episode("scienceworld:boil", variation=0, split="dev").draw() == {"variation": 0, "split": "dev"}
    assert Episode("crafter").draw() == {}
    with pytest.raises(TypeError):
        Episode("cooking:1", 3)  # type: ignore[misc]  # a seed is named, never taken by position


def test_trials_refuse_a_script_before_anything_is_written(tmp_path):
    with pytest.raises(ValueError, match="no script"):
        play_trials(
            Episode("cooking:1", seed=1, max_steps=3),
            context=AgentContext(run_dir=str(tmp_path)),
            head_start=HeadStart(script=["look"]),
        )
    assert list(tmp_path.iterdir()) == []
