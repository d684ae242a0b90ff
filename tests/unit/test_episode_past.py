"""The index of the episode's past (agent/past.py) answers what reading the whole trajectory answered, is kept by
the session as it records steps, is rebuilt with it, and spares the nodes any read of the trajectory."""

from __future__ import annotations

import random

import pytest

from ariadnegraph.agent.context import AgentContext
from ariadnegraph.agent.past import EpisodePast
from ariadnegraph.agent.session import end_session, get_session, open_session
from ariadnegraph.play import Episode, play
from ariadnegraph.prompting import first_line
from ariadnegraph.runs import RunDir


def trajectory(seed: int, length: int) -> list[dict]:
    """A random episode over a few rooms, inventories, scores and commands, so situations come back."""
    rng = random.Random(seed)
    records, score = [], 0.0
    for step in range(length):
        score += rng.choice([0, 0, 0, 1])
        records.append({
            "step": step,
            "action": None if step == 0 else rng.choice(["look", "go north", "go south", "take key", "open box"]),
            "observation": rng.choice(["", "\n  You see a box.\nIt is shut.", "Nothing happens."]),
            "location": rng.choice(["kitchen", "hall", None]),
            "inventory": rng.sample(["key", "coin", "map"], rng.randint(0, 2)),
            "score": score,
        })
    return records


# what each question cost before the index: a read of the whole trajectory, as these do
def tried_by_reading(records: list[dict], state: dict) -> dict:
    here = (state.get("location"), sorted(state.get("inventory") or []), state.get("score", 0.0))
    found: dict = {}
    before = None
    for record in records:
        if before == here and (command := record.get("action")):
            count, _ = found.get(command, (0, ""))
            found[command] = (count + 1, first_line(record["observation"], 100))
        before = (record.get("location"), sorted(record.get("inventory") or []), record.get("score", 0.0))
    return found


def rises_by_reading(records: list[dict]) -> list[dict]:
    rises, score = [], 0.0
    for record in records:
        if record.get("action") and record.get("score", 0.0) > score:
            rises.append(record)
        score = record.get("score", 0.0)
    return rises


@pytest.mark.parametrize("seed", range(5))
def test_the_index_answers_what_reading_the_trajectory_answered(seed):
    records = trajectory(seed, 120)
    past = EpisodePast()
    for n, record in enumerate(records, start=1):
        past.add(record)
        seen = records[:n]
        state = random.Random(seed * 1000 + n).choice(seen)  # a situation the episode was in
        assert past.tried_here(state) == tried_by_reading(seen, state)
        assert list(past.tried_here(state)) == list(tried_by_reading(seen, state))  # first played first
    assert past.score_rises() == rises_by_reading(records)
    assert past.played() == {r["action"] for r in records if r["action"]}
    assert past.last_played(("take", "open")) == [r["action"] for r in reversed(records) if r["action"] in ("take key", "open box")]
    asked_early = EpisodePast(records[:40])
    assert asked_early.last_played(("take",)) == [r["action"] for r in reversed(records[:40]) if r["action"] == "take key"]
    for record in records[40:]:  # kept current after the first question
        asked_early.add(record)
    assert asked_early.last_played(("take",)) == [r["action"] for r in reversed(records) if r["action"] == "take key"]
    assert past.records(last=3) == records[-3:]
    assert past.records(until=10) == records[:11]
    assert EpisodePast(records).tried_here(records[-1]) == past.tried_here(records[-1])  # rebuilt, the same


def test_an_answer_handed_out_is_a_copy_the_caller_may_change():
    past = EpisodePast(trajectory(1, 30))
    here = trajectory(1, 30)[-1]
    past.tried_here(here).clear()
    past.score_rises().clear()
    assert past.tried_here(here) == tried_by_reading(trajectory(1, 30), here)
    assert past.score_rises() == rises_by_reading(trajectory(1, 30))


def test_the_index_gives_no_records_when_asked_for_none():
    past = EpisodePast([{"step": 0, "action": None, "observation": "", "score": 0.0}])
    assert past.records(last=0) == []
    assert len(past.records(last=5)) == 1


def test_the_session_keeps_the_index_as_it_plays_and_rebuilds_it_from_the_files(tmp_path):
    context = AgentContext(run_dir=str(tmp_path), preset="ariadne", model="scripted")
    result = play(Episode("cooking:1", seed=1, max_steps=6), context=context)
    run = RunDir.open(tmp_path, result["run_id"])
    records = list(run.steps())
    # a session rebuilt from the files (a resume on another process) holds the same past as the files
    state = {"run_id": result["run_id"], "env": "cooking:1", "seed": 1, "max_steps": 6}
    state |= {"step": 3, "observation": records[3]["observation"], "trail": records[3]["trail"]}
    try:
        session = open_session(tmp_path, state, create=False)
        assert session.past.records() == records[:4]  # the fork's history: steps after it were cut, and left the index
        assert session.past.steps == 4
        session.play(4, "inventory", None)
        assert session.past.steps == 5
        assert session.past.records()[-1] == list(run.steps())[-1]
        assert get_session(result["run_id"]) is session
    finally:
        end_session(result["run_id"])


def test_no_node_reads_the_trajectory_while_the_episode_plays(tmp_path, monkeypatch):
    """A step's cost does not grow with the episode: the trajectory is read when a session is built, never per step."""
    reads: list[str] = []
    steps = RunDir.steps

    def counted(self: RunDir):
        reads.append(self.run_id)
        return steps(self)

    monkeypatch.setattr(RunDir, "steps", counted)
    for preset in ("ariadne", "ariadne_full", "react"):
        reads.clear()
        context = AgentContext(run_dir=str(tmp_path / preset), preset=preset, model="scripted")
        result = play(Episode("arigraph:clean", seed=1, max_steps=25), context=context)
        assert result["steps"] == 25
        assert len(reads) <= 2, (preset, len(reads))  # the session's build, and the result's summary
