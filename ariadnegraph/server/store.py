"""The LangGraph server's long-term Store (langgraph.json ``store.path``): the same SQLite file the CLI's
``--memory-from`` and ``ariadne memory`` use (``config.memory_store_path``: ``$ARIADNE_STORE``), so a server
thread with ``memory_from`` in its context is seeded from the namespaces the CLI saved, through
``runtime.store``. Asynchronous (the server's own calls); the agent's nodes, which run in worker
threads, call it synchronously and it hands their calls to the server's event loop. Absolute imports:
the server loads this file by path."""

from __future__ import annotations

from collections.abc import AsyncIterator
from contextlib import asynccontextmanager

from langgraph.store.base import BaseStore
from langgraph.store.sqlite.aio import AsyncSqliteStore

from ariadnegraph.config import memory_store_path, read_env_file

read_env_file()  # the server's folder's .env, under the environment (the store's path may be set there)


@asynccontextmanager
async def long_term_store() -> AsyncIterator[BaseStore]:
    path = memory_store_path()
    path.parent.mkdir(parents=True, exist_ok=True)
    async with AsyncSqliteStore.from_conn_string(str(path)) as store:
        await store.setup()
        yield store
