"""`ariadne runs show RUN --learned` on an AgentKit run: the skill each step was played under is in its trajectory
line, and the knowledge base and skills the run ended with are read from its last checkpoint."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from ariadnegraph.agent.context import AgentContext
from ariadnegraph.cli import main
from ariadnegraph.play import Episode, play

pytestmark = pytest.mark.slow


def test_an_agentkit_run_shows_its_actions_per_skill_and_what_it_learned(tmp_path: Path, capsys) -> None:
    play(Episode("crafter", seed=38, max_steps=4), context=AgentContext(preset="agentkit", run_dir=str(tmp_path)), run_id="ak")
    lines = [json.loads(line) for line in (tmp_path / "ak" / "trajectory.jsonl").read_text().splitlines()][1:]
    assert len(lines) == 4
    assert all("skill" in line["decided"] for line in lines)
    before = {p.name: p.read_bytes() for p in (tmp_path / "ak").iterdir() if p.is_file()}
    assert main(["runs", "show", "ak", "--run-dir", str(tmp_path), "--learned"]) == 0
    shown = capsys.readouterr().out
    assert "actions per skill" in shown
    assert "knowledge base (" in shown
    assert "skill library (" in shown
    assert {p.name: p.read_bytes() for p in (tmp_path / "ak").iterdir() if p.is_file()} == before  # read on a copy
    play(Episode("cooking:1", seed=7, max_steps=2), context=AgentContext(preset="react", run_dir=str(tmp_path)), run_id="rx")
    assert main(["runs", "show", "rx", "--run-dir", str(tmp_path), "--learned"]) == 2
    assert "played no thought graph" in capsys.readouterr().err
