"""A damaged run directory, met by every command that reads runs: one clear line, exit 2, and not a
byte changed on disk (files compared before and after)."""

from __future__ import annotations

import hashlib
import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ARIADNE = str(Path(sys.executable).parent / "ariadne")


def ariadne(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run([ARIADNE, *args], capture_output=True, text=True, timeout=300, env=os.environ.copy())


def snapshot(folder: Path) -> dict[str, str]:
    return {str(p.relative_to(folder)): hashlib.sha256(p.read_bytes()).hexdigest() for p in sorted(folder.rglob("*")) if p.is_file()}


@pytest.fixture(scope="module")
def short_run(tmp_path_factory) -> tuple[Path, str]:
    """A short run of 3 steps: every file a run has (run.json, trajectory, oracle, memory, checkpoints)."""
    root = tmp_path_factory.mktemp("runs")
    result = ariadne("play", "--env", "cooking:1", "--seed", "1", "--max-steps", "3", "--run-dir", str(root), "--json")
    assert result.returncode == 0, result.stderr[-2000:]
    run_id = json.loads(result.stdout.strip().splitlines()[-1])["run_id"]
    return root, run_id


def garbage(path: Path) -> None:
    path.write_bytes(b"\x00 not what was written \xff" * 64)


def cut_line(path: Path) -> None:
    lines = path.read_text().splitlines(keepends=True)
    lines[1] = '{"step": 1, "observation": "half a rec\n'
    path.write_text("".join(lines))


DAMAGE = {
    "run.json": (lambda run: garbage(run / "run.json"), "run.json is damaged"),
    "trajectory": (lambda run: cut_line(run / "trajectory.jsonl"), "trajectory.jsonl line 2 is damaged"),
    "oracle": (lambda run: cut_line(run / "oracle.jsonl"), "oracle.jsonl line 2 is damaged"),
    "memory": (lambda run: garbage(run / "memory" / "memory.sqlite"), "is damaged"),
    "checkpoints": (lambda run: garbage(run / "checkpoints.sqlite"), "checkpoints.sqlite is damaged"),
}
COMMANDS = {
    "resume": lambda run_id, root: ("play", "--resume", run_id, "--run-dir", str(root)),
    "ask": lambda run_id, root: ("ask", run_id, "Where am I?", "--run-dir", str(root)),
    "report": lambda run_id, root: ("report", run_id, "--run-dir", str(root)),
}
# what each command reads: ask answers from run.json and memory; report reads all but checkpoints
READS = {"resume": set(DAMAGE), "ask": {"run.json", "memory"}, "report": {"run.json", "trajectory", "memory"}}


@pytest.mark.parametrize("damage", list(DAMAGE))
def test_a_damaged_run_is_refused_in_one_line_and_left_as_it_was(damage, short_run, tmp_path):
    root, run_id = short_run
    copy = tmp_path / run_id
    shutil.copytree(root / run_id, copy, ignore=shutil.ignore_patterns("*-wal", "*-shm", "report.html"))
    spoil, message = DAMAGE[damage]
    spoil(copy)
    before = snapshot(tmp_path)
    for name, command in COMMANDS.items():
        if damage not in READS[name]:
            continue
        result = ariadne(*command(run_id, tmp_path))
        lines = result.stderr.strip().splitlines()
        assert result.returncode == 2, (name, result.stdout[-1000:], result.stderr[-2000:])
        assert len(lines) == 1 and lines[0].startswith("ariadne: error:") and message in lines[0], (name, result.stderr[-2000:])
        assert snapshot(tmp_path) == before, f"{name} changed the damaged run"
