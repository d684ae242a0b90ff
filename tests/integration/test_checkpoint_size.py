"""A checkpoint costs the same late in an episode as early: what grows with the episode lives in the run's
files and memory, and the state keeps bounded windows (agent/state.py). benchmarks/checkpoint_size.py prints
the sizes at steps 10, 100 and 1,000; this plays far enough past the history window to see growth."""

from __future__ import annotations

import sqlite3
import statistics
from collections import defaultdict

from langgraph.checkpoint.serde.jsonplus import JsonPlusSerializer

from ariadnegraph.agent.context import AgentContext
from ariadnegraph.agent.state import HISTORY_KEPT
from ariadnegraph.play import play
from ariadnegraph.runs import RunDir


def checkpoint_bytes_by_step(run: RunDir) -> dict[int, list[int]]:
    serde = JsonPlusSerializer()
    sizes: dict[int, list[int]] = defaultdict(list)
    with sqlite3.connect(run.checkpoints_path) as db:
        for kind, blob in db.execute("SELECT type, checkpoint FROM checkpoints"):
            step = (serde.loads_typed((kind, blob)).get("channel_values") or {}).get("step")
            if isinstance(step, int):
                sizes[step].append(len(blob))
    return sizes


def test_checkpoints_stay_the_same_size_as_the_episode_grows(tmp_path):
    # every role on (its state in the checkpoints); arigraph:clean is never finished by the scripted double
    late = 2 * HISTORY_KEPT + 20
    result = play("arigraph:clean", max_steps=late + 10, context=AgentContext(run_dir=str(tmp_path), preset="ariadne_full"))
    assert result["steps"] == late + 10
    sizes = checkpoint_bytes_by_step(RunDir.open(tmp_path, result["run_id"]))

    def mean(first: int) -> float:
        return statistics.mean(size for step in range(first, first + 10) for size in sizes[step])

    # once the window is full (HISTORY_KEPT steps) a checkpoint holds as much at step ~80 as at ~30; before the
    # window, the state kept every step's observation and a checkpoint at step 80 was ~2.5 times one at step 30
    assert mean(late) < 1.2 * mean(HISTORY_KEPT + 4)
