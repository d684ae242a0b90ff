"""Memory vectors on a Chroma server (``ARIADNE_CHROMA_URL``): a test starts ``chroma run`` on a free
loopback port, plays a run against it and reopens it; the server going away mid-episode stops the
episode with one line, and once the server is back the run resumes to the result of an uninterrupted
run with local vectors. A server that never answers is not left running by the helper that started it."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from pathlib import Path

import pytest

from tests.servers import ChromaServer

ARIADNE = str(Path(sys.executable).parent / "ariadne")
pytestmark = pytest.mark.slow
ARGS = ["--env", "cooking:2", "--seed", "4", "--max-steps", "30", "--json"]


def ariadne(*args: str, env: dict | None = None) -> subprocess.CompletedProcess:
    return subprocess.run([ARIADNE, *args], capture_output=True, text=True, timeout=600, env={**os.environ, **(env or {})})


def last_json(result: subprocess.CompletedProcess) -> dict:
    assert result.returncode == 0, result.stderr[-2000:]
    return json.loads(result.stdout.strip().splitlines()[-1])


def steps(run: Path) -> list[tuple]:
    return [(r["step"], r["action"], r["observation"]) for r in map(json.loads, (run / "trajectory.jsonl").read_text().splitlines())]


def test_a_run_plays_and_reopens_against_a_chroma_server(tmp_path: Path) -> None:
    with ChromaServer(tmp_path / "chroma-data") as server:
        env = {"ARIADNE_CHROMA_URL": server.url}
        played = last_json(ariadne("play", "--env", "cooking:1", "--seed", "1", "--max-steps", "8", "--run-dir", str(tmp_path / "runs"),
                                   "--run-id", "served", "--json", env=env))
        assert not (tmp_path / "runs" / "served" / "memory" / "chroma").exists()  # the vectors are on the server
        answer = ariadne("ask", "served", "Where is the cookbook?", "--run-dir", str(tmp_path / "runs"), env=env)
        assert answer.returncode == 0, answer.stderr
        assert answer.stdout.strip(), answer.stderr
        from ariadnegraph.agent.integrity import checked_copies
        from ariadnegraph.memory import WorldMemory
        from ariadnegraph.runs import RunDir

        with checked_copies(tmp_path / "runs", ["served"]) as copies:
            with WorldMemory.open(RunDir.open(copies, "served").memory_path, chroma_url=server.url) as memory:
                assert sorted(memory.episodes) == list(range(played["steps"] + 1))
                stored = memory._vectors.load("episodes") if memory._vectors else {}
                assert len(stored) == played["steps"] + 1  # every step's vector reached the server
    refused = ariadne("report", "served", "--run-dir", str(tmp_path / "runs"), env=env)  # the server is gone
    assert refused.returncode == 2
    assert refused.stderr.count("\n") == 1
    assert "cannot be reached" in refused.stderr


def test_the_server_going_away_mid_episode_is_one_line_and_the_run_resumes(tmp_path: Path) -> None:
    reference = last_json(ariadne("play", *ARGS, "--run-dir", str(tmp_path / "local"), "--run-id", "same"))
    server = ChromaServer(tmp_path / "chroma-data").start()
    try:
        env = {**os.environ, "ARIADNE_CHROMA_URL": server.url}
        process = subprocess.Popen([ARIADNE, "play", *ARGS, "--run-dir", str(tmp_path / "served"), "--run-id", "same"],
                                   stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env, start_new_session=True)
        path = tmp_path / "served" / "same" / "trajectory.jsonl"
        deadline = time.time() + 300
        while not (path.is_file() and path.read_text().count("\n") >= 6):
            assert process.poll() is None, "play ended before the server could be stopped"
            assert time.time() < deadline, "play ended before the server could be stopped"
            time.sleep(0.05)
        server.kill()
        _, stderr = process.communicate(timeout=300)
        assert process.returncode == 2, stderr[-2000:]
        assert stderr.count("\n") == 1, stderr
        assert stderr.startswith("ariadne: error:"), stderr
        assert "could not be written" in stderr, stderr
        stopped_at = path.read_text().count("\n")
        assert stopped_at < reference["steps"] + 1
        server.start()  # the same data, the same port
        resumed = last_json(ariadne("play", "--resume", "same", "--run-dir", str(tmp_path / "served"), "--json", env=env))
    finally:
        server.kill()
    for key in ("score", "max_score", "won", "steps"):
        assert resumed[key] == reference[key], key
    assert steps(tmp_path / "served" / "same") == steps(tmp_path / "local" / "same")


def test_a_server_that_never_answers_is_not_left_running(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    import urllib.request

    def no_answer(*args: object, **kwargs: object) -> None:
        raise OSError("no answer")

    monkeypatch.setattr(urllib.request, "urlopen", no_answer)  # the heartbeat never succeeds
    server = ChromaServer(tmp_path / "chroma-data")
    with pytest.raises(RuntimeError, match="did not answer"):
        server.start(timeout=0.5)
    assert server.process is not None
    assert server.process.poll() is not None
