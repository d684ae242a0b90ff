"""The run's LangGraph checkpoints: one SQLite file per run (``RunDir.checkpoints_path``, the default), or
a PostgreSQL database shared by many runs (``--checkpointer postgres://...`` / ``$ARIADNE_CHECKPOINTER``).

Which one a run uses is decided when it is created and recorded in its run.json (``checkpoints``: the
store and the URL without its password; the run's ``thread_id`` is its checkpoint thread), so a run keeps
its checkpoints where it started; everything else about the run (metadata, trajectory, memory) stays in
its directory.
"""

from __future__ import annotations

import secrets
import sqlite3
from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from typing import Any

from langgraph.checkpoint.base import BaseCheckpointSaver
from langgraph.checkpoint.sqlite import SqliteSaver

from ..config import CHECKPOINTER_ENV, DiskFull, checkpointer_url, is_full_disk, redacted
from ..runs import CHECKPOINTS_FILE, RunCorrupted, RunDir, RunMeta

POSTGRES_TIMEOUT = 10  # seconds to reach the database (and, mid-episode, to get a connection back)
CHECKPOINTS = "checkpoints"  # run.json key: {"store": "postgres", "url": ...}; absent: the run's SQLite file


class CheckpointerUnavailable(RuntimeError):
    """A run keeps its checkpoints in PostgreSQL and none was given, or the database cannot be reached."""


def new_run_checkpoints(run_id: str) -> dict[str, Any]:
    """The run.json entries of a new CLI run: its thread, and where its checkpoints are (PostgreSQL, or
    the run's own SQLite file when no ``checkpoints`` entry is written)."""
    url = checkpointer_url()
    if url is None:
        return {"thread_id": run_id}
    # a thread of its own in the shared database: two run directories may hold runs of the same id
    return {"thread_id": f"{run_id}-{secrets.token_hex(4)}", CHECKPOINTS: {"store": "postgres", "url": redacted(url)}}


def check_checkpointer() -> None:
    """A configured PostgreSQL is reachable (its tables made): checked before a run writes anything."""
    if checkpointer_url() is not None:
        with _postgres("(new run)", {CHECKPOINTS: {}}):
            pass


def checkpoint_thread(meta: RunMeta) -> str:
    """The LangGraph thread the run's checkpoints are under (and that owns the run)."""
    return str(meta.get("thread_id") or meta["run_id"])


def in_postgres(meta: Mapping[str, Any]) -> bool:
    return (meta.get(CHECKPOINTS) or {}).get("store") == "postgres"


@contextmanager
def checkpointer(run: RunDir) -> Iterator[BaseCheckpointSaver]:
    meta = run.meta()
    if in_postgres(meta):
        with _postgres(run.run_id, meta) as saver:
            yield saver
        return
    connection = sqlite3.connect(run.checkpoints_path, check_same_thread=False)
    # WAL without a sync per commit: a checkpoint is in the file (OS cache) before the next node runs,
    # which survives a killed process; only a power loss could drop the last few. A full fsync per
    # node costs more than the rest of the framework's work in a step.
    connection.execute("PRAGMA journal_mode=WAL")
    connection.execute("PRAGMA synchronous=NORMAL")
    try:
        yield SqliteSaver(connection)
    finally:
        connection.close()


@contextmanager
def _postgres(run_id: str, meta: Mapping[str, Any]) -> Iterator[BaseCheckpointSaver]:
    url = checkpointer_url()
    if url is None:
        raise CheckpointerUnavailable(
            f"run {run_id} keeps its checkpoints in PostgreSQL ({meta[CHECKPOINTS].get('url')}): "
            f"give --checkpointer postgres://... or set {CHECKPOINTER_ENV}"
        )
    import psycopg
    from langgraph.checkpoint.postgres import PostgresSaver
    from psycopg.rows import dict_row
    from psycopg_pool import ConnectionPool, PoolTimeout

    # A pool that checks each connection before lending it: a database restarted mid-episode costs the next
    # checkpoint a new connection, not the run (PostgresSaver's own settings: autocommit, no prepared statements).
    pool = ConnectionPool(
        url,
        min_size=1,
        max_size=2,
        timeout=POSTGRES_TIMEOUT,
        check=ConnectionPool.check_connection,
        open=False,
        kwargs={"autocommit": True, "prepare_threshold": 0, "row_factory": dict_row},
    )
    try:
        with psycopg.connect(
            url, autocommit=True, row_factory=dict_row, prepare_threshold=0, connect_timeout=POSTGRES_TIMEOUT
        ) as connection:  # fails at once if unreachable
            PostgresSaver(connection).setup()  # creates the tables once; a no-op after
        pool.open(wait=True, timeout=POSTGRES_TIMEOUT)
        saver = PostgresSaver(pool)  # type: ignore[arg-type]
    except (psycopg.Error, PoolTimeout) as exc:
        pool.close()
        raise CheckpointerUnavailable(
            f"PostgreSQL at {redacted(url)} cannot be used: {' '.join(str(exc).split())[:200]}"
        ) from None
    try:
        yield saver
    finally:
        pool.close()


def latest_values(run: RunDir) -> dict[str, Any] | None:
    """The state of the run's latest checkpoint (None: no checkpoint yet). Opens the file, so call it
    on a reader's copy or as the run's writer; RunCorrupted when the file cannot be read (the page-level
    check is ``integrity.check_run``'s)."""
    meta = run.meta()
    if not in_postgres(meta) and not run.checkpoints_path.is_file():
        return None
    try:
        with checkpointer(run) as saver:
            found = saver.get_tuple({"configurable": {"thread_id": checkpoint_thread(meta), "checkpoint_ns": ""}})
    except CheckpointerUnavailable:
        raise
    except Exception as exc:  # sqlite3.DatabaseError, or a checkpoint blob that does not decode
        if is_full_disk(exc):
            raise DiskFull(run.checkpoints_path) from None
        where = "its PostgreSQL checkpoint" if in_postgres(meta) else CHECKPOINTS_FILE
        raise RunCorrupted(f"run {run.run_id}: {where} is damaged ({' '.join(str(exc).split())[:120]})") from None
    if found is None:
        return None
    values = found.checkpoint.get("channel_values") or {}
    return dict(values)
