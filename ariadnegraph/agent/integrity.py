"""Checking a run's files before anything reads or continues it.

Every file a run holds is read through on a private copy (opening SQLite or Chroma files writes to
them), and the files are compared with each other: the trajectory runs 0, 1, 2, ...; the oracle has
a line for each step; the latest checkpoint is at most one step behind the trajectory (a step is
written just before its checkpoint) and never ahead of it, except by a torn last line, which resume
recovers by replaying the game; the memory verifies (hash chain, vectors) and holds every episode
the checkpoint has passed. A checkpoint that names its history (``trail``) may be further behind: a
fork of the thread (an earlier checkpoint continued) that has not played yet, told apart from lost
checkpoints (a write-ahead log deleted after a kill) by the checkpoints of the history it left, which
reach the recorded steps. Every row of the checkpoints file is read back (``checkpoints.read_through``),
not only the latest. A run that fails is refused with :class:`~ariadnegraph.runs.RunCorrupted` naming
the file; nothing under it is written.
"""

from __future__ import annotations

import sqlite3
import tempfile
from collections.abc import Iterator, Mapping, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ..config import CHECKPOINTER_ENV, DiskFull, checkpointer_url, is_full_disk, redacted
from ..memory import MemoryCorrupted, WorldMemory
from ..memory.world import MEMORY_FILE
from ..runs import (
    CHECKPOINTS_FILE,
    MEMORY_DIR,
    META_FILE,
    ORACLE_FILE,
    TRAJECTORY_FILE,
    RunCorrupted,
    RunDir,
    RunMeta,
    RunNotPlayed,
)
from .checkpoints import checkpointed_histories, in_postgres, latest_values

MEMORY_NAME = f"{MEMORY_DIR}/{MEMORY_FILE}"
LOCAL_CHECKPOINTS = "local_checkpoints"  # run.json key: this run's checkpoints are in its folder (not a server's)


@dataclass(frozen=True)
class RunCheck:
    meta: RunMeta
    recorded: int  # steps in the trajectory
    checkpoint: dict[str, Any] | None  # the latest checkpoint's state
    torn_step: int | None  # a checkpointed step whose trajectory line was torn: resume writes it again
    remembered: int | None  # the memory's newest episode (None: no memory, or none stored yet)
    lost: range | None = None  # recorded steps no checkpoint reaches, let through to be played again (rewind)


_FROM_FILES = object()  # check_run's ``checkpoint`` when it is read from the copy's own files


def check_run(run: RunDir, checkpoint: Any = _FROM_FILES, *, rewind: bool = False) -> RunCheck:
    """Check ``run`` (a copy: this opens its files). Raises RunCorrupted naming the file. ``checkpoint``: the latest
    checkpoint's state as read with the copy (a run whose checkpoints are in PostgreSQL: :func:`copy_checked`).
    ``rewind``: recorded steps past the latest checkpoint that no checkpoint reaches (the newest checkpoints lost) are
    left for resume to go back over, not refused."""
    name = run.run_id
    meta = run.meta()
    trails = [record.get("trail") for record in run.steps()]  # (each step's line, with no more kept than its trail)
    oracle = [record["step"] for record in run.oracle_steps()]
    recorded = len(trails)
    histories = None  # game step -> the trails checkpointed at it (checkpoints.checkpointed_histories)
    # An empty checkpoint file is a writer killed before its first checkpoint: the step counts below
    # decide whether that fits the rest of the run.
    if run.checkpoints_path.is_file() and run.checkpoints_path.stat().st_size > 0:
        _check_sqlite(run, run.checkpoints_path, CHECKPOINTS_FILE)
        histories = checkpointed_histories(run)  # every row read: one garbled inside is named now, not by its reader
    if checkpoint is _FROM_FILES:
        checkpoint = latest_values(run)
    if recorded and meta.get(LOCAL_CHECKPOINTS) and not run.checkpoints_path.is_file():
        raise RunCorrupted(f"run {name}: {CHECKPOINTS_FILE} is missing")
    checkpointed = checkpoint.get("step") if checkpoint and "observation" in checkpoint else None
    if checkpoint is not None and "observation" in checkpoint and type(checkpointed) is not int:
        raise RunCorrupted(f"run {name}: {CHECKPOINTS_FILE} holds a state without a step")
    torn_step, lost = None, None
    if checkpointed is None:
        # Step 0 is written before the first checkpoint; past it, a run whose checkpoints we keep (its file,
        # or PostgreSQL) has one. In PostgreSQL, none usually means another database than the run's was given:
        # continuing would replay the whole episode over the run's files.
        if recorded > 1 and in_postgres(meta):
            given = redacted(checkpointer_url() or "")
            raise RunCorrupted(
                f"run {name}: the PostgreSQL database {given} holds no checkpoint for its {recorded} recorded steps; "
                f"is {CHECKPOINTER_ENV} the database this run was played on "
                f"({(meta.get('checkpoints') or {}).get('url')})?"
            )
        if recorded > 1 and meta.get(LOCAL_CHECKPOINTS):
            # None of a step left at all (the write-ahead log that held them all deleted): told to, resume starts the
            # episode again. Checkpoints of steps whose latest has none is another matter (a value row deleted).
            again = f"; `ariadne play --resume {name} --rewind` plays the episode again from its start, replacing them"
            if histories or not rewind:
                raise RunCorrupted(
                    f"run {name}: {CHECKPOINTS_FILE} holds no checkpoint for the {recorded} recorded steps"
                    f"{'' if histories else again}"
                )
            lost = range(1, recorded)
    elif recorded > checkpointed + 2:
        # A checkpoint that names its history may be a fork of the thread, not yet played: the files keep the
        # history it left until the fork plays its first step, and so do the checkpoints of that history. Recorded
        # steps no checkpoint reaches were checkpointed once and lost (a write-ahead log deleted after a kill):
        # resume would go back and play them again over the recorded ones, so only when told to.
        if histories is None:  # (PostgreSQL: its checkpoints are listed only here, where they are needed)
            histories = checkpointed_histories(run)
        if not (checkpoint or {}).get("trail") or not _reached(trails, histories):
            where = "the PostgreSQL checkpoints" if in_postgres(meta) else CHECKPOINTS_FILE
            if not rewind:
                raise RunCorrupted(
                    f"run {name}: steps {checkpointed + 1}..{recorded - 1} recorded in {TRAJECTORY_FILE} are past the "
                    f"latest checkpoint (step {checkpointed}) and no checkpoint in {where} reaches them; `ariadne play "
                    f"--resume {name} --rewind` goes back to step {checkpointed} and plays on from it, replacing them"
                )
            lost = range(checkpointed + 1, recorded)
    elif recorded <= checkpointed:
        if recorded == checkpointed and run.torn(run.trajectory_path):
            torn_step = checkpointed
        else:
            missing = "is missing" if not run.trajectory_path.exists() else f"lacks steps {recorded}..{checkpointed}"
            raise RunCorrupted(f"run {name}: {TRAJECTORY_FILE} {missing}")
    result = meta.get("result")
    last = recorded - 1 + run.torn(run.trajectory_path)  # (a torn last line is a step resume writes again)
    if isinstance(result, dict) and recorded and result.get("steps") != last:
        # finish writes the result after the last step; a fork that cut the steps drops it (session._rebuild)
        raise RunCorrupted(
            f"run {name}: {META_FILE}'s result is for {result.get('steps')} steps, {TRAJECTORY_FILE} holds {last}"
        )
    if recorded and not run.oracle_path.exists():
        raise RunCorrupted(f"run {name}: {ORACLE_FILE} is missing")
    # a step's oracle line is written just before its trajectory line
    if recorded and not recorded <= len(oracle) <= recorded + 1:
        raise RunCorrupted(f"run {name}: {ORACLE_FILE} holds {len(oracle)} steps for {recorded} recorded")
    remembered = _check_memory(run, recorded, checkpointed)
    return RunCheck(
        meta=meta, recorded=recorded, checkpoint=checkpoint, torn_step=torn_step, remembered=remembered, lost=lost
    )


def _reached(trails: Sequence[str | None], histories: Mapping[int, set[str]]) -> bool:
    """Whether a checkpoint is on the recorded history at its last step, or the one before (a step is recorded just
    before its checkpoint is written)."""
    return any(trails[step] in histories.get(step, ()) for step in range(max(len(trails) - 2, 0), len(trails)))


def _check_memory(run: RunDir, recorded: int, checkpointed: int | None) -> int | None:
    """Check the run's memory against its other files; returns its newest episode (None: none yet)."""
    path = run.memory_path / MEMORY_FILE
    if not path.is_file() or path.stat().st_size == 0 and not path.with_name(MEMORY_FILE + "-wal").is_file():
        if recorded or checkpointed is not None:
            raise RunCorrupted(f"run {run.run_id}: {MEMORY_NAME} is {'missing' if not path.is_file() else 'empty'}")
        return None
    _check_sqlite(run, path, MEMORY_NAME)
    chroma = run.memory_path / "chroma" / "chroma.sqlite3"
    if chroma.is_file():
        _check_sqlite(run, chroma, f"{MEMORY_DIR}/chroma")
    elif chroma.parent.is_dir():  # a memory kept on a Chroma server has no local folder
        raise RunCorrupted(f"run {run.run_id}: {MEMORY_DIR}/chroma/chroma.sqlite3 is missing")
    try:
        with WorldMemory(run.memory_path, check_log=True) as memory:  # the whole chain, a snapshot or not
            last = max(memory.episodes, default=None)
    except MemoryCorrupted as exc:
        raise RunCorrupted(f"run {run.run_id}: {MEMORY_DIR} is damaged ({' '.join(str(exc).split())[:160]})") from None
    # memory_update of step k runs after step k's checkpoint: by step k, every episode before it is stored
    if checkpointed is not None and checkpointed >= 1 and (last is None or last < checkpointed - 1):
        raise RunCorrupted(
            f"run {run.run_id}: {MEMORY_NAME} ends at step {last}, its checkpoint is at step {checkpointed}"
        )
    return last


_SQLITE_HEADER = b"SQLite format 3\x00"


def _check_sqlite(run: RunDir, path: Path, name: str) -> None:
    """A SQLite file is a header and whole pages (a cut or overwritten start is damage even when the
    write-ahead log beside it still holds the pages SQLite would read), and passes SQLite's check."""
    size = path.stat().st_size
    if size == 0:
        if path.with_name(path.name + "-wal").is_file():
            return  # created, and everything still in the write-ahead log (a killed writer)
        raise RunCorrupted(f"run {run.run_id}: {name} is empty")
    with path.open("rb") as handle:
        header = handle.read(100)
    page = int.from_bytes(header[16:18], "big") if len(header) >= 18 else 0
    page = 65536 if page == 1 else page
    if not header.startswith(_SQLITE_HEADER) or page < 512 or size % page:
        raise RunCorrupted(f"run {run.run_id}: {name} is damaged (not a whole SQLite file)")
    try:  # on the copy, with its write-ahead log: the database as the next writer will see it
        connection = sqlite3.connect(path)
        try:
            verdict = connection.execute("PRAGMA quick_check").fetchall()
        finally:
            connection.close()
    except sqlite3.DatabaseError as exc:
        if is_full_disk(exc):  # the check could not write its shared-memory file: no verdict on the run
            raise DiskFull(path) from exc
        verdict = [(str(exc),)]
    if verdict != [("ok",)]:
        raise RunCorrupted(
            f"run {run.run_id}: {name} is damaged "
            f"({' '.join(str(verdict[0][0]).split())[:100] if verdict else 'unreadable'})"
        )


@contextmanager
def checked_copies(run_dir: str | Path, run_ids: Sequence[str], *, played: bool = False) -> Iterator[Path]:
    """A temporary run directory holding checked copies of ``run_ids``: what readers open, so the
    runs' own files are never written (and a damaged run is refused before anything is read). ``played``: the
    reader needs a step the memory has stored (a report, a graph, fidelity): a run cut short during its first step
    is :class:`RunNotPlayed`, which names the run (never the copy's temporary folder) and how to play it."""
    with tempfile.TemporaryDirectory(prefix="ariadne-read-") as root:
        for run_id in run_ids:
            check = copy_checked(RunDir.open(run_dir, run_id), Path(root))
            if check.torn_step is not None:
                raise RunCorrupted(
                    f"run {run_id}: {TRAJECTORY_FILE} ends in a torn line (step {check.torn_step});"
                    f" `ariadne play --resume {run_id}` writes it again"
                )
            if played and (not check.recorded or check.remembered is None):
                raise RunNotPlayed(run_id)
        yield Path(root)


def check_copy(run: RunDir, *, rewind: bool = False) -> RunCheck:
    """Check a run through a throwaway copy (a writer about to continue it; ``rewind``: see ``check_run``)."""
    with tempfile.TemporaryDirectory(prefix="ariadne-check-") as root:
        return copy_checked(run, Path(root), rewind=rewind)


def copy_checked(run: RunDir, root: Path, *, rewind: bool = False) -> RunCheck:
    """Copy ``run`` under ``root`` and check the copy (``rewind``: see ``check_run``). The copy is the run between two
    of its writer's writes; a run whose checkpoints are in PostgreSQL has its latest one read in the same instant (the
    writer writes it under the same gate), not after the files, which may have gone on meanwhile."""
    with run.reading():
        copy = run.copy_to(root)
        if not in_postgres(copy.meta()):
            return check_run(copy, rewind=rewind)
        checkpoint = latest_values(run)
    return check_run(copy, checkpoint, rewind=rewind)
