"""A full disk is called a full disk: a write refused for want of space (ENOSPC, a quota, SQLite's
SQLITE_FULL) is never reported as a damaged file, wherever it is caught. SQLite's own SQLITE_FULL is
produced for real by capping a database's pages (``PRAGMA max_page_count``)."""

from __future__ import annotations

import errno
import os
import sqlite3

import pytest

from ariadnegraph import cli
from ariadnegraph.cli import play as cli_play
from ariadnegraph.config import DiskFull, is_full_disk
from ariadnegraph.memory import MemoryCorrupted, MemoryWriteFailed
from ariadnegraph.memory.store import EventLog

REAL_CONNECT = sqlite3.connect


def cap_pages(monkeypatch, pages: int, name: str = "") -> None:
    """Every SQLite database opened from now on (whose path ends in ``name``) holds at most ``pages`` pages:
    writes past them fail as on a full disk."""

    def connect(*args, **kwargs):
        connection = REAL_CONNECT(*args, **kwargs)
        if str(args[0]).endswith(name):
            connection.execute(f"PRAGMA max_page_count = {pages}")
        return connection

    monkeypatch.setattr(sqlite3, "connect", connect)


def sqlite_full() -> sqlite3.OperationalError:
    connection = REAL_CONNECT(":memory:")
    connection.execute("PRAGMA max_page_count = 1")
    try:
        connection.execute("CREATE TABLE a (x)")
        connection.execute("CREATE TABLE b (x)")
    except sqlite3.OperationalError as exc:
        return exc
    finally:
        connection.close()
    raise AssertionError("SQLite wrote past its page cap")


def test_what_counts_as_a_full_disk():
    assert is_full_disk(OSError(errno.ENOSPC, os.strerror(errno.ENOSPC), "/x"))
    assert is_full_disk(OSError(errno.EDQUOT, "quota"))
    assert is_full_disk(sqlite_full())
    assert is_full_disk(DiskFull("/x"))
    wrapped = RuntimeError("the step was lost")
    wrapped.__cause__ = sqlite_full()
    assert is_full_disk(wrapped)
    assert not is_full_disk(OSError(errno.EACCES, "Permission denied"))
    assert not is_full_disk(sqlite3.DatabaseError("file is not a database"))
    assert not is_full_disk(None)


def test_an_io_error_is_a_full_disk_only_where_the_disk_has_no_room(tmp_path):
    """SQLite reports some refused writes as "disk I/O error" (no errno): a full disk only where the file's
    filesystem is out of space (tests/integration/test_disk_full_tmpfs.py fills a real one)."""
    io_error = sqlite3.OperationalError("disk I/O error")
    io_error.sqlite_errorcode = 4874  # SQLITE_IOERR_SHMSIZE
    assert not is_full_disk(io_error)
    assert not is_full_disk(io_error, tmp_path / "run" / "checkpoints.sqlite")
    assert is_full_disk(RuntimeError("error returned from database: (code: 13) database or disk is full"))
    assert is_full_disk(RuntimeError("IO error: No space left on device (os error 28)"))


def test_a_memory_file_created_on_a_full_disk_is_not_called_damaged(tmp_path, monkeypatch):
    cap_pages(monkeypatch, 1)
    with pytest.raises(MemoryWriteFailed, match="memory.sqlite could not be written: the disk is full$") as caught:
        EventLog(tmp_path / "memory.sqlite")
    assert not isinstance(caught.value, MemoryCorrupted)


def test_a_memory_step_written_on_a_full_disk_is_called_a_full_disk(tmp_path, monkeypatch):
    cap_pages(monkeypatch, 6)
    log = EventLog(tmp_path / "memory.sqlite")
    try:
        with pytest.raises(MemoryWriteFailed, match="could not be written: the disk is full$"):
            for step in range(200):
                log.append([("fact", {"text": "x" * 2000, "step": step})])
    finally:
        log.close()


def one_line(capsys) -> str:
    err = capsys.readouterr().err
    assert err.count("\n") == 1, err
    assert err.startswith("ariadne: error: "), err
    return err.strip()


def test_play_whose_memory_is_created_on_a_full_disk_says_so_in_one_line(tmp_path, monkeypatch, capsys):
    cap_pages(monkeypatch, 1, name="memory.sqlite")
    assert cli.main(["play", "--env", "cooking:1", "--max-steps", "2", "--run-dir", str(tmp_path / "runs")]) == 2
    line = one_line(capsys)
    assert line.endswith("/memory could not be created: the disk is full")
    assert "damaged" not in line


@pytest.mark.parametrize("error, said", [
    (OSError(errno.ENOSPC, os.strerror(errno.ENOSPC), "/runs/r1/run.json"), "ariadne: error: the disk is full: /runs/r1/run.json"),
    (DiskFull("/runs/r1/checkpoints.sqlite"), "ariadne: error: the disk is full: /runs/r1/checkpoints.sqlite"),
    (sqlite_full(), "ariadne: error: the disk is full"),
])
def test_the_cli_calls_every_full_disk_a_full_disk(monkeypatch, capsys, error, said):
    def fail(args):
        raise error

    monkeypatch.setattr(cli_play, "play_command", fail)
    assert cli.main(["play", "--env", "cooking:1"]) == 2
    assert one_line(capsys) == said
