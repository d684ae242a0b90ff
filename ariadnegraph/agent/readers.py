"""Readers of saved memories: a run's memory (and what the KG tools read of it) opened from a private copy of
its files, a few kept open for a server answering questions about many runs. The live session
(agent/session.py) is a MemoryView too, over the memory it writes."""

from __future__ import annotations

import tempfile
import threading
from collections import OrderedDict
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ..memory import WorldMemory
from ..memory.world import MEMORY_FILE
from ..runs import MEMORY_DIR, RunDir, RunNotPlayed, copy_folder
from ..tools.kg_tools import KGReader

_LOCK = threading.Lock()


@dataclass(kw_only=True)
class MemoryView:
    """A run's memory, and what the KG tools read of it."""

    memory: WorldMemory
    _copy: tempfile.TemporaryDirectory | None = field(default=None, repr=False)  # a reader's private copy of the files
    version: tuple[Any, ...] = ()  # a reader's: the saved memory's state it copied (session._memory_version)

    def kg(self, as_of: int | None = None) -> KGReader:
        """What the KG tools read: the memory as it was at step ``as_of`` (None: now)."""
        return KGReader(self.memory, as_of)

    def close_reader(self) -> None:
        """Close a reader's memory and delete its private copy (what it loaded stays readable)."""
        try:
            self.memory.close()
        finally:
            if self._copy is not None:
                self._copy.cleanup()


READERS_KEPT = 8  # saved memories kept open for readers (a server answering questions about many runs)
_READERS: OrderedDict[tuple[str, str], MemoryView] = OrderedDict()


def _memory_version(run_dir: str | Path, run_id: str) -> tuple[tuple[str, int, int], ...]:
    """What identifies the state of a run's saved memory: its database files' sizes and modification times
    (a rewind or a new step writes them)."""
    folder = Path(run_dir) / run_id / MEMORY_DIR
    found = []
    for name in (MEMORY_FILE, MEMORY_FILE + "-wal"):
        try:
            stat = (folder / name).stat()
        except OSError:
            continue
        found.append((name, stat.st_size, stat.st_mtime_ns))
    return tuple(found)


def saved_memory(run_id: str, run_dir: str | Path) -> MemoryView:
    """The saved memory of a run, read from a private copy of its memory folder (opening the files would write
    to them). The last ``READERS_KEPT`` readers stay open; the least recently used is closed when another is
    opened, and one whose files changed since it was read is read again."""
    key = (str(Path(run_dir).resolve()), run_id)
    with _LOCK:
        view = _READERS.get(key)
        if view is not None and view.version == _memory_version(run_dir, run_id):
            _READERS.move_to_end(key)
            return view
        if view is not None:  # the memory changed since it was read (a fork rewound it, or the run went on)
            del _READERS[key]
            view.close_reader()
        version = _memory_version(run_dir, run_id)
        copy = tempfile.TemporaryDirectory(prefix="ariadne-memory-")
        try:
            run = RunDir.open(run_dir, run_id)
            target = Path(copy.name) / MEMORY_DIR
            with run.reading():  # between two of the writer's writes, never during one
                if not run.memory_path.is_dir():
                    raise RunNotPlayed(run_id)
                copy_folder(run.memory_path, target, f"run {run_id}'s memory")
            # no check_run before this reader (the server's ask): the log's whole chain is checked here
            view = MemoryView(memory=WorldMemory.open(target, check_log=True), _copy=copy, version=version)
        except BaseException:
            copy.cleanup()
            raise
        _READERS[key] = view
        while len(_READERS) > READERS_KEPT:
            _, evicted = _READERS.popitem(last=False)
            evicted.close_reader()
        return view
