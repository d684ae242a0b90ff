"""`ariadne eval` end to end with the scripted model: outputs, determinism, and a kill half-way."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import psutil
import pytest

from ariadnegraph.evals.plan import EvalRequest
from ariadnegraph.evals.planning import plan_eval
from ariadnegraph.evals.records import read_records
from ariadnegraph.evals.runner import run_eval

ARIADNE = str(Path(sys.executable).parent / "ariadne")
SMALL = ["eval", "stma-cooking", "--preset", "ariadne", "--preset", "react", "--model", "scripted", "--workers", "2", "--levels", "1"]


def eval_cli(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run([ARIADNE, *SMALL, *args], capture_output=True, text=True, timeout=600, env=os.environ.copy())


def lines(path: Path) -> list[dict]:
    return [json.loads(line) for line in path.read_text().splitlines()]


def without_wall_time(record: dict) -> dict:
    return {k: v for k, v in record.items() if k != "wall_seconds"}


@pytest.mark.slow
def test_small_eval_writes_every_output_is_deterministic_and_skips_finished_episodes(tmp_path):
    out = tmp_path / "a"
    result = eval_cli("--games", "2", "--out", str(out))
    assert result.returncode == 0, result.stderr
    assert "4 of 4 episodes" in result.stdout
    assert sum(line.startswith("[") for line in result.stderr.splitlines()) == 4  # a line per finished episode
    records = lines(out / "episodes.jsonl")
    assert sorted((r["preset"], r["seed"]) for r in records) == [("ariadne", 1), ("ariadne", 2), ("react", 1), ("react", 2)]
    for r in records:
        assert r["won"]
        assert r["norm_score"] == 1.0
        assert r["cost_usd"] == 0.0
        assert r["llm_calls"] > 0
        assert r["curve"][-1] == r["score"]
        assert len(r["curve"]) == r["steps"] + 1
        assert (out / "runs" / r["run_id"] / "run.json").is_file()
        # memory fidelity: a point per step; the KG-less react baseline recalls nothing and holds nothing
        assert [p[0] for p in r["fidelity"]["curve"]] == list(range(r["steps"] + 1))
        if r["preset"] == "react":
            assert r["precision"] is None
            assert r["recall"] == 0.0
        else:
            assert r["precision"] >= 0.9
            assert r["recall"] >= 0.8
    csv_rows = (out / "results.csv").read_text().splitlines()
    assert csv_rows[0].startswith("suite,preset,model,group,episodes,norm_score")
    assert len(csv_rows) == 5
    table = (out / "table.md").read_text()
    assert "| **ariadne** (scripted) — ours | 100.0 | 100.0±0.0 |" in table
    assert "quoted, STMA table 1" in table
    assert "## Memory fidelity" in table
    assert "| react (scripted) | 2 | — | 0.00 |" in table
    for plot in ("score_vs_steps.png", "memory_fidelity.png"):
        assert (out / plot).read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    report = (out / "report.md").read_text()
    assert report.count("](data:image/png;base64,") == 2
    assert "episodes: 4 of 4 (complete)" in report
    assert table in report

    # Same plan, another directory, one in-process worker: identical records apart from wall time.
    plan = plan_eval(EvalRequest(suite="stma-cooking", presets=["ariadne", "react"], model="scripted", out=tmp_path / "b", groups=["1"], per_group=2))
    again = run_eval(plan, progress=False)
    first = read_records(out / "episodes.jsonl")
    assert [without_wall_time(r) for r in again] == [without_wall_time(first[r["key"]]) for r in again]

    # Re-running the finished eval plays nothing and rewrites the same table.
    rerun = eval_cli("--games", "2", "--out", str(out))
    assert rerun.returncode == 0, rerun.stderr
    assert "4 of 4 episodes already finished" in rerun.stderr
    assert len(lines(out / "episodes.jsonl")) == 4
    assert (out / "table.md").read_text().split("## Cost")[0] == table.split("## Cost")[0]


@pytest.mark.slow
def test_killed_eval_finishes_only_the_missing_episodes(tmp_path):
    out = tmp_path / "killed"
    command = [ARIADNE, *SMALL, "--games", "2", "--out", str(out)]
    process = subprocess.Popen(command, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True, env=os.environ.copy())
    deadline = time.monotonic() + 300
    workers: list[psutil.Process] = []
    try:
        for line in process.stderr:  # type: ignore[union-attr]
            workers = workers or psutil.Process(process.pid).children(recursive=True)
            if line.startswith("[1/4]"):
                workers = psutil.Process(process.pid).children(recursive=True)
                break
            assert time.monotonic() < deadline, "no episode finished"
        os.kill(process.pid, signal.SIGKILL)  # the parent only: its workers must not outlive it
    finally:
        process.kill()
        process.wait()
    gone, alive = psutil.wait_procs(workers, timeout=10)
    assert not alive, f"workers outlived the killed eval: {alive}"
    before = [r["key"] for r in lines(out / "episodes.jsonl")]
    assert 1 <= len(before) < 4

    result = subprocess.run(command, capture_output=True, text=True, timeout=600, env=os.environ.copy())
    assert result.returncode == 0, result.stderr
    assert f"{len(before)} of 4 episodes already finished" in result.stderr
    after = [r["key"] for r in lines(out / "episodes.jsonl")]
    assert after[: len(before)] == before  # finished episodes were not played again...
    assert len(after) == len(set(after)) == 4  # ...and every episode is done exactly once
    assert sum(line.startswith("[") for line in result.stderr.splitlines()) == 4 - len(before)
    assert "episodes: 4 of 4 (complete)" in (out / "report.md").read_text()
