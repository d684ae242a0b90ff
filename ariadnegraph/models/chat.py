"""Chat models from one string, and the one place a model is invoked.

A spec is ``provider:model`` for ``init_chat_model`` (``openai:gpt-4o-mini``; with ``base_url`` any
OpenAI-compatible server: vLLM, Ollama, llama.cpp), ``local:NAME`` for a model of the local catalogue
served by llama.cpp on loopback (started or reused here), or the name of a test double that a package
registers under the ``ariadnegraph.chat_models`` entry point (``scripted``): the product code never
imports a double.

Provider faults: HTTP 429 (honouring Retry-After), 5xx, timeouts and dropped connections are the
provider client's own retries (``max_retries``); past them the error reaches the caller and stops the
run, whose finished steps are already saved (swallowing them turns an auth error into a hang: AgentKit
issue #6). A reply the client cannot read (a JSON body cut short, no choices) is retried here with
backoff, then :class:`MalformedReply`.
"""

from __future__ import annotations

import functools
import json
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

from langchain_core.language_models import BaseChatModel
from langchain_core.messages import BaseMessage
from tenacity import Retrying, retry_if_exception_type, stop_after_attempt, wait_exponential, wait_random

from ..config import model_api_key
from ..tracing import model_run_name
from .doubles import (  # noqa: F401  (re-exported)
    DOUBLES_ENTRY_POINT,
    NO_MODEL,
    is_no_model,
    model_label,
    test_doubles,
)

LOCAL_PREFIX = "local:"
NO_KEY = "not-needed"  # what a keyless OpenAI-compatible server (Ollama, vLLM, llama.cpp) is sent as a key
DEFAULT_MAX_TOKENS = 512  # a request that names no bound gets this one: no reply runs on unbounded


class ModelSpecError(ValueError):
    """A model string that names no usable provider."""


class MalformedReply(RuntimeError):
    """The provider answered, but nothing a client can read (body cut short, no choices), even after retries."""


# What an OpenAI-compatible client raises on such a reply: the JSON decoder on a cut body, and
# langchain-openai's indexing of the first choice on an empty ``choices`` list.
_UNREADABLE = (json.JSONDecodeError, IndexError)
REPLY_BACKOFF = wait_exponential(multiplier=0.5, max=10.0) + wait_random(0, 0.5)  # seconds: 0.5, 1, 2 ... + jitter


def invoke_model(runnable: Any, messages: Sequence[BaseMessage], *, retries: int = 3) -> Any:
    """``runnable.invoke(messages)``, with unreadable replies retried (exponential backoff with
    jitter, ``retries`` times) and finally raised as one :class:`MalformedReply`.

    tenacity directly rather than ``Runnable.with_retry`` (which wraps it): same policy, without a
    traced wrapper run per call (0.2 ms instead of 0.7 ms a call, paid 4-5 times a step).
    """
    try:
        for attempt in Retrying(
            retry=retry_if_exception_type(_UNREADABLE),
            stop=stop_after_attempt(retries + 1),
            wait=REPLY_BACKOFF,
            reraise=True,
        ):
            with attempt:
                name = model_run_name()  # the node and role calling, as the trace names the call
                return runnable.invoke(messages, {"run_name": name} if name else None)
    except _UNREADABLE as exc:
        raise MalformedReply(
            f"the model's reply could not be read after {retries + 1} tries "
            f"({type(exc).__name__}: {' '.join(str(exc).split())[:120]})"
        ) from exc


def is_local(spec: str | None) -> bool:
    return bool(spec) and (spec or "").strip().startswith(LOCAL_PREFIX)


def local_name(spec: str | None) -> str | None:
    """The local model a ``local:NAME`` spec names (None for any other spec)."""
    return (spec or "").strip()[len(LOCAL_PREFIX) :] if is_local(spec) else None


def pull_pending(spec: str | None) -> bool:
    """Whether ``spec`` names a local model whose weights this machine has not pulled (its first use pulls them)."""
    if (name := local_name(spec)) is None:
        return False
    from .local import get_model
    from .local.weights import weights_state

    return weights_state(get_model(name)) == "no"


def pull_on_first_use(spec: str, progress: Callable[[str], None] = lambda _: None) -> None:
    """Pull a ``local:NAME`` model's weights if this machine has none, once its engine is found usable (nothing for
    any other spec)."""
    if (name := local_name(spec)) is not None:
        from .local import get_model
        from .local.server import prepare

        prepare(get_model(name), progress)


def load_chat_model(
    spec: str,
    *,
    base_url: str | None = None,
    api_key: str | None = None,
    temperature: float | None = 0.0,
    timeout: float | None = 120.0,
    max_retries: int = 3,
    max_tokens: int | None = None,
    slot: int | None = None,
) -> BaseChatModel:
    """The chat model a spec names. ``max_tokens`` bounds every reply (default :data:`DEFAULT_MAX_TOKENS`);
    ``slot`` pins the calls to one prompt-cache slot of a local server (ignored elsewhere)."""
    spec = (spec or "").strip()
    max_tokens = max_tokens or DEFAULT_MAX_TOKENS
    if not spec:
        raise ModelSpecError(
            "no model given: use 'provider:model' (e.g. openai:gpt-4o-mini), 'local:NAME', 'scripted' or 'none'"
        )
    if is_no_model(spec):  # a role that runs under 'none' must have been skipped: a bug, said loudly
        raise ModelSpecError(f"'{NO_MODEL}' is no language model: nothing may call it")
    if is_local(spec):
        from .local import local_base_url, local_slot_locks

        name = local_name(spec) or ""
        return _load(
            f"openai:{name}",
            base_url=local_base_url(name),
            api_key="local",
            temperature=temperature,
            timeout=timeout,
            max_retries=max_retries,
            max_tokens=max_tokens,
            slot=slot,
            slot_locks=local_slot_locks(name),
        )
    if base_url and api_key is None:
        # Another server than the provider's own: never the provider's variable (OPENAI_API_KEY would go to
        # whoever listens at base_url), only the key given for it.
        api_key = model_api_key() or NO_KEY
    return _load(
        spec,
        base_url=base_url,
        api_key=api_key,
        temperature=temperature,
        timeout=timeout,
        max_retries=max_retries,
        max_tokens=max_tokens,
        slot=None,
    )


@functools.lru_cache(maxsize=64)
def _load(
    spec: str,
    *,
    base_url: str | None,
    api_key: str | None,
    temperature: float | None,
    timeout: float | None,
    max_retries: int,
    max_tokens: int | None,
    slot: int | None,
    slot_locks: str | None = None,
) -> BaseChatModel:
    """Cached: nodes ask for their model on every call, and a new client per call would open a new
    HTTP connection each time. ``slot_locks``: a local server's lease folder (``spec`` is then ``openai:NAME`` for
    local model NAME); every request then holds a lease on its slot while in flight (:mod:`.local.slots`)."""
    doubles = test_doubles()
    if spec in doubles:
        return doubles[spec].load()()
    provider, _, name = spec.partition(":")
    if not provider or not name:
        known = ", ".join(["'local:NAME'", *(f"'{d}'" for d in doubles)])
        raise ModelSpecError(
            f"model '{spec}' names no provider: use 'provider:model' (e.g. openai:gpt-4o-mini) or {known}"
        )
    from langchain.chat_models import init_chat_model

    options: dict[str, Any] = {"max_retries": max_retries}
    for key, value in (
        ("temperature", temperature),
        ("timeout", timeout),
        ("base_url", base_url),
        ("api_key", api_key),
        ("max_tokens", max_tokens),
    ):
        if value is not None:
            options[key] = value
    if slot is not None:
        options["extra_body"] = {"id_slot": slot}  # llama.cpp: this slot's KV cache holds the role's last prompt
    if slot_locks is not None:
        import httpx

        from .local import local_reconnect
        from .local.server import SLOTS
        from .local.slots import SlotLeasingTransport

        # a request whose server went away is sent to the one started again in its place
        reconnect = functools.partial(local_reconnect, name)
        options["http_client"] = httpx.Client(
            transport=SlotLeasingTransport(Path(slot_locks), SLOTS, reconnect=reconnect)
        )
    try:
        return init_chat_model(name, model_provider=provider, **options)
    except (
        Exception
    ) as exc:  # a missing package, a bad option, a provider client without credentials (openai.OpenAIError)
        raise ModelSpecError(f"cannot load model '{spec}': {' '.join(str(exc).split())[:200]}") from exc
