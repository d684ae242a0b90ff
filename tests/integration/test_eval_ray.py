"""`ariadne eval --backend ray`: episodes as Ray tasks on a local Ray give the records the local process
pool gives (wall times aside), and a Ray sweep killed half-way, run again, plays only what is missing."""

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

ARIADNE = str(Path(sys.executable).parent / "ariadne")
SMALL = ["eval", "stma-cooking", "--preset", "ariadne", "--preset", "react", "--model", "scripted", "--workers", "2", "--levels", "1",
         "--games", "2"]
pytestmark = pytest.mark.slow


def lines(path: Path) -> list[dict]:
    return [json.loads(line) for line in path.read_text().splitlines()]


def comparable(record: dict) -> dict:
    return {k: v for k, v in record.items() if k not in ("wall_seconds",)}


def eval_cli(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run([ARIADNE, *SMALL, *args], capture_output=True, text=True, timeout=900, env=os.environ.copy())


def test_ray_records_match_the_local_pool(tmp_path: Path) -> None:
    local = eval_cli("--out", str(tmp_path / "local"))
    assert local.returncode == 0, local.stderr[-2000:]
    on_ray = eval_cli("--out", str(tmp_path / "ray"), "--backend", "ray")
    assert on_ray.returncode == 0, on_ray.stderr[-2000:]
    assert sum(line.startswith("[") for line in on_ray.stderr.splitlines()) == 4  # progress as episodes finish
    by_key = {r["key"]: comparable(r) for r in lines(tmp_path / "local" / "episodes.jsonl")}
    on_ray_by_key = {r["key"]: comparable(r) for r in lines(tmp_path / "ray" / "episodes.jsonl")}
    assert len(by_key) == 4 and on_ray_by_key == by_key
    assert "on Ray" in (tmp_path / "ray" / "report.md").read_text()


def test_a_killed_ray_sweep_finishes_only_what_is_missing(tmp_path: Path) -> None:
    out = tmp_path / "killed"
    command = [ARIADNE, *SMALL, "--out", str(out), "--backend", "ray"]
    process = subprocess.Popen(command, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True, env=os.environ.copy(),
                               start_new_session=True)
    deadline = time.monotonic() + 600
    try:
        for line in process.stderr:  # type: ignore[union-attr]
            if line.startswith("[1/4]"):
                break
            assert time.monotonic() < deadline, "no episode finished"
        os.killpg(process.pid, signal.SIGKILL)
    finally:
        process.kill()
        process.wait()
    before = {r["key"]: r for r in lines(out / "episodes.jsonl")}
    assert 1 <= len(before) < 4
    result = subprocess.run(command, capture_output=True, text=True, timeout=900, env=os.environ.copy())
    assert result.returncode == 0, result.stderr[-2000:]
    assert f"{len(before)} of 4 episodes already finished" in result.stderr
    after = lines(out / "episodes.jsonl")
    assert len(after) == len({r["key"] for r in after}) == 4  # every episode once...
    assert all(before[k] == r for r in after for k in [r["key"]] if k in before)  # ...and the finished ones untouched
    assert sum(line.startswith("[") for line in result.stderr.splitlines()) == 4 - len(before)


@pytest.fixture(autouse=True)
def _no_ray_left_behind():
    yield
    for proc in psutil.process_iter(["name", "cmdline"]):
        try:
            text = " ".join(proc.info["cmdline"] or [])
            if "ray" in (proc.info["name"] or "") and ("gcs_server" in text or "raylet" in text) and "ray/core" in text:
                proc.kill()
        except (psutil.NoSuchProcess, psutil.AccessDenied):
            pass
