"""The LangGraph server's checkpoints in PostgreSQL: ``langgraph dev --config langgraph.postgres.json``
with ``ARIADNE_CHECKPOINTER=postgres://...`` keeps every thread's checkpoints in that database instead of
the dev server's memory, as ``--checkpointer`` does for ``play`` and ``eval`` (run metadata, trajectory
and memory stay in ``ARIADNE_RUN_DIR``). A LangGraph Platform deployment brings its own PostgreSQL.

Connections come from a pool that checks each one before handing it out, so a database that restarted
(every open connection dropped) costs the next checkpoint a new connection, not the server's life; a
database that is down fails the step being saved (the server checkpoints every step before the next one
is played, see ``server.auth``) and the thread continues from its last checkpoint once it is back.
Absolute imports: the server loads this file by path."""

from __future__ import annotations

from collections.abc import AsyncIterator
from contextlib import asynccontextmanager

from langgraph.checkpoint.base import BaseCheckpointSaver

from ariadnegraph.config import CHECKPOINTER_ENV, ConfigError, checkpointer_url

POOL_SIZE = 4
CONNECT_TIMEOUT = 10  # seconds a checkpoint waits for a connection before the step fails


@asynccontextmanager
async def postgres_checkpointer() -> AsyncIterator[BaseCheckpointSaver]:
    url = checkpointer_url()
    if url is None:
        raise ConfigError(
            f"langgraph.postgres.json keeps checkpoints in PostgreSQL: set {CHECKPOINTER_ENV}=postgres://..."
        )
    from langgraph.checkpoint.postgres.aio import AsyncPostgresSaver
    from psycopg.rows import dict_row
    from psycopg_pool import AsyncConnectionPool

    # AsyncPostgresSaver's own connection settings: autocommit, no prepared statements, rows as dicts
    settings = {"autocommit": True, "prepare_threshold": 0, "row_factory": dict_row}
    async with AsyncConnectionPool(
        url,
        min_size=1,
        max_size=POOL_SIZE,
        kwargs=settings,
        timeout=CONNECT_TIMEOUT,
        check=AsyncConnectionPool.check_connection,
        open=False,
    ) as pool:
        await pool.open(wait=True, timeout=CONNECT_TIMEOUT)
        saver = AsyncPostgresSaver(pool)  # type: ignore[arg-type]
        await saver.setup()
        yield saver
