"""The damage matrix: each file of a run × each kind of damage × each command that reads runs, on a
finished and on a killed run. Every case ends in one line (`ariadne: error: …` naming the file), exit
status 2, and not a byte of the run changed (checksums before and after).

The commands run in this process (``cli.main``): 54 cases × 5 commands as subprocesses would take
most of CI's time in interpreter start-ups; one subprocess case checks that the real command agrees.
"""

from __future__ import annotations

import hashlib
import json
import os
import random
import shutil
import signal
import sqlite3
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path

import pytest

from ariadnegraph.cli import main

ARIADNE = str(Path(sys.executable).parent / "ariadne")
RUN_FILES = {  # the files a command may read, and the name its error line must carry
    "run.json": "run.json",
    "trajectory.jsonl": "trajectory.jsonl",
    "oracle.jsonl": "oracle.jsonl",
    "checkpoints.sqlite": "checkpoints.sqlite",
    "memory/memory.sqlite": "memory",
    "memory/chroma/chroma.sqlite3": "memory",
}
JSON_FILES = {"run.json", "trajectory.jsonl", "oracle.jsonl"}


def checksums(folder: Path) -> dict[str, str]:
    return {str(p.relative_to(folder)): hashlib.sha256(p.read_bytes()).hexdigest()
            for p in sorted(folder.rglob("*")) if p.is_file() and p.name != "report.html"}


def _missing(path: Path) -> None:
    path.unlink()


def _empty(path: Path) -> None:
    path.write_bytes(b"")


def _truncated(path: Path) -> None:
    data = path.read_bytes()
    path.write_bytes(data[: len(data) // 2])


def _garbled(path: Path) -> None:
    """The middle third overwritten with noise (a bad sector, a bad copy)."""
    data = bytearray(path.read_bytes())
    start, end = len(data) // 3, 2 * len(data) // 3
    noise = random.Random(7).randbytes(end - start)
    data[start:end] = noise
    path.write_bytes(bytes(data))


def _wrong_types(path: Path) -> None:
    """Valid JSON, every value of the wrong type (each wrapped in a list)."""
    def wrap(record: dict) -> dict:
        return {key: [value] for key, value in record.items()}
    if path.suffix == ".json":
        path.write_text(json.dumps(wrap(json.loads(path.read_text()))))
    else:
        path.write_text("".join(json.dumps(wrap(json.loads(line))) + "\n" for line in path.read_text().splitlines()))


DAMAGE: dict[str, Callable[[Path], None]] = {
    "missing": _missing, "empty": _empty, "truncated": _truncated, "garbled": _garbled, "wrong-typed": _wrong_types,
}
CASES = [(file, damage) for file in RUN_FILES for damage in DAMAGE if damage != "wrong-typed" or file in JSON_FILES]


def commands(run_id: str, root: Path) -> dict[str, list[str]]:
    run_dir = ["--run-dir", str(root)]
    return {
        "resume": ["play", "--resume", run_id, *run_dir],
        "ask": ["ask", run_id, "Where is the knife?", *run_dir],
        "report": ["report", run_id, *run_dir],
        "fidelity": ["fidelity", run_id, *run_dir],
        "memqa": ["memqa", run_id, "--per-type", "1", *run_dir],
        "compare": ["compare", run_id, run_id, *run_dir],
        "export": ["memory", "export", run_id, "--format", "json", *run_dir],
    }


def _lines(path: Path) -> list[dict]:
    return [json.loads(line) for line in path.read_text().splitlines() if line.endswith("}")] if path.exists() else []


@pytest.fixture(scope="module")
def runs(tmp_path_factory) -> dict[str, tuple[Path, str]]:
    """A finished run (4 steps) and a run killed in the middle of its episode (SIGKILL after 3 steps)."""
    root = tmp_path_factory.mktemp("runs")
    finished = subprocess.run([ARIADNE, "play", "--env", "cooking:1", "--seed", "1", "--max-steps", "4", "--run-dir", str(root / "finished"),
                               "--json"], capture_output=True, text=True, timeout=300)
    assert finished.returncode == 0, finished.stderr[-2000:]
    killed_dir = root / "killed"
    player = subprocess.Popen([ARIADNE, "play", "--env", "cooking:2", "--seed", "4", "--max-steps", "40", "--run-dir", str(killed_dir),
                               "--run-id", "killed-run"], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    deadline = time.monotonic() + 300
    while len(_lines(killed_dir / "killed-run" / "trajectory.jsonl")) < 4:
        assert player.poll() is None
        assert time.monotonic() < deadline
        time.sleep(0.2)
    player.send_signal(signal.SIGKILL)
    player.wait()
    return {"finished": (root / "finished", json.loads(finished.stdout.strip().splitlines()[-1])["run_id"]),
            "killed": (killed_dir, "killed-run")}


@pytest.mark.parametrize("kind", ["finished", "killed"])
@pytest.mark.parametrize(("file", "damage"), CASES, ids=[f"{f}-{d}" for f, d in CASES])
def test_a_damaged_run_is_refused_in_one_line_and_left_as_it_was(kind, file, damage, runs, tmp_path, capsys):
    source, run_id = runs[kind]
    shutil.copytree(source / run_id, tmp_path / run_id)
    target = tmp_path / run_id / file
    # A killed writer's SQLite file can be one page (everything since is in its write-ahead log): the
    # middle of that page is unallocated space SQLite never reads, so noise there is invisible and
    # harmless. Then the readers must work as on the healthy run (and still write nothing).
    harmless = damage == "garbled" and target.suffix.startswith(".sqlite") and target.stat().st_size == 4096
    DAMAGE[damage](target)
    before = checksums(tmp_path)
    for name, argv in commands(run_id, tmp_path).items():
        if harmless:
            if name != "resume":
                assert main(argv) == 0, (name, capsys.readouterr().err[-1500:])
                assert checksums(tmp_path) == before
            continue
        status = main(argv)
        captured = capsys.readouterr()
        lines = captured.err.strip().splitlines()
        assert status == 2, (name, captured.out[-500:], captured.err[-1500:])
        assert len(lines) == 1, (name, captured.err[-1500:])
        assert lines[0].startswith("ariadne: error: "), (name, captured.err[-1500:])
        assert RUN_FILES[file] in lines[0], (name, captured.err[-1500:])
        assert checksums(tmp_path) == before, f"{name} changed the damaged run"


def test_the_real_command_refuses_a_damaged_run_the_same_way(runs, tmp_path):
    source, run_id = runs["killed"]
    shutil.copytree(source / run_id, tmp_path / run_id)
    _truncated(tmp_path / run_id / "checkpoints.sqlite")
    before = checksums(tmp_path)
    result = subprocess.run([ARIADNE, "play", "--resume", run_id, "--run-dir", str(tmp_path)], capture_output=True, text=True, timeout=300)
    assert result.returncode == 2, result.stderr
    assert result.stderr.startswith("ariadne: error: "), result.stderr
    assert result.stderr.count("\n") == 1, result.stderr
    assert "checkpoints.sqlite" in result.stderr
    assert checksums(tmp_path) == before


@pytest.mark.parametrize("kind", ["finished", "killed"])
def test_readers_leave_a_healthy_run_byte_for_byte_as_it_was(kind, runs, tmp_path, capsys):
    """ask, report, fidelity, memqa, compare and memory export read a copy: Chroma's and SQLite's files are never
    opened in place."""
    source, run_id = runs[kind]
    shutil.copytree(source / run_id, tmp_path / run_id)
    before = checksums(tmp_path)
    for name, argv in commands(run_id, tmp_path).items():
        if name == "resume":
            continue
        assert main(argv) == 0, (name, capsys.readouterr().err[-1500:])
        assert checksums(tmp_path) == before, f"{name} wrote to the run"
    capsys.readouterr()


def test_readers_work_on_a_read_only_run(runs, tmp_path, capsys):
    source, run_id = runs["finished"]
    shutil.copytree(source / run_id, tmp_path / run_id)
    (tmp_path / run_id / "report.html").unlink(missing_ok=True)
    for path in [tmp_path, *tmp_path.rglob("*")]:
        path.chmod(0o555 if path.is_dir() else 0o444)
    try:
        for name in ("ask", "fidelity", "memqa", "compare", "export"):
            assert main(commands(run_id, tmp_path)[name]) == 0, (name, capsys.readouterr().err[-1500:])
        out = tmp_path / "elsewhere.html"
        assert main(["report", run_id, "--run-dir", str(tmp_path), "--out", str(tmp_path.parent / out.name)]) == 0
    finally:
        for path in [tmp_path, *tmp_path.rglob("*")]:
            path.chmod(0o755 if path.is_dir() else 0o644)
    capsys.readouterr()


def cut_during_step_zero(source: Path, target: Path, memory_made: bool) -> None:
    """The files a kill during a run's first step leaves: its run.json (no result) and an empty checkpoints file; and,
    once the memory is made, step 0's oracle and trajectory lines, but no episode in the memory yet."""
    target.mkdir()
    meta = json.loads((source / "run.json").read_text())
    meta.pop("result", None)
    (target / "run.json").write_text(json.dumps(meta))
    (target / "checkpoints.sqlite").write_bytes(b"")
    if memory_made:
        from ariadnegraph.memory import WorldMemory

        WorldMemory(target / "memory").close()
        for name in ("oracle.jsonl", "trajectory.jsonl"):
            (target / name).write_text((source / name).read_text().splitlines(keepends=True)[0])


@pytest.mark.parametrize("memory_made", [False, True], ids=["before-memory", "before-its-first-episode"])
def test_a_run_cut_short_during_its_first_step_is_named_with_how_to_play_it(memory_made, runs, tmp_path, capsys):
    """Not the reader's deleted temporary copy, nor a game that 'gives no true facts', nor an 'older run'."""
    source, run_id = runs["finished"]
    cut_during_step_zero(source / run_id, tmp_path / run_id, memory_made)
    before = checksums(tmp_path)
    # (ask answers from a memory that exists, seeded facts and all; before there is one it says the same)
    for name in ("report", "export", "fidelity", *(() if memory_made else ("ask",))):
        status = main(commands(run_id, tmp_path)[name])
        lines = capsys.readouterr().err.strip().splitlines()
        assert status == 2, (name, lines)
        assert len(lines) == 1, (name, lines)
        assert lines[0] == (f"ariadne: error: run {run_id} has recorded no step yet (it was cut short during its first "
                            f"step): `ariadne play --resume {run_id}` plays it"), (name, lines)
        assert checksums(tmp_path) == before
    assert main(commands(run_id, tmp_path)["resume"]) == 0, capsys.readouterr().err[-1500:]  # as it says
    assert main(commands(run_id, tmp_path)["fidelity"]) == 0, capsys.readouterr().err[-1500:]
    assert "memory fidelity over" in capsys.readouterr().out


def test_a_torn_last_line_is_written_again_from_the_checkpoint(runs, tmp_path, capsys):
    """The last trajectory line of a finished run cut mid-write: resume replays the game and writes
    the step again (readers refuse the run until then)."""
    source, run_id = runs["finished"]
    shutil.copytree(source / run_id, tmp_path / run_id)
    trajectory = tmp_path / run_id / "trajectory.jsonl"
    whole = trajectory.read_text()
    last = whole.splitlines(keepends=True)[-1]
    trajectory.write_text(whole[: len(whole) - len(last) // 2])
    assert main(["report", run_id, "--run-dir", str(tmp_path)]) == 2
    assert "trajectory.jsonl" in capsys.readouterr().err
    assert main(["play", "--resume", run_id, "--run-dir", str(tmp_path)]) == 0
    assert trajectory.read_text() == whole
    capsys.readouterr()


def test_run_json_of_the_wrong_shape_is_named_before_anything_is_read(runs, tmp_path, capsys):
    source, run_id = runs["finished"]
    shutil.copytree(source / run_id, tmp_path / run_id)
    meta_path = tmp_path / run_id / "run.json"
    meta = json.loads(meta_path.read_text())
    meta_path.write_text(json.dumps({**meta, "max_steps": "many"}))
    assert main(["play", "--resume", run_id, "--run-dir", str(tmp_path)]) == 2
    assert "run.json is damaged (max_steps" in capsys.readouterr().err
    os.chmod(meta_path, 0o644)


def test_a_result_that_does_not_match_the_trajectory_is_refused(runs, tmp_path, capsys):
    """run.json's result is written after the last step: one for another number of steps (a fork's abandoned
    branch, an edit) describes another history than the trajectory, and readers refuse the run."""
    source, run_id = runs["finished"]
    shutil.copytree(source / run_id, tmp_path / run_id)
    meta_path = tmp_path / run_id / "run.json"
    meta = json.loads(meta_path.read_text())
    meta_path.write_text(json.dumps({**meta, "result": {**meta["result"], "steps": meta["result"]["steps"] + 5}}))
    assert main(["report", run_id, "--run-dir", str(tmp_path)]) == 2
    assert "run.json's result is for" in capsys.readouterr().err


def test_a_run_killed_before_its_first_checkpoint_resumes(tmp_path, capsys):
    """Killed between creating its files and the first checkpoint: an empty checkpoints.sqlite and at
    most step 0 recorded is a run to start again, not a damaged one (seen when an eval was killed)."""
    assert main(["play", "--env", "cooking:1", "--seed", "1", "--max-steps", "2", "--run-id", "early", "--run-dir", str(tmp_path)]) == 0
    run = tmp_path / "early"
    for name in ("checkpoints.sqlite", "checkpoints.sqlite-wal", "checkpoints.sqlite-shm", "oracle.jsonl", "trajectory.jsonl"):
        (run / name).unlink(missing_ok=True)
    (run / "checkpoints.sqlite").write_bytes(b"")
    shutil.rmtree(run / "memory")
    meta = json.loads((run / "run.json").read_text())
    (run / "run.json").write_text(json.dumps({k: v for k, v in meta.items() if k != "result"}))  # written only by the finish
    # a new process, as after a kill (Chroma caches clients per folder within a process)
    resumed = subprocess.run([ARIADNE, "play", "--resume", "early", "--run-dir", str(tmp_path)], capture_output=True, text=True, timeout=300)
    assert resumed.returncode == 0, resumed.stderr[-2000:]
    assert [json.loads(line)["step"] for line in (run / "trajectory.jsonl").read_text().splitlines()] == [0, 1, 2]
    capsys.readouterr()


def _flipped(blob: bytes) -> bytes:
    """Four bytes in the middle of ``blob`` changed (a bad sector inside a row SQLite's page check still passes)."""
    middle = len(blob) // 2
    return blob[:middle] + bytes(b ^ 0x5A for b in blob[middle : middle + 4]) + blob[middle + 4 :]


def _older_dictionary(connection: sqlite3.Connection) -> str:
    """A dictionary older rows were compressed against, not the latest checkpoint's."""
    latest = connection.execute("SELECT type FROM checkpoints ORDER BY checkpoint_id DESC LIMIT 1").fetchone()[0]
    kinds = [kind for (kind,) in connection.execute("SELECT type FROM checkpoints ORDER BY checkpoint_id")]
    return next(kind.partition(":")[2] for kind in kinds if ":" in kind and kind != latest)


def _garble_oldest(connection: sqlite3.Connection, table: str, column: str) -> None:
    rowid, blob = connection.execute(
        f"SELECT rowid, {column} FROM {table} WHERE type LIKE '%+zlib%' ORDER BY checkpoint_id LIMIT 1"
    ).fetchone()
    connection.execute(f"UPDATE {table} SET {column} = ? WHERE rowid = ?", (_flipped(blob), rowid))


ROW_DAMAGE: dict[str, Callable[[sqlite3.Connection], None]] = {
    "older-checkpoint-garbled": lambda c: _garble_oldest(c, "checkpoints", "checkpoint"),
    "older-value-garbled": lambda c: _garble_oldest(c, "channel_values", "value"),
    "older-write-garbled": lambda c: _garble_oldest(c, "writes", "value"),
    "older-dictionary-deleted": lambda c: c.execute("DELETE FROM dictionaries WHERE name = ?", (_older_dictionary(c),)),
    "older-dictionary-garbled": lambda c: c.execute(
        "UPDATE dictionaries SET data = ? WHERE name = ?",
        (_flipped(c.execute("SELECT data FROM dictionaries WHERE name = ?", (_older_dictionary(c),)).fetchone()[0]),
         _older_dictionary(c)),
    ),
}


@pytest.mark.parametrize("damage", ROW_DAMAGE)
def test_a_damaged_row_of_the_checkpoints_is_named_by_every_command(damage, runs, tmp_path, capsys):
    """A row garbled inside, or compressed against a dictionary row deleted or garbled, passes SQLite's check of the
    file's pages: every command still names the run and the file in one line (not a zlib traceback, nor a read that
    says nothing because it reads only the latest checkpoint), and writes nothing."""
    source, run_id = runs["finished"]
    shutil.copytree(source / run_id, tmp_path / run_id)
    connection = sqlite3.connect(tmp_path / run_id / "checkpoints.sqlite")
    ROW_DAMAGE[damage](connection)
    connection.commit()
    connection.close()
    before = checksums(tmp_path)
    for name, argv in commands(run_id, tmp_path).items():
        status = main(argv)
        captured = capsys.readouterr()
        lines = captured.err.strip().splitlines()
        assert status == 2, (name, captured.out[-500:], captured.err[-1500:])
        assert len(lines) == 1, (name, captured.err[-1500:])
        assert lines[0].startswith(f"ariadne: error: run {run_id}: checkpoints.sqlite is damaged ("), (name, lines[0])
        assert checksums(tmp_path) == before, f"{name} changed the damaged run"


def test_a_latest_checkpoint_that_lost_its_observation_is_refused_without_offering_to_start_again(runs, tmp_path, capsys):
    """The latest checkpoint's observation row deleted: its state holds no step, but the file holds checkpoints of the
    recorded steps, so the run's checkpoints are damaged, not all lost: no command offers `--rewind` (which would
    start the episode again over them), and `play --resume --rewind` refuses it too."""
    source, run_id = runs["finished"]
    shutil.copytree(source / run_id, tmp_path / run_id)
    connection = sqlite3.connect(tmp_path / run_id / "checkpoints.sqlite")
    connection.execute("DELETE FROM channel_values WHERE channel = 'observation' AND version = "
                       "(SELECT MAX(version) FROM channel_values WHERE channel = 'observation')")
    connection.commit()
    connection.close()
    before = checksums(tmp_path)
    for argv in (*commands(run_id, tmp_path).values(), ["play", "--resume", run_id, "--rewind", "--run-dir", str(tmp_path)]):
        assert main(argv) == 2, argv
        lines = capsys.readouterr().err.strip().splitlines()
        assert len(lines) == 1, (argv, lines)
        assert f"run {run_id}: checkpoints.sqlite holds no checkpoint" in lines[0], (argv, lines)
        assert "--rewind" not in lines[0], (argv, lines)
        assert checksums(tmp_path) == before, argv
