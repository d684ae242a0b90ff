"""Checkpoints in PostgreSQL (``--checkpointer postgres://...``): a play killed mid-episode and resumed
gives the same result as one played on SQLite; run metadata stays in the run directory; a run that keeps
its checkpoints in PostgreSQL refuses to continue without it, in one line; an unreachable database is
refused before anything is written; a run resumed or read against another (empty) database is refused in
one line, its files untouched."""

from __future__ import annotations

import json
import os
import secrets
import signal
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from urllib.parse import urlsplit

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
    assert meta["checkpoints"] == {"store": "postgres", "url": postgres_url}
    assert meta["thread_id"].startswith("same-")
    assert not (killed / "same" / "checkpoints.sqlite").exists()  # the checkpoints are in the database
    refused = ariadne("play", "--resume", "same", "--run-dir", str(killed))
    assert refused.returncode == 2
    assert refused.stderr.count("\n") == 1
    assert "keeps its checkpoints in PostgreSQL" in refused.stderr
    resumed = last_json(ariadne("play", "--resume", "same", "--run-dir", str(killed), "--json", env={"ARIADNE_CHECKPOINTER": postgres_url}))
    for key in ("score", "max_score", "won", "steps"):
        assert resumed[key] == reference[key], key
    assert trajectory(killed / "same") == trajectory(tmp_path / "sqlite" / "same")
    report = ariadne("report", "same", "--run-dir", str(killed), env={"ARIADNE_CHECKPOINTER": postgres_url})
    assert report.returncode == 0, report.stderr


def test_an_unreachable_postgres_is_refused_before_any_write(tmp_path: Path) -> None:
    url = f"postgresql://postgres@127.0.0.1:{free_port()}/postgres"
    refused = ariadne("play", "--env", "cooking:1", "--run-dir", str(tmp_path), "--checkpointer", url)
    assert refused.returncode == 2
    assert refused.stderr.count("\n") == 1
    assert "cannot be used" in refused.stderr
    assert not tmp_path.exists() or not list(tmp_path.iterdir())
    bad = ariadne("play", "--env", "cooking:1", "--run-dir", str(tmp_path), "--checkpointer", "mysql://x")
    assert bad.returncode == 2
    assert "takes sqlite or a postgres://" in bad.stderr


@pytest.fixture
def empty_database(postgres_url: str) -> Iterator[str]:
    """A second, empty database on the same server (dropped afterwards): the wrong one for a run."""
    import psycopg

    name = f"ariadne_empty_{secrets.token_hex(4)}"
    with psycopg.connect(postgres_url, autocommit=True) as connection:
        connection.execute(f'CREATE DATABASE "{name}"')
    try:
        yield urlsplit(postgres_url)._replace(path=f"/{name}").geturl()
    finally:
        with psycopg.connect(postgres_url, autocommit=True) as connection:
            connection.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')


def files(run: Path) -> dict[str, bytes]:
    return {str(p.relative_to(run)): p.read_bytes() for p in sorted(run.rglob("*")) if p.is_file()}


def test_a_run_resumed_against_another_database_is_refused_untouched(tmp_path: Path, postgres_url: str, empty_database: str) -> None:
    played = last_json(ariadne("play", "--env", "cooking:1", "--seed", "1", "--max-steps", "6", "--run-dir", str(tmp_path), "--run-id", "here",
                               "--json", "--checkpointer", postgres_url))
    assert played["steps"] >= 2
    before = files(tmp_path / "here")
    for command in (["play", "--resume", "here"], ["report", "here"], ["ask", "here", "Where am I?"]):
        refused = ariadne(*command, "--run-dir", str(tmp_path), env={"ARIADNE_CHECKPOINTER": empty_database})
        assert refused.returncode == 2, (command, refused.stderr[-2000:])
        assert refused.stderr.count("\n") == 1, refused.stderr
        assert refused.stderr.startswith("ariadne: error:"), refused.stderr
        assert "holds no checkpoint" in refused.stderr
        assert "is ARIADNE_CHECKPOINTER the database this run was played on" in refused.stderr
        assert files(tmp_path / "here") == before, command  # nothing replayed over the run
    resumed = last_json(ariadne("play", "--resume", "here", "--run-dir", str(tmp_path), "--json", env={"ARIADNE_CHECKPOINTER": postgres_url}))
    assert resumed["steps"] == played["steps"]  # the right database still continues it


def test_a_fork_not_yet_played_reads_and_lost_newest_checkpoints_are_named(
    tmp_path: Path, postgres_url: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """As in the run's SQLite file (test_lost_checkpoints.py, test_forks.py): a fork not yet played, whose checkpoint is
    steps behind the recorded ones, reads, the checkpoints of the history it left reaching them; with those gone (a
    database restored from an older backup), the recorded steps past the latest checkpoint are named and resume goes
    back over them only with --rewind."""
    from ariadnegraph.agent.checkpoints import checkpoint_thread, checkpointer
    from ariadnegraph.graphs.agent import build_agent_graph
    from ariadnegraph.runs import RunDir

    env = {"ARIADNE_CHECKPOINTER": postgres_url}
    last_json(ariadne("play", "--env", "cooking:1", "--seed", "1", "--max-steps", "8", "--run-dir", str(tmp_path), "--run-id", "f",
                      "--json", "--checkpointer", postgres_url))
    run = RunDir.open(tmp_path, "f")
    thread = checkpoint_thread(run.meta())
    config = {"configurable": {"thread_id": thread}}
    monkeypatch.setenv("ARIADNE_CHECKPOINTER", postgres_url)
    with checkpointer(run) as saver:
        graph = build_agent_graph().compile(checkpointer=saver)
        base = next(s for s in graph.get_state_history(config) if s.next == ("environment",) and s.values.get("step") == 2)
        graph.update_state(base.config, {"command": "inventory"})
    assert ariadne("report", "f", "--run-dir", str(tmp_path), env=env).returncode == 0
    import psycopg

    with psycopg.connect(postgres_url, autocommit=True) as connection:  # every checkpoint after the fork's base gone
        connection.execute("DELETE FROM checkpoints WHERE thread_id = %s AND checkpoint_id > %s",
                           (thread, base.config["configurable"]["checkpoint_id"]))
    before = files(tmp_path / "f")
    for command in (["play", "--resume", "f"], ["report", "f"]):
        refused = ariadne(*command, "--run-dir", str(tmp_path), env=env)
        assert refused.returncode == 2, (command, refused.stderr[-2000:])
        assert refused.stderr.count("\n") == 1, refused.stderr
        assert "steps 3..8 recorded in trajectory.jsonl are past the latest checkpoint (step 2)" in refused.stderr
        assert "the PostgreSQL checkpoints" in refused.stderr
        assert files(tmp_path / "f") == before, command
    resumed = last_json(ariadne("play", "--resume", "f", "--rewind", "--run-dir", str(tmp_path), "--json", env=env))
    assert resumed["steps"] == 8
    assert [step for step, _, _ in trajectory(tmp_path / "f")] == list(range(9))
