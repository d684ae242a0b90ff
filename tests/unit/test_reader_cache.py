"""Saved-memory readers (``agent.readers.saved_memory``, through ``agent.session.memory_view``): at most READERS_KEPT stay open; the least recently
used is closed on eviction, its private copy deleted, and no file descriptor of this process is left on
that copy (the SQLite log and Chroma's files alike). Closing one memory leaves another memory open on the
same Chroma path working."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from ariadnegraph.agent import readers, session
from ariadnegraph.memory import WorldMemory

pytestmark = pytest.mark.skipif(not Path("/proc/self/fd").is_dir(), reason="reads the process's descriptors from /proc")


def descriptors_into(folder: Path) -> list[str]:
    """Files under ``folder`` this process holds open (a deleted one reads '<path> (deleted)')."""
    found = []
    for fd in os.listdir("/proc/self/fd"):
        try:
            target = os.readlink(f"/proc/self/fd/{fd}")
        except OSError:  # closed meanwhile (the listing's own descriptor)
            continue
        if target.startswith(str(folder)):
            found.append(target)
    return found


def save_run(root: Path, name: str) -> None:
    (root / name).mkdir()
    (root / name / "run.json").write_text(json.dumps({"run_id": name, "env": "cooking:1", "context": {"model": "scripted"}}))
    with WorldMemory(root / name / "memory") as memory:
        memory.observe(0, f"-= Room {name} =-", [("player", "in", f"room {name}")])


def test_saved_memory_readers_are_bounded_and_closed_on_eviction(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A server answering about many runs keeps READERS_KEPT memories open; the oldest is closed and its copy deleted."""
    monkeypatch.setattr(readers, "READERS_KEPT", 2)
    monkeypatch.setattr(readers, "_READERS", readers.OrderedDict())
    for name in ("a", "b", "c"):
        save_run(tmp_path, name)
    first = session.memory_view("a", tmp_path)
    assert first._copy is not None
    copy = Path(first._copy.name)
    held = descriptors_into(copy)
    assert any("chroma" in path for path in held)
    assert any("memory.sqlite" in path for path in held)
    assert session.memory_view("a", tmp_path) is first
    assert copy.is_dir()
    session.memory_view("b", tmp_path)
    session.memory_view("a", tmp_path)  # used again: "b" is now the oldest
    session.memory_view("c", tmp_path)
    assert [key[1] for key in readers._READERS] == ["a", "c"]
    assert copy.is_dir()
    session.memory_view("b", tmp_path)
    assert [key[1] for key in readers._READERS] == ["c", "b"]
    assert not copy.exists()
    assert first.memory._log is None
    assert first.memory._vectors is None
    assert descriptors_into(copy) == []  # nothing of this process still points into the deleted copy
    assert first.memory.location() == "room a"  # what it loaded is still readable by a caller holding it
    for view in readers._READERS.values():  # the readers still open are untouched
        assert view.memory.location() in ("room b", "room c")
        assert descriptors_into(Path(view._copy.name))
    for view in list(readers._READERS.values()):
        view.close_reader()


def test_closing_one_memory_leaves_another_on_the_same_chroma_path_working(tmp_path: Path) -> None:
    save_run(tmp_path, "a")
    path = tmp_path / "a" / "memory"
    one, two = WorldMemory.open(path, vector_flush_steps=1), WorldMemory.open(path, vector_flush_steps=1)
    one.close()
    two.observe(1, "-= Hall =-", [("player", "in", "hall")])  # written to Chroma at once (flush every step)
    assert two._vectors is not None
    assert "o1" in two._vectors.load("episodes")
    two.close()
    assert descriptors_into(path) == []
    with WorldMemory.open(path) as again:  # both writes kept
        assert again.location() == "hall"
        assert sorted(again.episodes) == [0, 1]


def test_a_reader_refuses_a_log_edited_under_its_snapshot(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The server's reader opens a saved memory without check_run: it recomputes the log's chain itself."""
    import sqlite3

    from ariadnegraph.memory import MemoryCorrupted

    monkeypatch.setattr(readers, "_READERS", readers.OrderedDict())
    save_run(tmp_path, "a")
    with WorldMemory(tmp_path / "a" / "memory") as memory:
        for step in range(1, 6):
            memory.observe(step, f"-= Room {step} =-", [("player", "in", f"room {step}")])
        memory.write_snapshot()
    with sqlite3.connect(tmp_path / "a" / "memory" / "memory.sqlite") as db:  # an event's text changed, its chain value kept
        db.execute("UPDATE events SET payload = replace(payload, 'Room 2', 'Room 9') WHERE kind = 'episode' AND payload LIKE '%Room 2%'")
    db.close()
    # readers other tests left open in this process (the cache keeps up to READERS_KEPT) are not this one's
    open_before = {path for path in descriptors_into(Path("/")) if "ariadne-memory-" in path}
    with pytest.raises(MemoryCorrupted, match="damaged at event"):
        session.memory_view("a", tmp_path)
    assert not readers._READERS
    left = {path for path in descriptors_into(Path("/")) if "ariadne-memory-" in path}
    assert not left - open_before  # the refused copy left nothing open
