"""`ariadne play`, `--resume` and `ask` end to end with the scripted model, as real processes."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from ariadnegraph.memory import WorldMemory
from ariadnegraph.models import OUTCOMES
from ariadnegraph.runs import RunDir

ARIADNE = str(Path(sys.executable).parent / "ariadne")
SUMMARY_FIELDS = {"run_id", "env", "preset", "model", "score", "max_score", "won", "steps", "llm_calls", "prompt_tokens", "completion_tokens"}


def ariadne(*args: str, timeout: float = 600) -> subprocess.CompletedProcess:
    return subprocess.run([ARIADNE, *args], capture_output=True, text=True, timeout=timeout, env=os.environ.copy())


def last_json(result: subprocess.CompletedProcess) -> dict:
    assert result.returncode == 0, result.stderr[-3000:]
    return json.loads(result.stdout.strip().splitlines()[-1])


def actions_of(run_dir: Path, run_id: str) -> list[str]:
    return [s["action"] for s in RunDir.open(run_dir, run_id).steps() if s["action"]]


def test_play_prints_progress_and_a_json_summary_and_saves_the_run(tmp_path):
    """With every role (ariadne_full): its plan printed, its memory's facts kept."""
    result = ariadne("play", "--env", "cooking:1", "--seed", "1", "--max-steps", "12", "--run-dir", str(tmp_path),
                     "--preset", "ariadne_full")
    assert result.returncode == 0, result.stderr[-3000:]
    assert "step   1" in result.stdout
    assert "plan:" in result.stdout
    assert "model calls" in result.stdout
    summary = last_json(ariadne("play", "--env", "cooking:1", "--seed", "1", "--max-steps", "12", "--run-dir", str(tmp_path), "--json",
                                "--preset", "ariadne_full"))
    assert SUMMARY_FIELDS <= summary.keys()
    assert summary["model"] == "scripted"
    assert summary["preset"] == "ariadne_full"
    assert summary["llm_calls"] > 0
    assert summary["prompt_tokens"] > 0
    run = RunDir.open(tmp_path, summary["run_id"])
    assert (run.path / "checkpoints.sqlite").is_file()
    assert [s["step"] for s in run.steps()] == list(range(summary["steps"] + 1))
    memory = WorldMemory.open(run.memory_path)
    assert sorted(memory.episodes) == list(range(summary["steps"] + 1))
    assert len(memory.kg) > 10
    # the local trace export: one line per model call, adding up to the summary's accounting, and one
    # verdict per structured reply, adding up to the summary's reply outcomes
    lines = [json.loads(line) for line in (run.path / "calls.jsonl").read_text().splitlines()]
    calls = [line for line in lines if "node" in line]
    verdicts = [line["reply"] for line in lines if "node" not in line]
    assert len(calls) == summary["llm_calls"]
    outcomes = sum(n for counts in summary["replies_by_node"].values() for k, n in counts.items() if k in OUTCOMES)
    assert len(verdicts) == outcomes > 0
    assert all(v["outcome"] in OUTCOMES and v["node"] and "issues" in v for v in verdicts)
    assert sum(c["usage"]["prompt_tokens"] for c in calls) == summary["prompt_tokens"]
    # each call is the agent node's that made it, also inside the monologue's subgraph (think, tools)
    assert {c["node"] for c in calls} == set(summary["replies_by_node"]) >= {"summarizer", "relation_retriever", "world_model_qa", "planner", "critic"}
    assert all(c["prompt"] and "reply" in c and c["latency_ms"] >= 0 for c in calls)


def test_killed_play_resumes_to_the_same_result_as_an_uninterrupted_run(tmp_path):
    args = ["--env", "cooking:2", "--seed", "4", "--max-steps", "30", "--json"]
    reference = last_json(ariadne("play", *args, "--run-dir", str(tmp_path / "reference")))
    killed_dir = tmp_path / "killed"
    process = subprocess.Popen([ARIADNE, "play", *args, "--run-dir", str(killed_dir)], stdout=subprocess.DEVNULL,
                               stderr=subprocess.DEVNULL, start_new_session=True)
    deadline = time.time() + 300
    trajectory = None
    while time.time() < deadline:
        found = list(killed_dir.glob("*/trajectory.jsonl"))
        if found and found[0].read_text().count("\n") >= 8:
            trajectory = found[0]
            break
        assert process.poll() is None, "play ended before it could be killed"
        time.sleep(0.05)
    assert trajectory is not None
    os.killpg(process.pid, signal.SIGKILL)  # the agent and its game process, mid-episode
    process.wait()
    run_id = trajectory.parent.name
    resumed = last_json(ariadne("play", "--resume", run_id, "--run-dir", str(killed_dir), "--json"))
    for key in ("score", "max_score", "won", "steps"):
        assert resumed[key] == reference[key], key
    assert actions_of(killed_dir, run_id) == actions_of(tmp_path / "reference", reference["run_id"])
    # resuming a finished run just reports it
    again = last_json(ariadne("play", "--resume", run_id, "--run-dir", str(killed_dir), "--json"))
    assert again["steps"] == reference["steps"]


def test_ask_answers_from_a_runs_memory(tmp_path):
    summary = last_json(ariadne("play", "--env", "cooking:1", "--seed", "2", "--max-steps", "8", "--run-dir", str(tmp_path), "--json"))
    result = ariadne("ask", summary["run_id"], "Which exits have I not explored?", "--run-dir", str(tmp_path))
    assert result.returncode == 0, result.stderr[-2000:]
    assert result.stdout.strip()


def test_resume_refuses_a_run_whose_game_no_longer_matches(tmp_path):
    args = ["--env", "cooking:1", "--seed", "3", "--max-steps", "40", "--run-dir", str(tmp_path), "--json"]
    process = subprocess.Popen([ARIADNE, "play", *args], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, start_new_session=True)
    deadline = time.time() + 300
    while time.time() < deadline:
        found = list(tmp_path.glob("*/trajectory.jsonl"))
        if found and found[0].read_text().count("\n") >= 4:
            break
        time.sleep(0.05)
    os.killpg(process.pid, signal.SIGKILL)
    process.wait()
    trajectory = found[0]
    lines = trajectory.read_text().splitlines()
    first = json.loads(lines[1])
    first["observation"] = "something the game never said"
    lines[1] = json.dumps(first)
    trajectory.write_text("\n".join(lines) + "\n")
    before = trajectory.read_text()
    result = ariadne("play", "--resume", trajectory.parent.name, "--run-dir", str(tmp_path))
    assert result.returncode == 2
    assert "different observation than recorded" in result.stderr
    assert len(result.stderr.strip().splitlines()) == 1
    assert trajectory.read_text() == before


@pytest.mark.parametrize(
    ("args", "fragment"),
    [
        (["play", "--env", "cooking:1", "--preset", "nope"], "unknown preset"),
        (["play", "--env", "cooking:1", "--model", "gpt-4o"], "names no provider"),
        (["play", "--env", "cooking:1", "--max-steps", "-2"], "argument --max-steps: must be 1 or more, got -2"),
        (["play", "--env", "cooking:1", "--max-steps", "100001"], "max steps must be an integer between 1 and 100,000"),
        (["play", "--resume", "no-such-run"], "no run 'no-such-run'"),
        (["ask", "no-such-run", "where?"], "no run 'no-such-run'"),
        (["play"], "needs --env"),
    ],
)
def test_bad_input_is_one_line_and_writes_nothing(tmp_path, args, fragment):
    result = ariadne(*args, "--run-dir", str(tmp_path / "runs"))
    assert result.returncode == 2, result.stdout + result.stderr
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1, result.stderr
    assert fragment in lines[0], result.stderr
    assert not (tmp_path / "runs").exists() or not any((tmp_path / "runs").iterdir())
