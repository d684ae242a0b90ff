"""A full disk on a real filesystem: a small tmpfs mounted for the test holds the run directory, and a ballast
file fills it at a chosen instant of a run (before it starts, while its memory or Chroma store is created,
mid-episode, while a checkpoint, the trajectory, the vectors or the finished run.json are written). Each
stop is one line that says the disk is full; once the ballast is gone, ``play --resume`` continues the run
to the end the same run on a roomy disk reaches, or, when it played nothing past step 0, a new ``play``
under the same id starts it clean.

(tests/unit/test_full_disk.py stands SQLite's page cap in for a full disk; this is the disk itself.)
Skipped, with the reason, where a tmpfs cannot be mounted (not root, no mount permission in a container).
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
from langgraph.checkpoint.sqlite import SqliteSaver

from ariadnegraph import cli
from ariadnegraph.memory import world
from ariadnegraph.memory.store import EventLog
from ariadnegraph.memory.vectorstore import ChromaVectors
from ariadnegraph.runs import RunDir

ARIADNE = str(Path(sys.executable).parent / "ariadne")
STEPS = 4
GAME = ["--env", "cooking:1", "--seed", "1", "--max-steps", str(STEPS), "--preset", "ariadne"]
DISK = "16M"


@pytest.fixture
def small_disk(tmp_path: Path) -> Iterator[Path]:
    """A 16 MB tmpfs of its own, unmounted after the test."""
    mount = tmp_path / "disk"
    mount.mkdir()
    if os.geteuid() != 0:
        pytest.skip("mounting a tmpfs needs root")
    done = subprocess.run(["mount", "-t", "tmpfs", "-o", f"size={DISK}", "tmpfs", str(mount)], capture_output=True, text=True)
    if done.returncode != 0:
        pytest.skip(f"cannot mount a tmpfs here: {done.stderr.strip() or done.returncode}")
    try:
        yield mount
    finally:
        subprocess.run(["umount", "-l", str(mount)], check=False)


def free(disk: Path) -> int:
    stat = os.statvfs(disk)
    return stat.f_bavail * stat.f_frsize


def fill(disk: Path, leave: int = 0) -> None:
    """Grow the ballast until at most ``leave`` bytes are free."""
    with (disk / "ballast").open("ab") as ballast:
        try:
            while free(disk) > leave:
                ballast.write(b"\0" * max(1, min(1 << 16, free(disk) - leave)))
                ballast.flush()
        except OSError:  # full: what the ballast is for
            pass


def steps(run: Path) -> list[dict]:
    path = run / "trajectory.jsonl"
    return [json.loads(line) for line in path.read_text().splitlines() if line.endswith("}")] if path.exists() else []


def ariadne(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run([ARIADNE, *args], capture_output=True, text=True, timeout=600, env=os.environ.copy())


@pytest.fixture(scope="module")
def reference(tmp_path_factory) -> list[tuple[Any, str]]:
    """The commands and observations of the same episode played on a roomy disk."""
    root = tmp_path_factory.mktemp("roomy")
    done = ariadne("play", *GAME, "--run-dir", str(root), "--run-id", "ref", "--no-verbose")
    assert done.returncode == 0, done.stderr
    return [(s["action"], s["observation"]) for s in steps(root / "ref")]


def at_call(monkeypatch, owner: Any, name: str, disk: Path, leave: int, when: Callable[..., bool] = lambda *a, **k: True) -> None:
    """Fill the disk (to ``leave`` bytes) just before the first call of ``owner.name`` that ``when`` accepts."""
    original = getattr(owner, name)
    armed = [True]

    def wrapper(*args: Any, **kwargs: Any) -> Any:
        if armed[0] and when(*args, **kwargs):
            armed[0] = False
            fill(disk, leave)
        return original(*args, **kwargs)

    monkeypatch.setattr(owner, name, wrapper)


def _count(n: int) -> Callable[..., bool]:
    """Accept the ``n``-th call."""
    calls = [0]

    def nth(*args: Any, **kwargs: Any) -> bool:
        calls[0] += 1
        return calls[0] == n

    return nth


# instant -> how the ballast is placed at it (None: before the command starts)
INSTANTS: dict[str, Callable[[Any, Path, int], None] | None] = {
    "before the run": None,
    "memory log created": lambda mp, disk, leave: at_call(mp, EventLog, "__init__", disk, leave),
    "chroma created": lambda mp, disk, leave: at_call(mp, world, "make_client", disk, leave),
    "checkpoint 3 written": lambda mp, disk, leave: at_call(mp, SqliteSaver, "put", disk, leave, _count(3)),
    "step 2 recorded": lambda mp, disk, leave: at_call(
        mp, RunDir, "append_step", disk, leave, lambda run, record, *a, **k: record["step"] == 2),
    "memory of step 2 written": lambda mp, disk, leave: at_call(
        mp, EventLog, "append", disk, leave, lambda log, events: any(k == "episode" and p["step"] == 2 for k, p in events)),
    "vectors flushed": lambda mp, disk, leave: at_call(mp, ChromaVectors, "add", disk, leave),
    "finished run.json written": lambda mp, disk, leave: at_call(
        mp, RunDir, "write_meta", disk, leave, lambda run, meta: "result" in meta),
}
CASES = [(instant, 0) for instant in INSTANTS] + [
    # some room left: SQLite then fails on its shared-memory file ("disk I/O error") or midway through a page
    ("before the run", 24 << 10), ("memory log created", 24 << 10), ("chroma created", 96 << 10),
    ("checkpoint 3 written", 24 << 10),
]


@pytest.mark.parametrize("instant, leave", CASES, ids=[f"{i}-{leave >> 10}k" for i, leave in CASES])
def test_a_full_disk_stops_a_run_in_one_line_and_the_run_goes_on_once_there_is_room(
    small_disk, reference, monkeypatch, capsys, instant, leave
):
    runs = small_disk / "runs"
    runs.mkdir()
    place = INSTANTS[instant]
    if place is None:
        fill(small_disk, leave)
    else:
        place(monkeypatch, small_disk, leave)
    status = cli.main(["play", *GAME, "--run-dir", str(runs), "--run-id", "full", "--no-verbose"])
    err = capsys.readouterr().err
    monkeypatch.undo()
    assert status == 2, err
    assert err.count("\n") == 1, err
    assert err.startswith("ariadne: error: "), err
    assert "the disk is full" in err, err
    assert not any(word in err for word in ("damaged", "cannot be read", "storage failed", "I/O error")), err

    (small_disk / "ballast").unlink()
    run = runs / "full"
    if len(steps(run)) > 1:  # it played: it is continued
        again = ariadne("play", "--resume", "full", "--run-dir", str(runs), "--no-verbose")
    else:  # it played nothing past step 0: the same episode starts again under its id
        again = ariadne("play", *GAME, "--run-dir", str(runs), "--run-id", "full", "--no-verbose")
    assert again.returncode == 0, (instant, err, again.stderr)
    assert [(s["action"], s["observation"]) for s in steps(run)] == reference
    assert json.loads((run / "run.json").read_text())["result"]["steps"] == STEPS
    assert cli.main(["runs", "show", "full", "--run-dir", str(runs)]) == 0
    assert "not won" in capsys.readouterr().out
    assert not list(run.glob(".memory.*.tmp"))  # a memory whose creation the disk cut leaves nothing behind
