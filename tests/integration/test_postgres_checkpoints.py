"""Checkpoints in PostgreSQL (``--checkpointer postgres://...``): a play killed mid-episode and resumed
gives the same result as one played on SQLite; run metadata stays in the run directory; a run that keeps
its checkpoints in PostgreSQL refuses to continue without it, in one line; an unreachable database is
refused before anything is written."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from tests.servers import free_port

ARIADNE = str(Path(sys.executable).parent / "ariadne")
pytestmark = pytest.mark.slow
ARGS = ["--env", "cooking:2", "--seed", "4", "--max-steps", "30", "--json"]


def ariadne(*args: str, env: dict | None = None) -> subprocess.CompletedProcess:
    return subprocess.run([ARIADNE, *args], capture_output=True, text=True, timeout=600, env={**os.environ, **(env or {})})


def last_json(result: subprocess.CompletedProcess) -> dict:
    assert result.returncode == 0, result.stderr[-2000:]
    return json.loads(result.stdout.strip().splitlines()[-1])


def trajectory(run: Path) -> list[tuple]:
    return [(r["step"], r["action"], r["observation"]) for r in map(json.loads, (run / "trajectory.jsonl").read_text().splitlines())]


def test_a_play_killed_and_resumed_on_postgres_matches_sqlite(tmp_path: Path, postgres_url: str) -> None:
    reference = last_json(ariadne("play", *ARGS, "--run-dir", str(tmp_path / "sqlite"), "--run-id", "same"))
    killed = tmp_path / "postgres"
    process = subprocess.Popen([ARIADNE, "play", *ARGS, "--run-dir", str(killed), "--run-id", "same", "--checkpointer", postgres_url],
                               stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, start_new_session=True)
    deadline = time.time() + 300
    while time.time() < deadline:
        path = killed / "same" / "trajectory.jsonl"
        if path.is_file() and path.read_text().count("\n") >= 8:
            break
        assert process.poll() is None, "play ended before it could be killed"
        time.sleep(0.05)
    os.killpg(process.pid, signal.SIGKILL)
    process.wait()
    meta = json.loads((killed / "same" / "run.json").read_text())
    assert meta["checkpoints"] == {"store": "postgres", "url": postgres_url} and meta["thread_id"].startswith("same-")
    assert not (killed / "same" / "checkpoints.sqlite").exists()  # the checkpoints are in the database
    refused = ariadne("play", "--resume", "same", "--run-dir", str(killed))
    assert refused.returncode == 2 and refused.stderr.count("\n") == 1 and "keeps its checkpoints in PostgreSQL" in refused.stderr
    resumed = last_json(ariadne("play", "--resume", "same", "--run-dir", str(killed), "--json", env={"ARIADNE_CHECKPOINTER": postgres_url}))
    for key in ("score", "max_score", "won", "steps"):
        assert resumed[key] == reference[key], key
    assert trajectory(killed / "same") == trajectory(tmp_path / "sqlite" / "same")
    report = ariadne("report", "same", "--run-dir", str(killed), env={"ARIADNE_CHECKPOINTER": postgres_url})
    assert report.returncode == 0, report.stderr


def test_an_unreachable_postgres_is_refused_before_any_write(tmp_path: Path) -> None:
    url = f"postgresql://postgres@127.0.0.1:{free_port()}/postgres"
    refused = ariadne("play", "--env", "cooking:1", "--run-dir", str(tmp_path), "--checkpointer", url)
    assert refused.returncode == 2 and refused.stderr.count("\n") == 1 and "cannot be used" in refused.stderr
    assert not tmp_path.exists() or not list(tmp_path.iterdir())
    bad = ariadne("play", "--env", "cooking:1", "--run-dir", str(tmp_path), "--checkpointer", "mysql://x")
    assert bad.returncode == 2 and "takes sqlite or a postgres://" in bad.stderr
