"""Tool calls for models that do not make native ones.

Small local models, and llama.cpp's server with their chat templates, answer a tool-bound request by
writing the call as JSON in the message text, never as ``tool_calls``. Two answers to that:

* **JSON mode** (``tool_calling="json"``, the default for ``local:`` models): the request carries a
  ``json_schema`` response format with one alternative per tool (``{"tool": "where_is", "entity":
  ...}``) and, when an answer is allowed, ``{"answer": ...}``. Under a grammar the model can only
  write a known tool with its arguments. Earlier calls and their results travel as plain messages.
* **native mode**: tools are bound as usual, and a call written in the content instead of
  ``tool_calls`` is read from there (:func:`calls_in_content`).

Either way the reply becomes an ``AIMessage`` with ``tool_calls``, so the ToolNode and the rest of
the loop do not care which mode ran.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Sequence
from typing import Any

from langchain_core.messages import AIMessage, BaseMessage, HumanMessage, ToolMessage
from langchain_core.tools import BaseTool

from .prompts import JSON_TOOLS, TOOL_RESULT
from .structured import json_values, unwrap_tool_call

UNKNOWN_TOOL = "unknown_tool"  # issue: a call of a tool that does not exist (the tool node refuses it)
REPEATED_LOOKUP = "repeated_lookup"  # issue: a lookup the conversation already holds (the lookups end)
TOOL_KEY = "tool"
ANSWER_KEY = "answer"
ARGUMENT_CHARS = 80  # longest string argument a lookup takes (an entity, a query)


def _call_id(index: int, salt: str) -> str:
    return "call_" + hashlib.sha1(f"{salt}|{index}".encode()).hexdigest()[:16]


def _argument_schema(tool: BaseTool) -> tuple[dict[str, Any], list[str]]:
    schema: Any = tool.tool_call_schema
    document = schema.model_json_schema() if hasattr(schema, "model_json_schema") else dict(schema)
    properties = {}
    for name, spec in (document.get("properties") or {}).items():
        spec = {k: v for k, v in spec.items() if k in ("type", "description", "minimum", "maximum", "enum")}
        if spec.get("type") == "string":
            spec["maxLength"] = ARGUMENT_CHARS
        properties[name] = spec
    return properties, list(document.get("required") or [])


def lookup_format(tools: Sequence[BaseTool], *, allow_answer: bool, answer_chars: int) -> dict[str, Any]:
    """The response format of one JSON-mode turn: call one of ``tools``, or (if allowed) answer."""
    options = []
    for tool in tools:
        properties, required = _argument_schema(tool)
        options.append(
            {
                "type": "object",
                "properties": {TOOL_KEY: {"const": tool.name}, **properties},
                "required": [TOOL_KEY, *required],
            }
        )
    if allow_answer:
        options.append(
            {
                "type": "object",
                "properties": {ANSWER_KEY: {"type": "string", "maxLength": answer_chars}},
                "required": [ANSWER_KEY],
            }
        )
    return {"type": "json_schema", "json_schema": {"name": "MemoryLookup", "schema": {"anyOf": options}}}


def tools_text(tools: Sequence[BaseTool]) -> str:
    """What a JSON-mode model is told about its tools (it never sees the schema of the grammar)."""
    lines = []
    for tool in tools:
        properties, _ = _argument_schema(tool)
        summary = " ".join((tool.description or "").split()).split(". ")[0].rstrip(".")
        lines.append(f"- {tool.name}({', '.join(properties)}): {summary}")
    names = [tool.name for tool in tools]
    example = (
        json.dumps({TOOL_KEY: "where_is", "entity": "knife"})
        if "where_is" in names
        else json.dumps({TOOL_KEY: names[0], **{k: "..." for k in _argument_schema(tools[0])[0]}})
        if names
        else "{}"
    )
    return JSON_TOOLS.format(tools="\n".join(lines), example=example)


def _as_call(data: Any, tool_names: Sequence[str], salt: str, index: int = 0) -> dict[str, Any] | None:
    """A tool call from one JSON object: ``{"tool": X, ...args}`` or ``{"name": X, "arguments": {...}}``."""
    if not isinstance(data, dict):
        return None
    args: Any
    if isinstance(data.get(TOOL_KEY), str):
        name = data[TOOL_KEY]
        args = {k: v for k, v in data.items() if k != TOOL_KEY}
        if isinstance(args.get("arguments"), dict) and len(args) == 1:
            args = args["arguments"]
    elif isinstance(data.get("name"), str) or isinstance(data.get("function"), dict):
        name = data["name"] if isinstance(data.get("name"), str) else str(data["function"].get("name", ""))
        args = unwrap_tool_call(data, name)
        if args is None:
            return None
    else:
        return None
    if name not in tool_names and not args:
        return None  # {"name": "..."} alone is more likely prose-like JSON than a call
    return {"name": name, "args": args, "id": _call_id(index, salt), "type": "tool_call"}


def _calls(text: str, tool_names: Sequence[str]) -> list[dict[str, Any]]:
    """Every tool call written in ``text``: JSON objects (or lists of them) shaped as calls. A call of
    an unknown tool is kept: the tool node answers it with the list of tools, the model's cue to retry."""
    items = [item for value in json_values(text) for item in (value if isinstance(value, list) else [value])]
    return [c for i, item in enumerate(items) if (c := _as_call(item, tool_names, text, i))]


def read_lookup(text: str, tool_names: Sequence[str]) -> AIMessage:
    """A JSON-mode reply as the AIMessage a native tool-calling model would have sent: ``tool_calls``
    for a lookup, else the answer as content (text that is no JSON at all counts as the answer)."""
    calls = _calls(text, tool_names)
    if calls:
        return AIMessage(content=text, tool_calls=calls)
    values = json_values(text)
    answer = values[0].get(ANSWER_KEY) if values and isinstance(values[0], dict) else None
    return AIMessage(content=str(answer if answer is not None else text).strip())


def calls_in_content(reply: AIMessage, tool_names: Sequence[str]) -> AIMessage | None:
    """Native mode: the same reply with the tool calls it wrote as JSON text moved into
    ``tool_calls``; None when it has native calls already or its text holds no call."""
    if reply.tool_calls or not isinstance(reply.content, str) or "{" not in reply.content:
        return None
    calls = _calls(reply.content, tool_names)
    return reply.model_copy(update={"tool_calls": calls}) if calls else None


def attempted_call(text: str) -> bool:
    """Text that tries to call a tool but is no readable call (broken JSON around a "name")."""
    return "{" in text and any(f'"{key}"' in text for key in ("name", TOOL_KEY, "arguments")) and not _calls(text, ())


def _call_text(call: dict[str, Any]) -> str:
    args = ", ".join(f"{k}={json.dumps(v)}" for k, v in (call.get("args") or {}).items())
    return f"{call.get('name')}({args})"


def plain_conversation(messages: Sequence[BaseMessage]) -> list[BaseMessage]:
    """The loop's messages for a model without tool support: its calls as the JSON it wrote, each
    result as a user message naming the call."""
    calls: dict[str, Any] = {}
    plain: list[BaseMessage] = []
    for message in messages:
        if isinstance(message, AIMessage) and message.tool_calls:
            for call in message.tool_calls:
                calls[call.get("id") or ""] = call
            written = [{TOOL_KEY: c["name"], **(c.get("args") or {})} for c in message.tool_calls]
            plain.append(AIMessage(content=json.dumps(written[0] if len(written) == 1 else written)))
        elif isinstance(message, ToolMessage):
            answered: Any = calls.get(message.tool_call_id, {"name": message.name or "tool", "args": {}})
            content = message.content if isinstance(message.content, str) else json.dumps(message.content, default=str)
            plain.append(HumanMessage(content=TOOL_RESULT.format(call=_call_text(answered), result=content)))
        else:
            plain.append(message)
    return plain
