"""Optional API-key auth for the LangGraph server (LangGraph's custom auth hook), and the rule every
run on the server keeps whoever starts it.

Off for local use: with no ``ARIADNE_SERVER_API_KEY`` set every request is let in. With a key set, every
request must carry it as ``x-api-key`` (what ``langgraph_sdk.get_client(api_key=...)`` sends) or as
``Authorization: Bearer <key>``; anything else is refused with 401.

The server's key is its own variable and goes nowhere else: no model request carries it (a provider's
key is that provider's variable, see :func:`ariadnegraph.config.model_api_key`). ``ARIADNE_API_KEY``, which
earlier versions read here and also sent to model providers, is refused rather than ignored: a server
that was protected by it stays closed until the operator renames it.

The long-term Store (langgraph.json ``store``: the operator's ``ARIADNE_STORE``, see server/store.py) is the
operator's, written by ``ariadne memory save`` and ``memory seed-gold`` only: a client reads the agents'
namespaces (``("ariadne", AGENT, FAMILY, "facts" | "lessons" | "transitions")``), which is what a thread started
with ``memory_from`` is seeded with and shown anyway, and nothing else of the file; it writes and deletes nothing,
whatever the namespace (a planted fact would be seeded into later episodes; a row of another namespace would fill
the operator's file). Refusals are 403 with one line, with or without an access key.

Every run is checkpointed synchronously (``durability="sync"``, whatever the client asked for): a step is
never played before the checkpoint of the one before is written, so a database that fails stops the
episode at that step, and the thread continues from it (with the server's default, "async", a thread
played on for steps whose checkpoints were never written).
"""

from __future__ import annotations

import hmac
import os
from typing import Any

from langgraph_sdk import Auth

from ariadnegraph.config import SERVER_API_KEY_ENV, read_env_file
from ariadnegraph.memory.longterm import ROOT as AGENTS_NAMESPACE

RETIRED_ENV = "ARIADNE_API_KEY"

read_env_file()  # the server's folder's .env, under the environment: the key may be kept there
auth = Auth()


def _header(headers: dict, name: str) -> bytes:
    value = headers.get(name.encode()) or headers.get(name) or b""
    return value if isinstance(value, bytes) else str(value).encode("utf-8", "surrogateescape")


def _presented_key(headers: dict) -> bytes:
    """The key a request presents, as bytes (a header that is not UTF-8 is compared as it came, and fails)."""
    bearer = _header(headers, "authorization")
    if bearer[:7].lower() == b"bearer ":
        return bearer[7:].strip()
    return _header(headers, "x-api-key").strip()


@auth.authenticate
async def authenticate(headers: dict) -> Auth.types.MinimalUserDict:
    expected = os.environ.get(SERVER_API_KEY_ENV)
    if not expected:
        if os.environ.get(RETIRED_ENV):
            raise Auth.exceptions.HTTPException(
                status_code=401,
                detail=f"the server's key is read from {SERVER_API_KEY_ENV}; rename {RETIRED_ENV} (no longer read)",
            )
        return {"identity": "local"}
    if not hmac.compare_digest(_presented_key(headers), expected.encode()):
        raise Auth.exceptions.HTTPException(status_code=401, detail="missing or wrong API key")
    return {"identity": "api-key"}


@auth.on.threads.create_run
async def checkpoint_every_step(ctx: Auth.types.AuthContext, value: Auth.types.RunsCreate) -> None:
    kwargs = value.get("kwargs")
    thread = value.get("thread_id")
    # (a stateless run, on a temporary thread, has no checkpointer: nothing to wait for)
    if isinstance(kwargs, dict) and not kwargs.get("temporary") and thread is not None:
        kwargs["durability"] = "sync"
        kwargs["checkpoint_during"] = True
        if kwargs.get("input") is not None:
            await one_episode_per_thread(str(thread), kwargs)


async def one_episode_per_thread(thread: str, kwargs: dict[str, Any]) -> None:
    """A run that brings a new episode's input to a thread whose state (where the run starts) already holds an
    episode is refused (409) before anything is written. LangGraph would merge the input into that state,
    which then names a game and seed the run's files never played, and drop the thread's pending step; a
    thread is continued with no input (or a resume), a new episode starts on a new thread."""
    from langgraph_sdk import get_client
    from langgraph_sdk.errors import NotFoundError

    checkpoint = ((kwargs.get("config") or {}).get("configurable") or {}).get("checkpoint_id")
    try:  # the server's own API, in process (the SDK's loopback client, past this auth)
        state = await get_client().threads.get_state(thread, checkpoint_id=checkpoint)
    except NotFoundError:  # a thread created with its run (if_not_exists="create")
        return
    values = state.get("values")
    if isinstance(values, dict) and "observation" in values:
        where = "finished" if values.get("done") else f"at step {values.get('step')}"
        raise Auth.exceptions.HTTPException(
            status_code=409,
            detail=f"thread {thread} already plays run {values.get('run_id')} ({where}): continue it with no input, "
            "or start a new episode on a new thread",
        )


STORE_READ_ONLY = (
    "the long-term Store is the operator's: clients read the agents' namespaces ('ariadne', ...) and write "
    "nothing (ariadne memory save / seed-gold write it)"
)


@auth.on.store(actions=("put", "delete"))
async def store_is_read_only(ctx: Auth.types.AuthContext, value: dict[str, Any]) -> None:
    raise Auth.exceptions.HTTPException(status_code=403, detail=STORE_READ_ONLY)


@auth.on.store(actions=("get", "search", "list_namespaces"))
async def store_reads_the_agents_namespaces(ctx: Auth.types.AuthContext, value: dict[str, Any]) -> None:
    """Reads under the agents' prefix only; a listing or search of the whole Store is narrowed to it."""
    namespace = tuple(value.get("namespace") or ())
    if not namespace and ctx.action in ("search", "list_namespaces"):
        value["namespace"] = (AGENTS_NAMESPACE,)
    elif namespace[:1] != (AGENTS_NAMESPACE,):
        raise Auth.exceptions.HTTPException(status_code=403, detail=STORE_READ_ONLY)
