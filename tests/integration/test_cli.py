"""The `ariadne` command: real subprocesses, offline, every user error is one line and writes nothing."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

ARIADNE = str(Path(sys.executable).parent / "ariadne")


def run(*args: str, cwd: Path | None = None) -> subprocess.CompletedProcess:
    return subprocess.run([ARIADNE, *args], capture_output=True, text=True, timeout=300, cwd=cwd, env=os.environ.copy())


def assert_one_line_error(result: subprocess.CompletedProcess, fragment: str) -> None:
    assert result.returncode == 2, result.stderr
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("ariadne: error:"), result.stderr
    assert fragment in lines[0]


@pytest.mark.arigraph_games
def test_games_list_names_every_game_and_generator():
    result = run("games", "list")
    assert result.returncode == 0, result.stderr
    specs = [line.split()[0] for line in result.stdout.splitlines()]
    for spec in ("arigraph:hunt", "arigraph:hunt_hard", "arigraph:cook", "arigraph:cook_hard", "arigraph:cook_hardest",
                 "arigraph:clean", "arigraph:cook_1_9_2", "arigraph:cook_rl_baseline"):
        assert spec in specs
    joined = " ".join(specs)
    for prefix in ("cooking:", "treasure:", "coin:", "file:"):
        assert prefix in joined
    assert sum(s.startswith("scienceworld:") for s in specs) == 30
    assert "scienceworld:boil" in specs


@pytest.mark.parametrize(
    ("spec", "fragment"),
    [("cooking:9", "level"), ("file:/nope.z8", "/nope.z8"), ("nosuch:x", "nosuch"),
     pytest.param("arigraph:nope", "nope", marks=pytest.mark.arigraph_games)],
)
def test_play_with_a_bad_env_fails_in_one_line_and_writes_nothing(tmp_path, spec, fragment):
    result = run("play", "--env", spec, "--run-dir", str(tmp_path / "runs"))
    assert_one_line_error(result, fragment)
    assert not (tmp_path / "runs").exists() or not any((tmp_path / "runs").iterdir())


def test_games_make_prints_the_cached_game_path(tmp_path):
    result = run("games", "make", "cooking", "--level", "1", "--seed", "11", "--out", str(tmp_path))
    assert result.returncode == 0, result.stderr
    path = Path(result.stdout.strip().splitlines()[-1])
    assert path.suffix == ".z8" and path.is_file() and path.parent == tmp_path
    assert_one_line_error(run("games", "make", "cooking", "--level", "9"), "level")


def test_games_fetch_offline_fails_clearly_and_changes_nothing(tmp_path):
    result = run("games", "fetch", "arigraph", "--dest", str(tmp_path / "games"))
    assert_one_line_error(result, "cannot download arigraph games")
    assert not (tmp_path / "games").exists()
