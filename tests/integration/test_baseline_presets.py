"""The papers' baselines built as presets (issue 38): Reflexion plays its trials unless told otherwise, SayCan
names a valid command with no thought, AdaPlanner revises its plan when an outcome differs from what it expected.
Played offline with the scripted double; what each role was asked is read from the run's calls."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from ariadnegraph import prompting as p
from ariadnegraph.agent.context import AgentContext
from ariadnegraph.evals.plan import EvalRequest
from ariadnegraph.evals.planning import plan_eval
from ariadnegraph.nodes.prompts import REACT, SAYCAN
from ariadnegraph.nodes.schemas import action_choice
from ariadnegraph.play import Episode, play, play_trials

ARIADNE = str(Path(sys.executable).parent / "ariadne")
pytestmark = pytest.mark.slow


def calls(run_dir: Path, run_id: str, node: str) -> list[dict]:
    records = [json.loads(line) for line in (run_dir / run_id / "calls.jsonl").read_text().splitlines()]
    return [c for c in records if c.get("node") == node and "prompt" in c]


def human(call: dict) -> str:
    return next(m["content"] for m in call["prompt"] if m["role"] == "human")


def test_reflexion_plays_a_lost_game_again_up_to_its_three_trials_each_shown_the_lessons(tmp_path: Path) -> None:
    context = AgentContext(preset="reflexion", run_dir=str(tmp_path))
    results = play_trials(Episode("cooking:2", seed=3, max_steps=3), context=context, run_id="x")
    assert [(r["trial"], r["won"]) for r in results] == [(1, False), (2, False), (3, False)]
    lessons = [r["reflection"]["text"] for r in results[:2]]
    assert all(lessons)
    # the ReAct chooser is the deciding role: trial 3's choices read both lessons, trial 1's none
    assert all(lessons[0][:40] in human(c) and lessons[1][:40] in human(c) for c in calls(tmp_path, "x-t3", "actor"))
    assert not any(p.LESSONS in human(c) for c in calls(tmp_path, "x", "actor"))
    told = play_trials(Episode("cooking:2", seed=3, max_steps=3), trials=1, context=context, run_id="y")
    assert len(told) == 1
    assert not (tmp_path / "y-t2").exists()


def test_an_eval_plays_each_preset_with_its_own_trials_unless_trials_is_given(tmp_path: Path) -> None:
    plan = plan_eval(EvalRequest(suite="stma-cooking", presets=["reflexion", "react"], out=tmp_path / "a", groups=["1"], per_group=1))
    assert {(job.preset, job.trials) for job in plan.jobs} == {("reflexion", 3), ("react", 1)}
    plan = plan_eval(EvalRequest(suite="stma-cooking", presets=["reflexion", "react"], out=tmp_path / "b", groups=["1"], per_group=1, trials=2))
    assert {job.trials for job in plan.jobs} == {2}
    plan = plan_eval(EvalRequest(suite="stma-cooking", presets=["reflexion"], out=tmp_path / "c", groups=["1"], per_group=1, switches=["trials=5"]))
    assert {job.trials for job in plan.jobs} == {5}


def test_saycan_names_a_valid_command_with_no_reasoning_every_step(tmp_path: Path) -> None:
    result = play(Episode("cooking:1", seed=7, max_steps=4), context=AgentContext(preset="saycan", run_dir=str(tmp_path)), run_id="s")
    chosen = calls(tmp_path, "s", "actor")
    assert len(chosen) == result["steps"] == 4
    assert result["llm_calls"] == 4
    assert all(c["prompt"][0]["content"] == SAYCAN for c in chosen)
    # the commands played so far are in each later choice's prompt (SayCan reads what it already did)
    played = [json.loads(line) for line in (tmp_path / "s" / "trajectory.jsonl").read_text().splitlines()][1:]
    told = p.parse_sections(human(chosen[-1]))[p.FULL_HISTORY].splitlines()
    assert [line.split(" -> ")[0] for line in told] == ["- (start)", *(f"- {line['action']}" for line in played[:3])]


def test_the_choice_with_no_reasoning_has_only_the_command_and_only_valid_ones() -> None:
    schema = action_choice(["go north", "look"], reasoning=False).model_json_schema()
    assert set(schema["properties"]) == {"action"}
    assert schema["properties"]["action"]["enum"] == ["go north", "look"]
    assert "reasoning" in action_choice(["look"]).model_json_schema()["properties"]
    assert REACT != SAYCAN


def test_adaplanner_plays_with_a_planner_and_an_outcome_check_and_no_other_role(tmp_path: Path) -> None:
    result = play(Episode("cooking:1", seed=7, max_steps=4), context=AgentContext(preset="adaplanner", run_dir=str(tmp_path)), run_id="a")
    assert set(result["replies_by_node"]) == {"planner", "critic"}
    assert result["steps"] == 4
    # what it plays is what the planner wrote (no grounding), and each outcome is checked after its command
    assert len(calls(tmp_path, "a", "critic")) == 3


def test_rap_is_shown_the_gold_runs_moments_most_like_the_present_and_is_refused_without_them(tmp_path: Path) -> None:
    env = {**os.environ, "ARIADNE_STORE": str(tmp_path / "store.sqlite")}

    def cli(*args: str) -> subprocess.CompletedProcess:
        return subprocess.run([ARIADNE, *args], capture_output=True, text=True, env=env, timeout=300)

    seeded = cli(
        "memory",
        "seed-gold",
        "cooking:1",
        "--variations",
        "101",
        "--by-seed",
        "--agent",
        "gold",
        "--run-dir",
        str(tmp_path / "gold"),
    )
    assert seeded.returncode == 0, seeded.stderr[-2000:]
    runs = tmp_path / "runs"
    played = cli(
        "play",
        "--env",
        "cooking:1",
        "--seed",
        "2",
        "--preset",
        "rap",
        "--memory-from",
        "gold",
        "--max-steps",
        "3",
        "--run-dir",
        str(runs),
        "--run-id",
        "rap",
        "--json",
    )
    assert played.returncode == 0, played.stderr[-2000:]
    chosen = calls(runs, "rap", "actor")
    assert len(chosen) == 3
    for call in chosen:
        shown = p.parse_sections(human(call))[p.EXPERIENCES]
        moments = [line for line in shown.splitlines() if line.strip()]
        assert len(moments) == 3
        assert all(
            m.startswith("- [gold:cooking:1:seed=101, step ") and "-> then: " in m for m in moments
        )
    refused = cli(
        "play", "--env", "cooking:1", "--seed", "2", "--preset", "rap", "--max-steps", "3", "--run-dir", str(runs)
    )
    assert (
        refused.returncode != 0
    )
    assert (
        refused.stderr.strip().startswith("ariadne: error:")
    )
    assert (
        "--memory-from" in refused.stderr
    )
    assert not (runs / "rap-2").exists()
    assert len(list(runs.iterdir())) == 1


def test_a_random_walk_builds_the_graph_as_arigraph_does_while_commands_are_drawn_at_random(tmp_path: Path) -> None:
    """AriGraph appendix C (figure 6): the commands are drawn from the valid ones, the same on a replay, and the
    graph is still built by the preset's extraction."""
    from ariadnegraph.agent.ablations import ablation

    cell = next(v for v in ablation("arigraph-random-walk") if v.label == "AriGraph random walk")
    played = []
    for folder in ("one", "two"):
        context = AgentContext(preset="arigraph", switch_overrides=cell.switches, run_dir=str(tmp_path / folder))
        result = play(Episode("arigraph:clean", max_steps=6), context=context, run_id="walk")
        trajectory = [json.loads(line) for line in (tmp_path / folder / "walk" / "trajectory.jsonl").read_text().splitlines()]
        assert all(t["action"] in before["valid"] for before, t in zip(trajectory, trajectory[1:]))
        assert {"planner", "actor", "exploration_check"}.isdisjoint(result["replies_by_node"])
        assert result["replies_by_node"]["relation_retriever"]["parsed"] == 7  # the graph is built every step
        played.append([t["action"] for t in trajectory[1:]])
    assert played[0] == played[1]
    assert len(set(played[0])) > 1
