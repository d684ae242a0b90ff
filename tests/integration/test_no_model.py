"""``--model none``: the controller alone plays, asks no model, and says so on every surface; a preset whose commands a
model must choose refuses it before any run folder exists."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from ariadnegraph.agent.context import AgentContext
from ariadnegraph.runs import RunDir

ARIADNE = str(Path(sys.executable).parent / "ariadne")
LABEL = "none (no language model)"


def ariadne(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run([ARIADNE, *args], capture_output=True, text=True, timeout=600, env=os.environ.copy())


@pytest.fixture(scope="module")
def played(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, dict]:
    runs = tmp_path_factory.mktemp("runs")
    result = ariadne("play", "--env", "cooking:1", "--seed", "1", "--max-steps", "30", "--model", "none",
                     "--run-dir", str(runs), "--json")
    assert result.returncode == 0, result.stderr[-2000:]
    return runs, json.loads(result.stdout.strip().splitlines()[-1])


def test_none_plays_with_no_model_call_and_its_choices_are_the_controllers(played):
    runs, summary = played
    assert summary["model"] == "none"
    assert summary["llm_calls"] == summary["prompt_tokens"] == summary["completion_tokens"] == 0
    assert summary["won"]  # (cooking:1 seed 1: list following and the way forward alone win it)
    run = RunDir.open(runs, summary["run_id"])
    calls = run.path / "calls.jsonl"
    assert not calls.exists() or not [line for line in calls.read_text().splitlines() if '"node"' in line]
    choices = [c for step in run.steps() for c in (step.get("decided") or {}).get("choices", [])]
    assert choices
    assert all(c["by"] != "model" for c in choices)
    assert all(c["chosen"] == c["candidates"][0]["command"] and not c["override"] for c in choices)


def test_none_is_labelled_on_every_surface(played, tmp_path):
    runs, summary = played
    run_id = summary["run_id"]
    shown = ariadne("play", "--env", "cooking:1", "--seed", "1", "--max-steps", "2", "--model", "none",
                    "--run-dir", str(tmp_path))
    assert f"ariadne, {LABEL})" in shown.stdout
    assert LABEL in ariadne("runs", "list", "--run-dir", str(runs)).stdout
    assert LABEL in ariadne("runs", "show", run_id, "--run-dir", str(runs)).stdout
    assert LABEL in ariadne("diagnose", run_id, "--run-dir", str(runs)).stdout
    assert LABEL in ariadne("compare", run_id, run_id, "--run-dir", str(runs)).stdout
    page = tmp_path / "report.html"
    assert ariadne("report", run_id, "--run-dir", str(runs), "--out", str(page)).returncode == 0
    assert LABEL in page.read_text()
    meta = json.loads((runs / run_id / "run.json").read_text())
    assert meta["context"]["model"] == "none"


def test_none_is_answered_by_no_model_and_a_question_about_its_run_says_so(played):
    runs, summary = played
    asked = ariadne("ask", summary["run_id"], "Where is the knife?", "--run-dir", str(runs))
    assert asked.returncode == 2
    assert asked.stderr.strip().splitlines() == [
        "ariadne: error: a question about a run is answered by a language model, and model 'none' is none (a run "
        "played with none names no model to answer with): give --model"
    ]


@pytest.mark.parametrize("preset", ["react", "ariadne_full", "stma", "agentkit"])
def test_a_preset_a_model_must_choose_for_refuses_none_before_a_run_exists(preset, tmp_path):
    result = ariadne("play", "--env", "cooking:1", "--model", "none", "--preset", preset, "--run-dir", str(tmp_path / "runs"))
    assert result.returncode == 2
    assert result.stderr.strip().splitlines() == [
        f"ariadne: error: preset '{preset}' needs a language model to choose its commands: model 'none' plays the "
        "presets whose controller proposes them (ariadne)"
    ]
    assert not (tmp_path / "runs").exists()


def test_none_takes_no_role_model_beside_it_and_skips_the_roles_with_no_choice_of_code():
    with pytest.raises(ValueError, match="planner_model cannot be set beside it"):
        AgentContext(model="none", planner_model="scripted")
    switches = AgentContext(model="none", preset="ariadne", switch_overrides={"precheck": True, "qa_turns": 3}).switches
    assert (switches.precheck, switches.qa_turns, switches.summarizer, switches.knowledge_graph) == (False, 0, False, False)


def test_an_eval_table_says_what_none_measures(tmp_path):
    result = ariadne("eval", "stma-cooking", "--preset", "ariadne", "--model", "none", "--levels", "1",
                     "--games", "1", "--max-steps", "8", "--out", str(tmp_path / "eval"))
    assert result.returncode == 0, result.stderr[-2000:]
    report = next((tmp_path / "eval").rglob("*.md")).read_text()
    assert f"Model {LABEL}: its rows are the controller alone" in report
