"""Multi-trial episodes (Reflexion) and memory that outlives a run (LangGraph Store namespaces), played
offline: a lesson written after a failed trial reaches the next trial's planner; a memory carried between
trials or seeded from a namespace is in the new run's memory before its first step; namespaces are
isolated; gold trajectories are read into a namespace; an eval reports success by trial."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from ariadnegraph import prompting as p
from ariadnegraph.agent.context import AgentContext
from ariadnegraph.agent.integrity import checked_copies
from ariadnegraph.evals.plan import EvalRequest
from ariadnegraph.evals.planning import plan_eval
from ariadnegraph.evals.runner import run_eval
from ariadnegraph.memory import WorldMemory
from ariadnegraph.memory.longterm import LongTermMemory, Namespace
from ariadnegraph.play import Episode, play, play_trials
from ariadnegraph.runs import RunDir

ARIADNE = str(Path(sys.executable).parent / "ariadne")
pytestmark = pytest.mark.slow


def prompts(run_dir: Path, run_id: str, node: str) -> list[str]:
    calls = [json.loads(line) for line in (run_dir / run_id / "calls.jsonl").read_text().splitlines()]
    return [json.dumps(c["prompt"]) for c in calls if c.get("node") == node and "prompt" in c]


def memory_at_start(run_dir: Path, run_id: str) -> set[tuple[str, str, str]]:
    with checked_copies(run_dir, [run_id]) as copies, WorldMemory.open(RunDir.open(copies, run_id).memory_path) as memory:
        return {f.triplet for f in memory.all_facts if f.source is None}


def test_a_failed_trial_teaches_the_next_and_carries_its_memory(tmp_path: Path) -> None:
    results = play_trials(Episode("cooking:2", seed=3, max_steps=4), trials=2, carry_memory=True, context=AgentContext(run_dir=str(tmp_path)), run_id="t")
    assert [(r["trial"], r["run_id"], r["won"]) for r in results] == [(1, "t", False), (2, "t-t2", False)]
    lesson = results[0]["reflection"]["text"]
    assert lesson
    assert results[0]["reflection"]["calls"] == 1
    meta = json.loads((tmp_path / "t-t2" / "run.json").read_text())
    assert meta["lessons"] == [lesson]
    assert meta["trial"] == {"index": 2, "of": 2, "first_run": "t", "reflection": results[0]["reflection"]}
    # the lesson is in every planner prompt of trial 2, and in none of trial 1
    assert prompts(tmp_path, "t-t2", "planner")
    assert all(p.LESSONS in text and lesson[:40] in text for text in prompts(tmp_path, "t-t2", "planner"))
    assert prompts(tmp_path, "t", "planner")
    assert not any(p.LESSONS in text for text in prompts(tmp_path, "t", "planner"))
    # trial 2's memory starts with what trial 1 knew of the world (not where the player was or what it held)
    carried = memory_at_start(tmp_path, "t-t2")
    assert meta["seeded"] == {"from": "t", "facts": len(carried)}
    assert len(carried) > 5
    assert not any(s == "player" or o == "inventory" for s, _, o in carried)


def test_trials_stop_at_a_win_and_a_rerun_plays_only_what_is_missing(tmp_path: Path) -> None:
    won = play_trials(Episode("treasure:1", max_steps=5), trials=3, context=AgentContext(run_dir=str(tmp_path)), run_id="w")
    assert len(won) == 1
    assert won[0]["won"]
    assert not (tmp_path / "w-t2").exists()
    first = play_trials(Episode("cooking:2", seed=3, max_steps=3), trials=1, context=AgentContext(run_dir=str(tmp_path)), run_id="r")
    calls = (tmp_path / "r" / "calls.jsonl").read_text()
    again = play_trials(Episode("cooking:2", seed=3, max_steps=3), trials=2, context=AgentContext(run_dir=str(tmp_path)), run_id="r")
    assert (tmp_path / "r" / "calls.jsonl").read_text() == calls  # trial 1 was read back, not played again
    assert again[0]["score"] == first[0]["score"]
    assert [r["run_id"] for r in again] == ["r", "r-t2"]


def test_a_rerun_does_not_reflect_again_on_a_trial_whose_successor_exists(tmp_path: Path, monkeypatch) -> None:
    """The lesson a later trial was shown is read back from it: no new reflection call, and the record
    reports the lesson that trial really saw."""
    import ariadnegraph.play as play_module

    reflections: list[str] = []
    real = play_module.reflect

    def counted(run, *args, **kwargs):
        reflections.append(run.run_id)
        return real(run, *args, **kwargs)

    monkeypatch.setattr(play_module, "reflect", counted)
    context = AgentContext(run_dir=str(tmp_path))
    first = play_trials(Episode("cooking:2", seed=3, max_steps=3), trials=2, context=context, run_id="x")
    assert reflections == ["x"]
    assert not first[-1]["won"]
    again = play_trials(Episode("cooking:2", seed=3, max_steps=3), trials=3, context=context, run_id="x")
    assert reflections == ["x", "x-t2"]  # trial 1's lesson was read from trial 2, only trial 2 was reflected on
    assert again[0]["reflection"] == first[0]["reflection"]
    assert json.loads((tmp_path / "x-t3" / "run.json").read_text())["lessons"] == [first[0]["reflection"]["text"],
                                                                                   again[1]["reflection"]["text"]]


def test_a_seeded_memory_is_visible_to_a_new_run_and_isolated_from_other_namespaces(tmp_path: Path) -> None:
    store = tmp_path / "store.sqlite"
    facts = [("cookbook", "on", "counter"), ("knife", "in", "drawer")]
    with LongTermMemory(store) as memory:
        memory.add_facts(Namespace("chef", "cooking"), facts, source="by hand")
        memory.add_lessons(Namespace("chef", "cooking"), ["read the cookbook first"], source="by hand")
        assert memory.facts(Namespace("chef", "treasure")) == []
        assert memory.facts(Namespace("other", "cooking")) == []
    env = {**os.environ, "ARIADNE_STORE": str(store)}
    for run_id, agent in (("seeded", "chef"), ("other", "other")):
        done = subprocess.run([ARIADNE, "play", "--env", "cooking:1", "--seed", "1", "--max-steps", "2", "--memory-from", agent,
                               "--run-dir", str(tmp_path / "runs"), "--run-id", run_id], capture_output=True, text=True, env=env, timeout=300)
        assert done.returncode == 0, done.stderr[-2000:]
    assert memory_at_start(tmp_path / "runs", "seeded") == set(facts)
    meta = json.loads((tmp_path / "runs" / "seeded" / "run.json").read_text())
    assert meta["recalled"] == {"from": "chef/cooking", "facts": 2, "lessons": 1}
    planned = prompts(tmp_path / "runs", "seeded", "planner")
    assert planned
    assert all("read the cookbook first" in text for text in planned)
    assert memory_at_start(tmp_path / "runs", "other") == set()
    assert not any("read the cookbook first" in text for text in prompts(tmp_path / "runs", "other", "planner"))
    other = json.loads((tmp_path / "runs" / "other" / "run.json").read_text())
    assert other["recalled"] == {"from": "other/cooking", "facts": 0, "lessons": 0}


def test_gold_trajectories_and_finished_runs_fill_a_namespace(tmp_path: Path) -> None:
    env = {**os.environ, "ARIADNE_STORE": str(tmp_path / "store.sqlite")}

    def cli(*args: str) -> subprocess.CompletedProcess:
        return subprocess.run([ARIADNE, *args], capture_output=True, text=True, env=env, timeout=300)

    gold = cli("memory", "seed-gold", "cooking:1", "--variations", "101", "--by-seed", "--agent", "davis", "--run-dir", str(tmp_path / "runs"))
    assert gold.returncode == 0, gold.stderr[-2000:]
    assert "gold steps read (won)" in gold.stdout
    played = play(Episode("cooking:1", seed=2, max_steps=3), context=AgentContext(run_dir=str(tmp_path / "runs")), run_id="later")
    saved = cli("memory", "save", played["run_id"], "--agent", "davis", "--run-dir", str(tmp_path / "runs"))
    assert saved.returncode == 0, saved.stderr
    with LongTermMemory(tmp_path / "store.sqlite") as memory:
        stored = memory.store.search(Namespace("davis", "cooking").facts, limit=1000)
        transitions = memory.transitions(Namespace("davis", "cooking"))
    # the gold run is dated history (its run and steps), never facts a later episode starts from
    sources = {s for item in stored for s in item.value["sources"]}
    assert sources == {"later"}
    assert {t.source for t in transitions} == {"gold:cooking:1:seed=101"}
    assert {t.step for t in transitions} >= {0, 1}
    assert any(t.action for t in transitions)
    shown = cli("memory", "show", "--agent", "davis")
    assert shown.stdout.startswith(f"davis/cooking: {len(stored)} facts, 0 lessons, {len(transitions)} dated transitions")
    for bad, message in ((("memory", "seed-gold", "cooking:1", "--variations", "x", "--by-seed", "--agent", "a"), "not a list of numbers"),
                         (("memory", "seed-gold", "cooking:1", "--variations", "101", "--agent", "a"), "chosen by seed, not by variation"),
                         # the same suite game, however it is spelled, and a game whose seed changes nothing
                         (("memory", "seed-gold", "COOKING: 01", "--variations", "3", "--by-seed", "--agent", "a"), "is a test game of stma-cooking"),
                         (("play", "--env", "crafter", "--split", "train"), "crafter takes no split"),
                         # the suites' test games never become gold memory: a memory holding the answers
                         (("memory", "seed-gold", "cooking:1", "--variations", "101,3", "--by-seed", "--agent", "a"),
                          "cooking:1 seed 3 is a test game of stma-cooking"),
                         (("memory", "seed-gold", "scienceworld:boil", "--variations", "0", "--split", "test", "--agent", "a"),
                          "invalid choice: 'test'"),
                         (("memory", "seed-gold", "cooking:1", "--variations", "101", "--by-seed", "--split", "train", "--agent", "a"),
                          "cooking:1 takes no split"),
                         (("memory", "show", "--store", str(tmp_path)), "is a directory"),
                         (("play", "--env", "cooking:1", "--memory-from", "no spaces allowed"), "must be 1-64 letters"),
                         (("play", "--env", "cooking:1", "--carry-memory"), "give --trials 2 or more"),
                         (("play", "--env", "cooking:1", "--trials", "0"), "argument --trials: must be 1 or more, got 0"),
                         (("play", "--env", "cooking:1", "--trials", "101"), "trials must be between 1 and 100")):
        refused = cli(*bad)
        assert refused.returncode == 2, (bad, refused.stderr)
        assert refused.stderr.count("\n") == 1, (bad, refused.stderr)
        assert message in refused.stderr, (bad, refused.stderr)


def test_an_eval_with_trials_reports_success_by_trial(tmp_path: Path) -> None:
    plan = plan_eval(EvalRequest(suite="stma-cooking", presets=["react"], out=tmp_path / "out", groups=["1"], per_group=1, max_steps=3, trials=2))
    records = run_eval(plan, progress=False)
    assert len(records) == 1
    assert [t["trial"] for t in records[0]["trials"]] == [1, 2]
    assert records[0]["won_by_trial"] == [False, False]
    assert records[0]["trials"][0]["lesson"]
    assert records[0]["key"].endswith("|trials=2")
    table = (tmp_path / "out" / "table.md").read_text()
    assert "## Success by trial" in table
    assert "won by trial 2" in table
    again = run_eval(plan, progress=False)  # finished: nothing is played again
    assert again == records


def test_gold_trajectories_of_scienceworld_come_from_training_variations(tmp_path: Path) -> None:
    """DAVIS's protocol: a task's memory is read from its training variations (never the test split the
    scienceworld suite plays), into the task's own namespace."""
    env = {**os.environ, "ARIADNE_STORE": str(tmp_path / "store.sqlite")}
    gold = subprocess.run([ARIADNE, "memory", "seed-gold", "scienceworld:4-1", "--variations", "0", "--agent", "davis",
                           "--run-dir", str(tmp_path / "runs")], capture_output=True, text=True, env=env, timeout=600)
    assert gold.returncode == 0, gold.stderr[-2000:]
    assert "gold:scienceworld:4-1:train-variation=0:" in gold.stdout
    assert "in davis/scienceworld.find-living-thing" in gold.stdout
    (run,) = (tmp_path / "runs").iterdir()
    meta = json.loads((run / "run.json").read_text())
    assert meta["split"] == "train"
    assert meta["variation"] == 0
