"""`ariadne eval --backend ray`: episodes as Ray tasks on a local Ray give the records the local process
pool gives (wall times aside), and a Ray sweep killed half-way, run again, plays only what is missing.

Each test's Ray has its own temp dir (``RAY_TMPDIR``): its workers' logs there show which tasks Ray ran,
and only that instance's processes are stopped afterwards (never another Ray on the machine)."""

from __future__ import annotations

import json
import os
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
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


def ray_tasks_run(ray_tmpdir: Path, name: str = "_worker") -> int:
    """Tasks named ``name`` the Ray sessions under ``ray_tmpdir`` ran: a Ray worker writes
    ':task_name:NAME' to its stdout log before each task it runs (what Ray's log monitor reads)."""
    from ray._private.ray_constants import LOG_PREFIX_TASK_NAME

    logs = {path.resolve() for path in ray_tmpdir.glob("ray/session_*/logs/worker-*.out")}  # session_latest links to one
    return sum(line == f"{LOG_PREFIX_TASK_NAME}{name}" for path in logs for line in path.read_text(errors="replace").splitlines())


def eval_cli(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run([ARIADNE, *SMALL, *args], capture_output=True, text=True, timeout=900, env=os.environ.copy())


def test_ray_records_match_the_local_pool(tmp_path: Path, ray_tmpdir: Path) -> None:
    local = eval_cli("--out", str(tmp_path / "local"))
    assert local.returncode == 0, local.stderr[-2000:]
    assert ray_tasks_run(ray_tmpdir) == 0  # the process pool starts no Ray
    on_ray = eval_cli("--out", str(tmp_path / "ray"), "--backend", "ray")
    assert on_ray.returncode == 0, on_ray.stderr[-2000:]
    assert ray_tasks_run(ray_tmpdir) == 4  # every episode ran as a Ray task (not in a process pool)
    assert sum(line.startswith("[") for line in on_ray.stderr.splitlines()) == 4  # progress as episodes finish
    by_key = {r["key"]: comparable(r) for r in lines(tmp_path / "local" / "episodes.jsonl")}
    on_ray_by_key = {r["key"]: comparable(r) for r in lines(tmp_path / "ray" / "episodes.jsonl")}
    assert len(by_key) == 4
    assert on_ray_by_key == by_key
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
def ray_tmpdir(monkeypatch: pytest.MonkeyPatch) -> Iterator[Path]:
    """A temp dir of the test's own for the Ray its evals start (short: Ray's socket paths must fit in 107
    bytes); afterwards, the processes of that Ray (and their children) are killed, no other, and it is removed."""
    root = Path(tempfile.mkdtemp(prefix="ariadne-ray-", dir="/tmp"))
    monkeypatch.setenv("RAY_TMPDIR", str(root))
    try:
        yield root
    finally:
        ours = []
        for proc in psutil.process_iter(["cmdline"]):
            try:
                if str(root) in " ".join(proc.info["cmdline"] or []):
                    ours += [proc, *proc.children(recursive=True)]  # workers are renamed (ray::...): found as children
            except (psutil.NoSuchProcess, psutil.AccessDenied):
                pass
        for proc in ours:
            try:
                proc.kill()
            except (psutil.NoSuchProcess, psutil.AccessDenied):
                pass
        psutil.wait_procs(ours, timeout=30)
        shutil.rmtree(root, ignore_errors=True)
