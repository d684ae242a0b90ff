"""Token accounting: what one model call cost, added up per node.

Provider figures when the reply carries them (``usage_metadata``, with the prompt tokens the provider
served from its cache); otherwise an offline estimate of 4 characters per token (tiktoken would
download its encodings at first use, which fails offline).
"""

from __future__ import annotations

import math
import threading
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from contextvars import ContextVar
from dataclasses import dataclass
from typing import Any
from uuid import UUID

from langchain_core.callbacks import BaseCallbackHandler
from langchain_core.messages import BaseMessage
from langchain_core.outputs import LLMResult
from langchain_core.tracers.context import register_configure_hook

CHARS_PER_TOKEN = 4


def estimate_tokens(text: str) -> int:
    """Offline token estimate for providers that report no usage."""
    return math.ceil(len(text) / CHARS_PER_TOKEN) if text else 0


def message_text(message: BaseMessage) -> str:
    """A message's text with its tool calls' arguments, as a provider would count it."""
    text = message.content if isinstance(message.content, str) else str(message.content)
    calls = getattr(message, "tool_calls", None) or []
    return text + "".join(str(c.get("args", "")) for c in calls)


@dataclass
class Usage:
    """Model calls and tokens; ``cached_tokens`` is the part of the prompt served from the provider's
    prompt cache (a local llama.cpp slot, OpenAI's prompt caching)."""

    calls: int = 0
    prompt_tokens: int = 0
    completion_tokens: int = 0
    cached_tokens: int = 0
    estimated: bool = False

    def add(self, other: Usage) -> Usage:
        return Usage(
            self.calls + other.calls,
            self.prompt_tokens + other.prompt_tokens,
            self.completion_tokens + other.completion_tokens,
            self.cached_tokens + other.cached_tokens,
            self.estimated or other.estimated,
        )

    def to_dict(self) -> dict[str, int]:
        return {
            "calls": self.calls,
            "prompt_tokens": self.prompt_tokens,
            "completion_tokens": self.completion_tokens,
            "cached_tokens": self.cached_tokens,
        }


def usage_from_metadata(metadata: dict[str, Any]) -> Usage:
    details = metadata.get("input_token_details") or {}
    return Usage(
        1,
        int(metadata.get("input_tokens") or 0),
        int(metadata.get("output_tokens") or 0),
        int(details.get("cache_read") or 0),
    )


def usage_of(prompt: Sequence[BaseMessage], reply: BaseMessage) -> Usage:
    """Usage of one call: the provider's ``usage_metadata``, else an offline estimate."""
    metadata = getattr(reply, "usage_metadata", None)
    if metadata:
        return usage_from_metadata(dict(metadata))
    prompt_text = "".join(message_text(m) for m in prompt)
    return Usage(1, estimate_tokens(prompt_text), estimate_tokens(message_text(reply)), estimated=True)


class UsageMeter(BaseCallbackHandler):
    """Adds up :func:`usage_of` every chat-model call that ends while it is the current meter (:func:`metered`)."""

    def __init__(self) -> None:
        self.usage = Usage()
        self._prompts: dict[UUID, list[BaseMessage]] = {}
        self._lock = threading.Lock()  # a library may call the model from its worker threads

    def on_chat_model_start(self, serialized: Any, messages: Any, *, run_id: UUID, **kwargs: Any) -> None:
        self._prompts[run_id] = list(messages[0]) if messages else []

    def on_llm_end(self, response: LLMResult, *, run_id: UUID, **kwargs: Any) -> None:
        prompt = self._prompts.pop(run_id, [])
        generation = response.generations[0][0] if response.generations and response.generations[0] else None
        message = getattr(generation, "message", None)
        if message is not None:
            with self._lock:
                self.usage = self.usage.add(usage_of(prompt, message))


# LangChain hands the current meter to every model call it configures in this context, wherever the call is made
# (inside a library such as Mem0 or LangMem too): registered once, as each registration is kept for the process.
_METER: ContextVar[UsageMeter | None] = ContextVar("ariadne_usage_meter", default=None)
register_configure_hook(_METER, inheritable=True)


@contextmanager
def metered() -> Iterator[UsageMeter]:
    """The model calls made inside, counted: a meter opened inside another counts its calls alone."""
    meter = UsageMeter()
    token = _METER.set(meter)
    try:
        yield meter
    finally:
        _METER.reset(token)
