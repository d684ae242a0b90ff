"""The LangGraph server's checkpoints in PostgreSQL: ``langgraph dev --config langgraph.postgres.json``
with ``ARIADNE_CHECKPOINTER=postgres://...`` keeps every thread's checkpoints in that database instead of
the dev server's memory, as ``--checkpointer`` does for ``play`` and ``eval`` (run metadata, trajectory
and memory stay in ``ARIADNE_RUN_DIR``). A LangGraph Platform deployment brings its own PostgreSQL.
Absolute imports: the server loads this file by path."""

from __future__ import annotations

from collections.abc import AsyncIterator
from contextlib import asynccontextmanager

from langgraph.checkpoint.base import BaseCheckpointSaver

from ariadnegraph.config import CHECKPOINTER_ENV, ConfigError, checkpointer_url


@asynccontextmanager
async def postgres_checkpointer() -> AsyncIterator[BaseCheckpointSaver]:
    url = checkpointer_url()
    if url is None:
        raise ConfigError(f"langgraph.postgres.json keeps checkpoints in PostgreSQL: set {CHECKPOINTER_ENV}=postgres://...")
    from langgraph.checkpoint.postgres.aio import AsyncPostgresSaver

    async with AsyncPostgresSaver.from_conn_string(url) as saver:
        await saver.setup()
        yield saver
