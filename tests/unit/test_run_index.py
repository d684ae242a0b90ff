"""Finding runs: `last`, a unique prefix, the list of a run directory (runs.find_run, runs.run_infos), and the one
run directory setting (config.run_dir) that every command and the agent's context read."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from ariadnegraph.agent.context import AgentContext
from ariadnegraph.config import ConfigError, run_dir
from ariadnegraph.runs import AmbiguousRun, RunNotFound, find_run, run_infos


def make_run(root: Path, run_id: str, when: float, *, env: str = "cooking:1", result: dict | None = None, steps: int = 0) -> Path:
    path = root / run_id
    path.mkdir(parents=True)
    meta = {"run_id": run_id, "env": env, "seed": 1, "max_steps": 5, "context": {"model": "scripted", "preset": "react"}}
    if result is not None:
        meta["result"] = result
    (path / "run.json").write_text(json.dumps(meta))
    lines = [{"step": k, "action": None, "observation": "x", "trail": "t", "score": float(k), "max_score": 4.0} for k in range(steps + 1)]
    (path / "trajectory.jsonl").write_text("".join(json.dumps(line) + "\n" for line in lines))
    for name in ("run.json", "trajectory.jsonl"):
        os.utime(path / name, (when, when))
    return path


@pytest.fixture
def runs(tmp_path):
    make_run(tmp_path, "20261125-cooking-aaa", 1000, result={"won": True, "steps": 7, "score": 4.0, "max_score": 4.0})
    make_run(tmp_path, "20261125-cooking-abb", 3000, steps=3)  # the latest: unfinished
    make_run(tmp_path, "20261126-treasure-c", 2000, env="treasure:1", result={"won": False, "steps": 5, "score": 0, "max_score": 1})
    return tmp_path


def test_last_is_the_run_written_last_and_a_unique_prefix_names_its_run(runs):
    assert find_run(runs, "last") == "20261125-cooking-abb"
    assert find_run(runs, "20261126") == "20261126-treasure-c"
    assert find_run(runs, "20261125-cooking-aa") == "20261125-cooking-aaa"
    assert find_run(runs, "20261125-cooking-aaa") == "20261125-cooking-aaa"  # an exact id


def test_an_ambiguous_or_unknown_prefix_is_one_clear_error(runs):
    with pytest.raises(AmbiguousRun, match="'20261125-cooking-a' is ambiguous .* 2 runs start with it"):
        find_run(runs, "20261125-cooking-a")
    with pytest.raises(RunNotFound, match="no run 'zzz'"):
        find_run(runs, "zzz")
    with pytest.raises(RunNotFound, match="no runs in"):
        find_run(runs / "empty", "last")
    with pytest.raises(RunNotFound):
        find_run(runs, "../" + runs.name)  # a prefix is never a path


def test_the_list_holds_game_preset_model_result_and_steps_oldest_first(runs):
    infos = run_infos(runs)
    assert [i.run_id for i in infos] == ["20261125-cooking-aaa", "20261126-treasure-c", "20261125-cooking-abb"]
    assert [(i.env, i.preset, i.model, i.result, i.steps) for i in infos] == [
        ("cooking:1", "react", "scripted", "won", 7), ("treasure:1", "react", "scripted", "not won", 5),
        ("cooking:1", "react", "scripted", "unfinished", 3)]
    assert infos[2].score == 3.0
    assert infos[2].max_score == 4.0


def test_a_damaged_run_is_listed_as_damaged(runs):
    (runs / "20261126-treasure-c" / "run.json").write_text("{not json")
    damaged = {i.run_id: i for i in run_infos(runs)}["20261126-treasure-c"]
    assert damaged.result == "damaged"
    assert "run.json is damaged" in (damaged.problem or "")


def test_the_run_directory_is_the_flag_then_the_variable_then_runs(tmp_path, monkeypatch):
    monkeypatch.delenv("ARIADNE_RUN_DIR", raising=False)
    assert run_dir() == Path("runs")
    assert AgentContext().run_dir == "runs"
    monkeypatch.setenv("ARIADNE_RUN_DIR", str(tmp_path / "elsewhere"))
    assert run_dir() == tmp_path / "elsewhere"
    assert AgentContext().run_dir == str(tmp_path / "elsewhere")
    assert run_dir(tmp_path / "given") == tmp_path / "given"
    assert AgentContext(run_dir=str(tmp_path / "given")).run_dir == str(tmp_path / "given")
    (tmp_path / "file").write_text("")
    with pytest.raises(ConfigError, match="is a file"):
        run_dir(tmp_path / "file")
