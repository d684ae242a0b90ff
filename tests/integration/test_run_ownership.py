"""One writer per run: two resumes at once, a server thread naming another thread's run, a server
client naming a game file outside the games directory, and a disk that fills in the middle of an
episode. Each refusal is one line and leaves the run as it was (or resumable)."""

from __future__ import annotations

import hashlib
import json
import shutil
import signal
import subprocess
import sys
import time
import uuid
from pathlib import Path

import pytest
from langgraph.checkpoint.memory import InMemorySaver

from ariadnegraph.agent.context import AgentContext
from ariadnegraph.envs import EnvSpecError
from ariadnegraph.graphs.agent import build_agent_graph
from ariadnegraph.runs import RunBusy, RunDir

ARIADNE = str(Path(sys.executable).parent / "ariadne")


def checksums(folder: Path) -> dict[str, str]:
    return {str(p.relative_to(folder)): hashlib.sha256(p.read_bytes()).hexdigest() for p in sorted(folder.rglob("*")) if p.is_file()}


def recorded_steps(run: Path) -> list[int]:
    return [json.loads(line)["step"] for line in (run / "trajectory.jsonl").read_text().splitlines() if line.endswith("}")]


def start_play(run_dir: Path, *args: str) -> subprocess.Popen:
    return subprocess.Popen([ARIADNE, "play", *args, "--run-dir", str(run_dir)], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)


def wait_for_steps(run: Path, count: int, process: subprocess.Popen) -> None:
    deadline = time.monotonic() + 300
    while not (run / "trajectory.jsonl").exists() or len(recorded_steps(run)) < count:
        assert process.poll() is None, process.stderr.read() if process.stderr else ""
        assert time.monotonic() < deadline
        time.sleep(0.1)


def test_a_second_writer_is_refused_and_the_first_finishes_in_order(tmp_path):
    first = start_play(tmp_path, "--env", "cooking:2", "--seed", "4", "--max-steps", "25", "--run-id", "shared")
    run = tmp_path / "shared"
    wait_for_steps(run, 3, first)
    first.send_signal(signal.SIGKILL)  # the kernel drops a killed writer's lock: resume must not find it held
    first.wait()
    resumed = start_play(tmp_path, "--resume", "shared", "--json")
    wait_for_steps(run, len(recorded_steps(run)) + 2, resumed)  # playing, so holding the lock
    resumed.send_signal(signal.SIGSTOP)  # paused in the middle of its episode, the lock still held
    try:
        before = recorded_steps(run)
        second = subprocess.run([ARIADNE, "play", "--resume", "shared", "--run-dir", str(tmp_path)], capture_output=True, text=True, timeout=120)
        assert second.returncode == 2, second.stdout[-1000:] + second.stderr[-1000:]
        assert second.stderr.count("\n") == 1
        assert "being written by another process" in second.stderr
        assert recorded_steps(run) == before
    finally:
        resumed.send_signal(signal.SIGCONT)
    out, err = resumed.communicate(timeout=300)
    assert resumed.returncode == 0, err[-2000:]
    summary = json.loads(out.strip().splitlines()[-1])
    assert recorded_steps(run) == list(range(summary["steps"] + 1))  # nothing lost, nothing twice, in order


def test_a_run_lock_is_re_entrant_in_its_process_and_exclusive_across_processes(tmp_path):
    run = RunDir.create(tmp_path, "r1", {"env": "cooking:1", "max_steps": 3, "context": {"model": "scripted", "preset": "ariadne"}})
    probe = [sys.executable, "-c", "import sys; from ariadnegraph.runs import RunDir\n"
             "try:\n    RunDir(__import__('pathlib').Path(sys.argv[1])).acquire_writer()\nexcept ValueError as e:\n    print(e); sys.exit(3)",
             str(run.path)]
    with run.writer(), run.writer():  # the session takes it again inside play
        assert subprocess.run(probe, capture_output=True, text=True).returncode == 3
    assert subprocess.run(probe, capture_output=True, text=True).returncode == 0  # released


def served(tmp_path: Path, thread: str, graph_input: dict):
    """The served graph, as a server whose operator keeps runs in ``tmp_path`` runs it for a client."""
    graph = build_agent_graph(served=True).compile(checkpointer=InMemorySaver())
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv("ARIADNE_RUN_DIR", str(tmp_path))
        return graph.invoke(graph_input, {"configurable": {"thread_id": thread}}, context=AgentContext())


def test_a_server_thread_cannot_take_another_threads_run(tmp_path):
    owner = f"thread-{uuid.uuid4().hex[:8]}"
    state = served(tmp_path, owner, {"env": "cooking:1", "seed": 1, "max_steps": 2})
    assert state["run_id"] == owner
    assert RunDir.open(tmp_path, owner).meta()["thread_id"] == owner
    before = checksums(tmp_path / owner)
    with pytest.raises(RunBusy, match="belongs to another thread"):
        served(tmp_path, "intruder", {"env": "cooking:1", "seed": 1, "max_steps": 2, "run_id": owner})
    assert checksums(tmp_path / owner) == before


def test_a_server_client_cannot_name_game_files_outside_the_games_directory(tmp_path, monkeypatch):
    games = tmp_path / "games"
    games.mkdir()
    monkeypatch.setenv("ARIADNE_GAMES_DIR", str(games))
    outside = tmp_path / "secret.z8"
    outside.write_bytes(b"z")
    messages = set()
    for path in (outside, tmp_path / "absent.z8", games / ".." / "secret.z8"):
        with pytest.raises(EnvSpecError) as refused:
            served(tmp_path, f"t-{uuid.uuid4().hex[:6]}", {"env": f"file:{path}"})
        messages.add(str(refused.value))
    assert len(messages) == 1
    assert "must be inside its games directory" in messages.pop()
    assert not [p for p in tmp_path.iterdir() if p.name.startswith("t-")]  # no run was created


def _mount_tmpfs(where: Path, size: str) -> bool:
    where.mkdir()
    return subprocess.run(["mount", "-t", "tmpfs", "-o", f"size={size}", "tmpfs", str(where)], capture_output=True).returncode == 0


def test_a_full_disk_is_one_line_and_the_run_resumes_elsewhere(tmp_path):
    disk = tmp_path / "small-disk"
    if not _mount_tmpfs(disk, "2m"):
        pytest.skip("cannot mount a small tmpfs here (needs root or CAP_SYS_ADMIN)")
    try:
        result = subprocess.run([ARIADNE, "play", "--env", "cooking:2", "--seed", "4", "--max-steps", "60", "--run-id", "full",
                                 "--run-dir", str(disk)], capture_output=True, text=True, timeout=600)
        assert result.returncode == 2, result.stdout[-1500:] + result.stderr[-2000:]
        assert result.stderr.startswith("ariadne: error: "), result.stderr[-2000:]
        assert result.stderr.count("\n") == 1, result.stderr[-2000:]
        assert "full" in result.stderr.lower() or "space" in result.stderr.lower(), result.stderr
        played = recorded_steps(disk / "full")
        assert played, "the disk filled before the first step"
        shutil.copytree(disk / "full", tmp_path / "bigger" / "full")
    finally:
        subprocess.run(["umount", str(disk)], capture_output=True)
    resumed = subprocess.run([ARIADNE, "play", "--resume", "full", "--run-dir", str(tmp_path / "bigger"), "--json"],
                             capture_output=True, text=True, timeout=600)
    assert resumed.returncode == 0, resumed.stderr[-2000:]
    steps = json.loads(resumed.stdout.strip().splitlines()[-1])["steps"]
    assert recorded_steps(tmp_path / "bigger" / "full") == list(range(steps + 1))
