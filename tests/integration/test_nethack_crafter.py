"""NetHack (NLE) and Crafter as text games: they reset, step, describe what the player sees, score by
BALROG's progression, refuse bad specs in one line, and their suites run offline."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from ariadnegraph.envs import EnvSpecError, make
from ariadnegraph.envs.nethack_progress import progression

ARIADNE = str(Path(sys.executable).parent / "ariadne")


def test_progression_is_the_larger_of_the_depth_and_experience_milestones():
    assert progression(1, 1) == 0.0
    assert progression(5, 1) == pytest.approx(2.6482)  # Dlvl:5 in BALROG's table
    assert progression(5, 10) == pytest.approx(17.91)  # Xp:10 beats Dlvl:5
    assert progression(0, 0) == 0.0
    assert progression(99, 99) == 0.0


def test_nethack_steps_and_describes_what_the_player_sees():
    env = make("nethack:challenge", seed=1, max_steps=20)
    try:
        first = env.reset()
        for part in ("Next to you: north:", "Status:", "Dlvl:1", "Inventory:"):
            assert part in first.text
        assert first.location == "dungeon level 1"
        assert first.inventory
        assert first.max_score == 100.0
        assert {"north", "far east", "down", "search", "more", "pickup"} <= set(first.admissible_actions)
        assert not {"save", "quit", "shell"} & set(first.admissible_actions)  # nothing that leaves the game
        moved = env.step("search")
        assert moved.oracle.extra["valid"] is True
        assert moved.oracle.extra["depth"] == 1
        assert moved.moves == 1
        refused = env.step("dance wildly")
        assert refused.oracle.extra["valid"] is False
        assert "is not a command here" in refused.text
    finally:
        env.close()


def test_crafter_steps_unlocks_an_achievement_and_scores_progression():
    env = make("crafter", seed=1, max_steps=20)
    try:
        first = env.reset()
        assert "You face grass" in first.text
        assert "Achievements left (22)" in first.text
        assert len(first.admissible_actions) == 17
        assert first.max_score == 22.0
        assert first.location == "region 4-4"
        for command in ("move left", "do", "move up", "do"):
            last = env.step(command)
        assert last.score == 1.0
        assert "sapling" in last.inventory
        assert "Achievements left (21)" in last.text
        assert "collect_sapling" in last.oracle.extra["achievements"]
    finally:
        env.close()


@pytest.mark.parametrize(("spec", "options", "message"), [
    ("nethack:nosuch", {}, "unknown NetHack task 'nosuch'"),
    ("nethack:challenge", {"seed": -1}, "non-negative integer"),
    ("crafter:forest", {}, "crafter takes no game name"),
])
def test_bad_specs_fail_in_one_line(spec, options, message):
    with pytest.raises(EnvSpecError, match=message) as refused:
        make(spec, **options)
    assert "\n" not in str(refused.value)


@pytest.mark.parametrize(("suite", "figure"), [("nethack", "deepest level"), ("crafter", "achievements unlocked")])
def test_the_progression_suites_run_offline(suite, figure, tmp_path):
    out = tmp_path / suite
    result = subprocess.run([ARIADNE, "eval", suite, "--preset", "react", "--model", "scripted", "--limit", "1", "--max-steps", "15",
                             "--out", str(out)], capture_output=True, text=True, timeout=900)
    assert result.returncode == 0, result.stderr[-3000:]
    record = json.loads((out / "episodes.jsonl").read_text().splitlines()[0])
    assert record["steps"] == 15
    assert 0 <= record["best_norm_score"] <= 1
    report = (out / "report.md").read_text()
    assert "progression %" in report
    assert figure in report
    assert "quoted" in report
    assert "rule-based test double, not a language model" in report


@pytest.mark.parametrize(("env", "preset"), [("crafter", "agentkit"), ("nethack:challenge", "ariadne")])
def test_the_agent_plays_both_worlds_offline(env, preset, tmp_path):
    result = subprocess.run([ARIADNE, "play", "--env", env, "--preset", preset, "--max-steps", "4", "--run-dir", str(tmp_path), "--json"],
                            capture_output=True, text=True, timeout=600, env={k: v for k, v in os.environ.items() if k != "ARIADNE_PRESET"})
    assert result.returncode == 0, result.stderr[-3000:]
    summary = json.loads(result.stdout.strip().splitlines()[-1])
    assert summary["steps"] == 4
    assert summary["preset"] == preset
    if preset == "agentkit":  # every declared thought node answered, every step (temporary ones only when added)
        nodes = ("observe", "action_result", "reflect", "challenge", "gate", "plan_summary", "learn", "unknowns", "act")
        assert all(sum(summary["replies_by_node"].get(f"thoughts.{n}", {}).values()) >= 4 for n in nodes)


def test_the_memory_files_places_and_the_ways_between_them_in_grid_worlds():
    from ariadnegraph.memory import WorldMemory
    from ariadnegraph.memory.spatial import current_location, shortest_path
    from ariadnegraph.nodes.memory_update import place_facts

    memory = WorldMemory()
    first = {"env": "crafter", "location": "region 4-4", "last_action": None}
    assert place_facts(memory, first) == [("player", "in", "region 4-4")]
    memory.observe(0, "start", place_facts(memory, first))
    moved = {"env": "crafter", "location": "region 3-4", "last_action": "move left"}
    assert ("region 3-4", "west of", "region 4-4") in place_facts(memory, moved)
    memory.observe(1, "moved", place_facts(memory, moved))
    assert current_location(memory.current()) == "region 3-4"
    assert shortest_path(memory.current(), "region 3-4", "region 4-4") == [("east", "region 4-4")]
    down = {"env": "nethack:challenge", "location": "dungeon level 2", "last_action": "down"}
    memory.observe(2, "below", [("player", "in", "dungeon level 1")])
    assert ("dungeon level 2", "down of", "dungeon level 1") in place_facts(memory, down)
    assert place_facts(memory, {"env": "cooking:1", "location": "kitchen", "last_action": "go west"}) == []  # extraction's job there
    memory.close()
