"""Chat models: ``"provider:model"`` through ``init_chat_model``, the offline ``scripted`` model, and the
one place where structured outputs are parsed, retried with the error, and finally fall back.

What goes wrong with a provider, and what happens:

* HTTP 429 (honouring Retry-After), 5xx, timeouts, dropped connections: the provider client's own
  retries with backoff (``max_retries``); past them the error reaches the caller and stops the run,
  whose finished steps are already saved (AgentKit issue #6 is what swallowing them costs).
* A reply the client cannot read (a JSON body cut short, an empty choice list): retried here with
  exponential backoff like a dropped connection, then :class:`MalformedReply`.
* A readable reply that breaks the schema: repaired when the JSON is only wrapped (markdown fences,
  prose around it), else sent back with the error (``structured_tries``), then a recorded fallback.
"""

from __future__ import annotations

import functools
import json
import math
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any, Generic, TypeVar

from langchain_core.language_models import BaseChatModel
from langchain_core.exceptions import OutputParserException
from langchain_core.messages import AIMessage, BaseMessage, HumanMessage
from langchain_core.output_parsers.openai_tools import PydanticToolsParser
from langchain_core.utils.json import parse_json_markdown
from pydantic import BaseModel, ValidationError
from tenacity import Retrying, retry_if_exception_type, stop_after_attempt, wait_exponential, wait_random

SCRIPTED = "scripted"
T = TypeVar("T", bound=BaseModel)


class ModelSpecError(ValueError):
    """A model string that names no usable provider."""


class StructuredOutputError(RuntimeError):
    """The model never produced a valid structured reply and no fallback was given."""


class MalformedReply(RuntimeError):
    """The provider answered, but nothing a client can read (body cut short, no choices), even after
    retries."""


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
        for attempt in Retrying(retry=retry_if_exception_type(_UNREADABLE), stop=stop_after_attempt(retries + 1),
                                wait=REPLY_BACKOFF, reraise=True):
            with attempt:
                return runnable.invoke(messages)
    except _UNREADABLE as exc:
        raise MalformedReply(f"the model's reply could not be read after {retries + 1} tries "
                             f"({type(exc).__name__}: {' '.join(str(exc).split())[:120]})") from exc


@functools.lru_cache(maxsize=32)
def load_chat_model(
    spec: str,
    *,
    base_url: str | None = None,
    api_key: str | None = None,
    temperature: float | None = 0.0,
    timeout: float | None = 120.0,
    max_retries: int = 3,
) -> BaseChatModel:
    """``"scripted"`` or ``"provider:model"`` (e.g. ``openai:gpt-4o-mini``); ``base_url`` for any
    OpenAI-compatible server (vLLM, Ollama, llama.cpp). Cached: nodes ask for their model on every
    call, and a new client per call would open a new HTTP connection each time."""
    spec = (spec or SCRIPTED).strip()
    if spec == SCRIPTED:
        from .scripted import ScriptedChatModel

        return ScriptedChatModel()
    provider, _, name = spec.partition(":")
    if not provider or not name:
        raise ModelSpecError(f"model '{spec}' names no provider: use 'provider:model' (e.g. openai:gpt-4o-mini) or 'scripted'")
    from langchain.chat_models import init_chat_model

    options: dict[str, Any] = {"max_retries": max_retries}
    if temperature is not None:
        options["temperature"] = temperature
    if timeout is not None:
        options["timeout"] = timeout
    if base_url:
        options["base_url"] = base_url
    if api_key:
        options["api_key"] = api_key
    try:
        return init_chat_model(name, model_provider=provider, **options)
    except (ImportError, ValueError) as exc:
        raise ModelSpecError(f"cannot load model '{spec}': {' '.join(str(exc).split())[:200]}") from exc


def estimate_tokens(text: str) -> int:
    """Offline token estimate (~4 characters per token) for providers that report no usage."""
    return math.ceil(len(text) / 4) if text else 0


def _message_text(message: BaseMessage) -> str:
    text = message.content if isinstance(message.content, str) else str(message.content)
    calls = getattr(message, "tool_calls", None) or []
    return text + "".join(str(c.get("args", "")) for c in calls)


@dataclass
class Usage:
    """Model calls and tokens, added up per node."""

    calls: int = 0
    prompt_tokens: int = 0
    completion_tokens: int = 0
    estimated: bool = False

    def add(self, other: "Usage") -> "Usage":
        return Usage(
            self.calls + other.calls,
            self.prompt_tokens + other.prompt_tokens,
            self.completion_tokens + other.completion_tokens,
            self.estimated or other.estimated,
        )

    def to_dict(self) -> dict[str, Any]:
        return {"calls": self.calls, "prompt_tokens": self.prompt_tokens, "completion_tokens": self.completion_tokens}


def usage_of(prompt: Sequence[BaseMessage], reply: BaseMessage) -> Usage:
    """Usage of one call: the provider's ``usage_metadata``, else an offline estimate."""
    metadata = getattr(reply, "usage_metadata", None)
    if metadata:
        return Usage(1, int(metadata.get("input_tokens", 0)), int(metadata.get("output_tokens", 0)))
    prompt_text = "".join(_message_text(m) for m in prompt)
    return Usage(1, estimate_tokens(prompt_text), estimate_tokens(_message_text(reply)), estimated=True)


def _structured(model: BaseChatModel, schema: type[T]):
    """``with_structured_output(schema, include_raw=True)``, minus its per-call thread pool.

    For models that keep LangChain's default (tool calling: ``bind_tools`` + a Pydantic tools parser)
    we do the same two steps in-line — 0.2 ms instead of 2 ms a call, paid 4-5 times a step. Models
    with their own implementation (ChatOpenAI's json_schema) keep it.
    """
    if type(model).with_structured_output is not BaseChatModel.with_structured_output:
        return model.with_structured_output(schema, include_raw=True)
    return _ToolCallingStructured(model.bind_tools([schema], tool_choice="any"), schema)


class _ToolCallingStructured:
    def __init__(self, bound, schema: type[BaseModel]) -> None:
        self._bound = bound
        self._parser = PydanticToolsParser(tools=[schema], first_tool_only=True)

    def invoke(self, messages: Sequence[BaseMessage]) -> dict[str, Any]:
        raw = self._bound.invoke(messages)
        try:
            return {"raw": raw, "parsed": self._parser.invoke(raw), "parsing_error": None}
        except (OutputParserException, ValidationError) as exc:
            return {"raw": raw, "parsed": None, "parsing_error": exc}


@dataclass
class StructuredResult(Generic[T]):
    """A parsed reply, or the fallback, with everything needed to account for and trace it."""

    value: T
    usage: Usage
    tries: int
    fell_back: bool = False
    errors: list[str] = field(default_factory=list)
    repaired: bool = False  # the JSON was found inside a wrapped reply (fences, prose)


def rejected_text(exc: ValidationError) -> str:
    """The reply text a schema check rejected (pydantic keeps it when the JSON itself is invalid)."""
    for error in exc.errors():
        if error.get("type") == "json_invalid" and isinstance(error.get("input"), str):
            return error["input"]
    return ""


def repair(schema: type[T], text: str) -> T | None:
    """A reply rejected only because its JSON is wrapped (```json fences, prose around it), read
    anyway; None when there is nothing to repair. Local models served by vLLM or Ollama do this."""
    if not text:
        return None
    try:
        return schema.model_validate(parse_json_markdown(text))
    except (ValueError, ValidationError):
        return None


def call_structured(
    model: BaseChatModel,
    schema: type[T],
    messages: Sequence[BaseMessage],
    *,
    max_tries: int = 3,
    fallback: T | None = None,
    retries: int = 3,
) -> StructuredResult[T]:
    """Ask for ``schema``; on a parse failure send the error back and ask again (AgentKit's
    after-query), up to ``max_tries`` calls; then return ``fallback`` (recorded as such) or raise.
    Unreadable replies are retried first (``retries``, see :func:`invoke_model`)."""
    runnable = _structured(model, schema)
    conversation = list(messages)
    usage = Usage()
    errors: list[str] = []
    for attempt in range(1, max_tries + 1):
        try:
            out = invoke_model(runnable, conversation, retries=retries)
        except ValidationError as exc:
            # ChatOpenAI's default structured output (response_format json_schema) is parsed inside the
            # openai client: a reply that breaks the schema raises here instead of reaching parsing_error.
            text = rejected_text(exc)
            fixed = repair(schema, text)
            if fixed is not None:
                usage = usage.add(usage_of(conversation, AIMessage(content=text)))
                return StructuredResult(fixed, usage, attempt, False, errors, repaired=True)
            out = {"raw": AIMessage(content=text), "parsed": None, "parsing_error": exc}
        raw: BaseMessage = out["raw"]
        usage = usage.add(usage_of(conversation, raw))
        parsed = out.get("parsed")
        if out.get("parsing_error") is None and isinstance(parsed, schema):
            return StructuredResult(parsed, usage, attempt, False, errors)
        error = " ".join(str(out.get("parsing_error") or f"no {schema.__name__} in the reply").split())[:500]
        errors.append(error)
        conversation += [
            AIMessage(content=_message_text(raw) or "(empty reply)"),
            HumanMessage(content=f"Your reply could not be read as {schema.__name__}: {error}\nReply again with a valid {schema.__name__}."),
        ]
    if fallback is None:
        raise StructuredOutputError(f"no valid {schema.__name__} after {max_tries} tries: {errors[-1]}")
    return StructuredResult(fallback, usage, max_tries, True, errors)
