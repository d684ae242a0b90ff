"""A run folder's write gate: readers copy a run between two of its writer's writes, never during one.

A run's files are written one after another as a step goes on (its oracle and trajectory lines, each node's
checkpoint, the memory's log, vectors and snapshot). Each of those writes leaves the files in a state a kill at that
instant would leave, which every reader and ``--resume`` accepts. A reader that copies the files one by one while the
run plays would instead mix files of different instants (a trajectory copied before a step and its checkpoint after
it). So every write of a run's files is made under an exclusive lock on the gate's file, and a reader's copy under a
shared one: the copy is the run as it stood between two writes.

The lock is ``flock`` on a file of the folder (``WRITES_LOCK``), which a copy leaves out: the kernel drops it when its
holder dies, so a killed reader or writer never leaves it held. Each holder opens the file itself, so threads of one
process (a LangGraph server's runs, a run's checkpoint written beside its node) exclude each other as processes do;
one thread's nested writes take it once. A reader that is itself inside a write (a writer checking its own copy) takes
nothing: it would wait for itself. A process forked while one of its threads holds the gate (a game's process, forked
as another thread writes a checkpoint) would hold it on with its copy of the descriptor, after the writer let go and
for as long as the game runs: a forked child closes its copies at once (``os.register_at_fork``).
"""

from __future__ import annotations

import fcntl
import logging
import os
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

WRITES_LOCK = ".writes.lock"  # the gate's file in a run folder; copies and listings leave it out
PATIENCE_NOTE = 10.0  # seconds a writer waits for readers before it says whom it waits for
_POLL = 0.01  # seconds between tries while the other side holds the gate

log = logging.getLogger(__name__)
_HELD = threading.local()  # gate file -> how deep this thread is in its writes (re-entrant per thread)
_OPEN: set[int] = set()  # the gate descriptors this process holds open now
_OPEN_LOCK = threading.Lock()


def _close_inherited() -> None:
    """In a forked child: let go of the parent's gates (the parent's own descriptors keep them held)."""
    global _OPEN_LOCK
    for descriptor in _OPEN:
        try:
            os.close(descriptor)
        except OSError:
            pass
    _OPEN.clear()
    _HELD.depth = {}
    _OPEN_LOCK = threading.Lock()  # (the parent's was held across the fork)


# A fork waits for a gate being opened to be recorded, so every descriptor the child has is one it closes (looked up
# at each fork: a child has a lock of its own).
os.register_at_fork(
    before=lambda: _OPEN_LOCK.acquire(), after_in_parent=lambda: _OPEN_LOCK.release(), after_in_child=_close_inherited
)


def _open(path: Path, flags: int) -> int:
    with _OPEN_LOCK:
        descriptor = os.open(path, flags | os.O_CLOEXEC, 0o644)
        _OPEN.add(descriptor)
    return descriptor


def _close(descriptor: int) -> None:
    with _OPEN_LOCK:
        _OPEN.discard(descriptor)
        os.close(descriptor)  # closing drops the lock


def _depth() -> dict[str, int]:
    if not hasattr(_HELD, "depth"):
        _HELD.depth = {}
    depth: dict[str, int] = _HELD.depth
    return depth


def _take(descriptor: int, operation: int, waiting: str, path: Path) -> None:
    """``flock`` ``descriptor``, polled so a long wait can be named once (a reader stopped mid-copy holds the gate
    until it is continued or killed)."""
    started, said = time.monotonic(), False
    while True:
        try:
            fcntl.flock(descriptor, operation | fcntl.LOCK_NB)
            return
        except BlockingIOError:
            pass
        if not said and time.monotonic() - started > PATIENCE_NOTE:
            log.warning("%s %s (%s)", waiting, path.parent.name, path.parent)
            said = True
        time.sleep(_POLL)


class WriteGate:
    """The gate of one run folder (``RunDir.writing`` and ``RunDir.reading`` hand it out)."""

    def __init__(self, folder: Path) -> None:
        self.path = folder / WRITES_LOCK

    @contextmanager
    def writing(self) -> Iterator[None]:
        """Hold the gate exclusively while the block writes the run's files (taken once per thread, however deep)."""
        key, depth = str(self.path), _depth()
        if depth.get(key):
            depth[key] += 1
            try:
                yield
            finally:
                depth[key] -= 1
            return
        descriptor = _open(self.path, os.O_RDWR | os.O_CREAT)
        try:
            _take(descriptor, fcntl.LOCK_EX, "waiting for a reader to finish copying run", self.path)
            depth[key] = 1
            try:
                yield
            finally:
                del depth[key]
        finally:
            _close(descriptor)

    @contextmanager
    def reading(self) -> Iterator[None]:
        """Hold the gate shared while the block copies the run's files, so no write is under way during the copy.
        A folder without the gate's file has no writer that takes it: a run's first write (its run.json) makes the
        file, so it is a run written before gates, or no run yet. A reader never makes it (readers write nothing)."""
        if _depth().get(str(self.path)):
            yield  # this thread is writing the run: nothing else writes it until the block ends
            return
        try:
            descriptor = _open(self.path, os.O_RDONLY)
        except FileNotFoundError:
            yield
            return
        try:
            _take(descriptor, fcntl.LOCK_SH, "waiting for the writer of run", self.path)
            yield
        finally:
            _close(descriptor)
