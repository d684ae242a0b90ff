"""A checkpoint costs the same late in an episode as early: what grows with the episode lives in the run's
files and memory, and the state keeps bounded windows (agent/state.py). benchmarks/checkpoint_size.py prints
the sizes at steps 10, 100 and 1,000; this plays far enough past the history window to see growth."""

from __future__ import annotations

import statistics

import pytest

from ariadnegraph.agent.checkpoints import bytes_by_step
from ariadnegraph.agent.context import AgentContext
from ariadnegraph.agent.state import HISTORY_KEPT
from ariadnegraph.play import Episode, play
from ariadnegraph.runs import RunDir


def test_checkpoints_stay_the_same_size_as_the_episode_grows(tmp_path):
    # every role on (its state in the checkpoints); arigraph:clean is never finished by the scripted double
    late = 2 * HISTORY_KEPT + 20
    result = play(Episode("arigraph:clean", max_steps=late + 10), context=AgentContext(run_dir=str(tmp_path), preset="ariadne_full"))
    assert result["steps"] == late + 10
    run = RunDir.open(tmp_path, result["run_id"])
    sizes = bytes_by_step(run.checkpoints_path, run.run_id)

    def mean(first: int) -> float:
        return statistics.mean(sum(sizes[step]) for step in range(first, first + 10))

    # once the window is full (HISTORY_KEPT steps) a step's checkpoints hold as much at step ~80 as at ~30; before the
    # window, the state kept every step's observation and a step at 80 cost ~2.5 times one at 30
    assert mean(late) < 1.2 * mean(HISTORY_KEPT + 4)


@pytest.mark.parametrize("preset", ["ariadne", "ariadne_full"])
def test_a_step_costs_at_most_20_kb_of_checkpoints(tmp_path, preset):
    """Each channel's value is stored once per version, compressed, and each row against a row like it
    (agent/checkpoints.RunSqliteSaver): a text game's step cost ~130 KB when every checkpoint held the whole state,
    the last 25 steps' observations with it; with every role on (``ariadne_full``, ten checkpoints a step) it cost
    ~27 KB before the rows were compressed against one another."""
    result = play(Episode("arigraph:clean", max_steps=40), context=AgentContext(run_dir=str(tmp_path), preset=preset))
    run = RunDir.open(tmp_path, result["run_id"])
    sizes = bytes_by_step(run.checkpoints_path, run.run_id)
    assert sorted(sizes) == list(range(41))
    costly = {step: sum(found) for step, found in sizes.items() if step >= 10 and sum(found) > 20_000}
    assert costly == {}
