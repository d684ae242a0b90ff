"""A run whose newest checkpoints were lost: killed mid-episode with its newest checkpoints only in SQLite's
write-ahead log, and the log deleted (a cleanup script, a copy without it). The checkpoints file is whole, just
older: resume would go back to its latest checkpoint and play the recorded steps again over them. It is refused in
one line naming the steps, and goes back only when told to (``play --resume --rewind``), leaving the run's files on
one history. A fork not yet played, whose checkpoint is as far behind, is told apart by the checkpoints of the
history it left (tests/integration/test_forks.py)."""

from __future__ import annotations

import hashlib
import json
import os
import re
import shutil
import signal
import subprocess
import sys
from pathlib import Path

import pytest

from ariadnegraph.agent.integrity import checked_copies
from ariadnegraph.memory import WorldMemory
from ariadnegraph.runs import RunDir, next_trail

pytestmark = pytest.mark.slow
ROOT = Path(__file__).resolve().parents[2]
ARIADNE = str(Path(sys.executable).parent / "ariadne")
MAX_STEPS = 26
# (fold at, kill at): the log copied into the file once, at step 6; or never (as in a run's first hundred steps or
# so: SQLite copies it every 1,000 pages, some 4 MB, and step 8 is under half of that here)
LOSSES = [(6, 20), (None, 8)]

# The driver: the checkpoints the write-ahead log holds when step FOLD_AT is recorded are copied into the file (as
# SQLite does by itself every 1,000 pages), and the process kills itself once step KILL_AT is recorded: the WAL then
# holds every checkpoint since.
DRIVER = r"""
import os, signal, sqlite3, sys
from ariadnegraph import runs

fold, kill = int(os.environ["FOLD_AT"]), int(os.environ["KILL_AT"])
real_record_step = runs.RunDir.record_step

def record_step(self, step, *args, **kwargs):
    record = real_record_step(self, step, *args, **kwargs)
    if step == fold:
        connection = sqlite3.connect(self.checkpoints_path)
        connection.execute("PRAGMA wal_checkpoint(PASSIVE)")
        connection.close()
    if step == kill:
        os.kill(os.getpid(), signal.SIGKILL)
    return record

runs.RunDir.record_step = record_step
from ariadnegraph.cli import main
sys.exit(main(sys.argv[1:]))
"""


def checksums(folder: Path) -> dict[str, str]:
    return {str(p.relative_to(folder)): hashlib.sha256(p.read_bytes()).hexdigest() for p in sorted(folder.rglob("*")) if p.is_file()}


def ariadne(*args: str) -> subprocess.CompletedProcess:
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    return subprocess.run([ARIADNE, *args], capture_output=True, text=True, timeout=600, env=env)


@pytest.fixture(scope="module", params=LOSSES, ids=["folded-at-6", "never-folded"])
def lost(request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, int | None, int]:
    """A run killed mid-episode whose write-ahead log was deleted: its checkpoints end before the step the log was
    copied into the file at, or (never copied) there are none."""
    root = tmp_path_factory.mktemp("lost")
    fold, kill = request.param
    env = {**os.environ, "FOLD_AT": str(-1 if fold is None else fold), "KILL_AT": str(kill), "PYTHONPATH": str(ROOT)}
    killed = subprocess.run(
        [sys.executable, "-c", DRIVER, "play", "--env", "arigraph:clean", "--seed", "1", "--max-steps", str(MAX_STEPS),
         "--model", "scripted", "--run-dir", str(root), "--run-id", "w"],
        capture_output=True, text=True, timeout=600, env=env,
    )
    assert killed.returncode == -signal.SIGKILL, killed.stderr[-2000:]
    wal = root / "w" / "checkpoints.sqlite-wal"
    assert wal.stat().st_size > 0  # the newest checkpoints are there, and only there
    wal.unlink()  # (the -shm beside it stays, as a kill leaves it)
    return root, fold, kill


def test_resume_refuses_to_go_back_over_recorded_steps_and_names_them(lost, tmp_path):
    source, fold, kill = lost
    run_dir = tmp_path / "runs"
    shutil.copytree(source, run_dir)
    before = checksums(run_dir)
    for command in (["play", "--resume", "w"], ["report", "w"]):
        refused = ariadne(*command, "--run-dir", str(run_dir))
        assert refused.returncode == 2, (command, refused.stderr[-2000:])
        line = refused.stderr.strip()
        assert "\n" not in line, line
        assert line.startswith("ariadne: error: run w: "), line
        assert "checkpoints.sqlite" in line, line
        assert "`ariadne play --resume w --rewind`" in line, line
        if fold is None:
            assert f"holds no checkpoint for the {kill + 1} recorded steps" in line, line
        else:
            found = re.search(r"steps (\d+)\.\.(\d+) recorded in trajectory\.jsonl are past the latest checkpoint \(step (\d+)\)", line)
            assert found, line
            first, last, checkpointed = map(int, found.groups())
            assert (first, last) == (checkpointed + 1, kill), line
            assert checkpointed < fold, line
        assert checksums(run_dir) == before, command


def test_rewind_goes_back_to_the_latest_checkpoint_and_plays_on(lost, tmp_path):
    run_dir = tmp_path / "runs"
    shutil.copytree(lost[0], run_dir)
    resumed = ariadne("play", "--resume", "w", "--rewind", "--run-dir", str(run_dir), "--json")
    assert resumed.returncode == 0, resumed.stderr[-2000:]
    assert json.loads(resumed.stdout.strip().splitlines()[-1])["steps"] == MAX_STEPS
    # the files describe one history, and every reader accepts them
    with checked_copies(run_dir, ["w"]) as copies:
        run = RunDir.open(copies, "w")
        steps = list(run.steps())
        assert [record["step"] for record in steps] == list(range(MAX_STEPS + 1))
        assert [record["step"] for record in run.oracle_steps()] == list(range(MAX_STEPS + 1))
        trail = None
        for record in steps:
            trail = next_trail(trail, record["action"], record["observation"])
            assert record["trail"] == trail, record["step"]
        with WorldMemory.open(run.memory_path) as memory:
            assert sorted(memory.episodes) == list(range(MAX_STEPS + 1))
            assert all(memory.episodes[r["step"]].action == r["action"] for r in steps)
    assert ariadne("report", "w", "--run-dir", str(run_dir)).returncode == 0
    assert "result" in json.loads((run_dir / "w" / "run.json").read_text())


def test_rewind_without_resume_is_refused(tmp_path):
    refused = ariadne("play", "--env", "cooking:1", "--rewind", "--run-dir", str(tmp_path))
    assert refused.returncode == 2
    assert refused.stderr.count("\n") == 1, refused.stderr
    assert "--rewind" in refused.stderr, refused.stderr
    assert not any(tmp_path.iterdir())
