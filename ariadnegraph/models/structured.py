"""Structured replies: ask for a schema, read whatever comes back, repair what can be repaired, ask
again with the error, and finally fall back — bounded, and every step of it counted.

Two ways to ask:

* OpenAI-compatible servers (OpenAI, vLLM, Ollama, llama.cpp): a ``json_schema`` response format.
  llama.cpp compiles it to a grammar, so a small model cannot write JSON the schema forbids; the
  schema's ``maxLength``/``maxItems`` keep the reply short and the model's ``max_tokens`` bounds it.
* Other chat models (and the offline test double): one forced tool call of the schema.

What a reply can do wrong, and what happens (each is a counted *issue*; each call ends in one
*outcome*: ``parsed``, ``repaired`` without a new call, ``reasked`` after sending the error back, or
``fallback``):

* ``cut``: stopped by the length limit. The part written is read as far as it goes (open strings and
  brackets closed, an unfinished last list item dropped); if that is not a valid reply, the model is
  asked again for a shorter one.
* ``invalid_json``: no JSON in the reply; JSON wrapped in prose or a markdown fence is read anyway.
* ``malformed_json``: JSON that breaks the syntax the way models do (single quotes, a trailing comma,
  an unquoted key, a comment, a raw newline in a string, Python's True/None), read by the ``json-repair``
  library without a new call; what it cannot turn into a valid reply is still sent back.
* ``tool_in_content``: the reply is a tool call written as text (``{"name": ..., "arguments": {...}}``),
  as small local models do; its arguments are read.
* ``schema``: JSON that breaks the schema; sent back with the validation error.
"""

from __future__ import annotations

import json
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any, Generic, TypeVar

import json_repair
from langchain_core.language_models import BaseChatModel
from langchain_core.messages import AIMessage, BaseMessage, HumanMessage
from langchain_core.utils.json import parse_partial_json
from langchain_core.utils.json_schema import dereference_refs
from pydantic import BaseModel, ValidationError

from .chat import invoke_model
from .prompts import EMPTY_REPLY, REASK_CUT, REASK_INVALID
from .usage import Usage, message_text, usage_from_metadata, usage_of

T = TypeVar("T", bound=BaseModel)

# outcomes: exactly one per structured call
PARSED, REPAIRED, REASKED, FALLBACK = "parsed", "repaired", "reasked", "fallback"
OUTCOMES = (PARSED, REPAIRED, REASKED, FALLBACK)
# issues: what went wrong on the way (several per call possible)
CUT, INVALID_JSON, MALFORMED_JSON, TOOL_IN_CONTENT, SCHEMA = (
    "cut",
    "invalid_json",
    "malformed_json",
    "tool_in_content",
    "schema",
)


class StructuredOutputError(RuntimeError):
    """The model never produced a valid structured reply and no fallback was given."""


@dataclass
class StructuredResult(Generic[T]):
    """A parsed reply, or the fallback, with everything needed to account for and trace it."""

    value: T
    usage: Usage
    tries: int
    outcome: str
    issues: Counter = field(default_factory=Counter)
    errors: list[str] = field(default_factory=list)

    @property
    def fell_back(self) -> bool:
        return self.outcome == FALLBACK

    @property
    def repaired(self) -> bool:
        return self.outcome == REPAIRED

    def counts(self) -> dict[str, int]:
        """The outcome and the issues as one counter, the form the agent's state adds up per node."""
        return {self.outcome: 1, **self.issues}


@dataclass
class Reading(Generic[T]):
    """What one reply gave: a value (perhaps repaired), or the problem to send back."""

    value: T | None = None
    repaired: bool = False
    issues: list[str] = field(default_factory=list)
    problem: str = ""


# -- reading JSON out of a reply ---------------------------------------------------------------------
def json_values(text: str) -> list[Any]:
    """Every top-level JSON object or array in ``text``, in order (inside markdown fences, with prose
    or commas between them)."""
    decoder = json.JSONDecoder()
    found, position = [], 0
    while position < len(text):
        if text[position] in "{[":
            try:
                value, end = decoder.raw_decode(text, position)
            except ValueError:
                position += 1
                continue
            found.append(value)
            position = end
        else:
            position += 1
    return found


def first_json_object(text: str) -> Any:
    """The first JSON object or array in ``text`` (inside a markdown fence, or with prose around it)."""
    values = json_values(text)
    if not values:
        raise ValueError("no JSON object in the reply")
    return values[0]


def unwrap_tool_call(data: Any, name: str) -> Any | None:
    """The arguments of a tool call written as JSON (``{"name": X, "arguments": {...}}``, OpenAI's
    ``{"function": {...}}``, a one-item list of either), when it calls ``name`` or names nothing."""
    if isinstance(data, list) and len(data) == 1:
        data = data[0]
    if not isinstance(data, dict):
        return None
    if isinstance(data.get("function"), dict):
        data = data["function"]
    arguments = next((data[k] for k in ("arguments", "parameters", "args", "input") if k in data), None)
    if isinstance(arguments, str):
        try:
            arguments = json.loads(arguments)
        except ValueError:
            return None
    if not isinstance(arguments, dict) or data.get("name", name) != name:
        return None
    return arguments


def _validate(schema: type[T], data: Any) -> T | None:
    try:
        return schema.model_validate(data)
    except ValidationError:
        return None


def _drop_unfinished(data: Any) -> Any:
    """A cut reply's object without the list item that was being written when the cut came: the last
    item of the last field, when that field is a list (a cut free-text field is kept as far as it goes)."""
    if not isinstance(data, dict) or not data:
        return data
    last_key = list(data)[-1]
    value = data[last_key]
    if isinstance(value, list) and value:
        return {**data, last_key: value[:-1]}
    return data


def _error_text(exc: Exception) -> str:
    if isinstance(exc, ValidationError):
        parts = [f"{'.'.join(str(p) for p in e['loc']) or 'reply'}: {e['msg']}" for e in exc.errors()[:4]]
        return "; ".join(parts)
    return " ".join(str(exc).split())[:300]


def repaired_json(text: str) -> Any:
    """The object a malformed JSON reply meant (``json-repair``, from its first brace), or None. The
    first item of a list stands for the reply, as :func:`first_json_object` reads it."""
    if "{" not in text:
        return None
    try:
        value = json_repair.loads(text[text.index("{") :], skip_json_loads=True)
    except Exception:  # the library's own parser failing is a reply it cannot read, nothing more
        return None
    if isinstance(value, list):
        value = value[0] if value else None
    return value if isinstance(value, dict) and value else None


def read_reply(schema: type[T], text: str, *, cut: bool = False) -> Reading[T]:
    """Read ``schema`` from a reply's text: plain JSON, else repaired, else the problem to send back."""
    issues = [CUT] if cut else []
    text = (text or "").strip()
    problem = ""
    try:
        data = json.loads(text)
        plain = True
    except ValueError:
        plain = False
        try:
            data = first_json_object(text)
        except ValueError:
            data = None
    if data is not None:
        try:
            return Reading(schema.model_validate(data), repaired=not plain, issues=issues)
        except ValidationError as exc:
            arguments = unwrap_tool_call(data, schema.__name__)
            fixed = _validate(schema, arguments) if arguments is not None else None
            if fixed is not None:
                return Reading(fixed, repaired=True, issues=[*issues, TOOL_IN_CONTENT])
            problem = _error_text(exc)
    if not plain and not cut and (malformed := repaired_json(text)) is not None:
        # what a strict decoder found, if anything, may be an inner object (a plan's step): the library reads the whole
        for value, extra in ((malformed, []), (unwrap_tool_call(malformed, schema.__name__), [TOOL_IN_CONTENT])):
            fixed = _validate(schema, value) if value is not None else None
            if fixed is not None:
                return Reading(fixed, repaired=True, issues=[*issues, MALFORMED_JSON, *extra])
        if data is None:  # JSON after all, but not the schema's: the model is told which field is wrong
            try:
                schema.model_validate(malformed)
            except ValidationError as exc:
                data, problem = malformed, _error_text(exc)
    if data is not None and not cut:
        return Reading(issues=[*issues, SCHEMA], problem=problem)
    if cut:
        try:
            partial = parse_partial_json(text[text.index("{") :]) if "{" in text else None
        except ValueError:
            partial = None
        fixed = _validate(schema, _drop_unfinished(partial)) if partial is not None else None
        if fixed is not None:
            return Reading(fixed, repaired=True, issues=issues)
        return Reading(issues=issues, problem=REASK_CUT)
    return Reading(
        issues=[*issues, INVALID_JSON],
        problem=f"no JSON object could be read ({' '.join(text.split())[:80] or 'empty reply'})",
    )


# -- asking -----------------------------------------------------------------------------------------
def was_cut(reply: BaseMessage) -> bool:
    """Whether the provider stopped the reply at its length limit (OpenAI: "length"; Anthropic: "max_tokens")."""
    metadata = reply.response_metadata or {}
    return (metadata.get("finish_reason") or metadata.get("stop_reason")) in ("length", "max_tokens")


def speaks_openai(model: BaseChatModel) -> bool:
    """OpenAI-compatible chat models take ``response_format`` json_schema requests."""
    from langchain_openai.chat_models.base import BaseChatOpenAI

    return isinstance(model, BaseChatOpenAI)


def response_format(schema: type[BaseModel]) -> dict[str, Any]:
    """The ``json_schema`` response format of a schema, references inlined (grammar compilers and
    small models both do better on one flat document)."""
    document = dereference_refs(schema.model_json_schema())
    document.pop("$defs", None)
    return {"type": "json_schema", "json_schema": {"name": schema.__name__, "schema": document}}


def ask_with_format(
    model: BaseChatModel, format: dict[str, Any], messages: Sequence[BaseMessage], retries: int
) -> tuple[AIMessage, bool]:
    """An OpenAI-compatible request with a response format: the raw reply and whether the length
    limit cut it (the openai client raises on such a reply; its partial text is kept here)."""
    import openai

    try:
        reply = invoke_model(model.bind(response_format=format), messages, retries=retries)
    except openai.LengthFinishReasonError as exc:  # the client refuses cut replies to a response_format
        completion = exc.completion
        message = completion.choices[0].message if completion.choices else None
        reply = AIMessage(content=(message.content if message else "") or "")
        if completion.usage is not None:
            cached = (
                getattr(completion.usage.prompt_tokens_details, "cached_tokens", 0)
                if completion.usage.prompt_tokens_details
                else 0
            )
            reply.usage_metadata = {
                "input_tokens": completion.usage.prompt_tokens,
                "output_tokens": completion.usage.completion_tokens,
                "total_tokens": completion.usage.total_tokens,
                "input_token_details": {"cache_read": cached or 0},
            }
        return reply, True
    return reply, was_cut(reply)


def _ask_tool(
    model: BaseChatModel, schema: type[BaseModel], messages: list[BaseMessage], retries: int
) -> tuple[AIMessage, bool]:
    reply = invoke_model(model.bind_tools([schema], tool_choice="any"), messages, retries=retries)
    return reply, was_cut(reply)


def _read_tool_reply(schema: type[T], reply: AIMessage, cut: bool) -> Reading[T]:
    calls = [c for c in reply.tool_calls if c.get("name") == schema.__name__]
    if calls:
        try:
            return Reading(schema.model_validate(calls[0].get("args") or {}), issues=[CUT] if cut else [])
        except ValidationError as exc:
            return Reading(issues=[CUT, SCHEMA] if cut else [SCHEMA], problem=_error_text(exc))
    if reply.invalid_tool_calls:
        return read_reply(schema, str(reply.invalid_tool_calls[0].get("args") or ""), cut=cut)
    text = reply.content if isinstance(reply.content, str) else ""
    reading = read_reply(schema, text, cut=cut)
    if reading.value is not None:
        return Reading(
            reading.value,
            repaired=True,
            issues=[*reading.issues, TOOL_IN_CONTENT] if TOOL_IN_CONTENT not in reading.issues else reading.issues,
        )
    return reading


def call_structured(
    model: BaseChatModel,
    schema: type[T],
    messages: Sequence[BaseMessage],
    *,
    max_tries: int = 3,
    fallback: T | None = None,
    retries: int = 3,
) -> StructuredResult[T]:
    """Ask for ``schema``; repair what can be read, else send the problem back and ask again (AgentKit's
    after-query), up to ``max_tries`` calls; then return ``fallback`` (recorded as such) or raise.
    Unreadable replies are retried first (``retries``, see :func:`~ariadnegraph.models.chat.invoke_model`)."""
    openai_style = speaks_openai(model)
    conversation = list(messages)
    usage = Usage()
    issues: Counter = Counter()
    errors: list[str] = []
    for attempt in range(1, max_tries + 1):
        if openai_style:
            reply, cut = ask_with_format(model, response_format(schema), conversation, retries)
            reading = read_reply(schema, reply.content if isinstance(reply.content, str) else "", cut=cut)
        else:
            reply, cut = _ask_tool(model, schema, conversation, retries)
            reading = _read_tool_reply(schema, reply, cut)
        usage = usage.add(usage_of(conversation, reply))
        issues.update(reading.issues)
        if reading.value is not None:
            outcome = REPAIRED if reading.repaired else PARSED if attempt == 1 else REASKED
            return StructuredResult(reading.value, usage, attempt, outcome, issues, errors)
        errors.append(reading.problem)
        conversation += [
            AIMessage(content=message_text(reply) or EMPTY_REPLY),
            HumanMessage(content=REASK_INVALID.format(schema=schema.__name__, problem=reading.problem)),
        ]
    if fallback is None:
        raise StructuredOutputError(f"no valid {schema.__name__} after {max_tries} tries: {errors[-1]}")
    return StructuredResult(fallback, usage, max_tries, FALLBACK, issues, errors)


__all__ = [
    "CUT",
    "FALLBACK",
    "INVALID_JSON",
    "MALFORMED_JSON",
    "OUTCOMES",
    "PARSED",
    "REASKED",
    "REPAIRED",
    "SCHEMA",
    "TOOL_IN_CONTENT",
    "Reading",
    "StructuredOutputError",
    "StructuredResult",
    "ask_with_format",
    "call_structured",
    "first_json_object",
    "read_reply",
    "repaired_json",
    "response_format",
    "speaks_openai",
    "unwrap_tool_call",
    "was_cut",
    "usage_from_metadata",
]
