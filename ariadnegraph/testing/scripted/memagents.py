"""The scripted double as the memory writer of EMemBench's memory agents (evals.memqa.memagents), the role their
libraries give a language model: it keeps every turn it is shown as one memory, word for word. Generic on purpose:
it proves the plumbing (turns in, memories stored and retrieved, the answer read from them), not the extraction.

It reads the library's own prompt: LangMem binds its ``Memory`` tool (one ``content`` string) and puts the
conversation in a ``<session_...>`` block; Mem0 asks for ``{"memory": [{"text": ...}]}`` JSON and puts the turns
under its ``## New Messages`` heading. A turn is a transcript turn (evals.memqa.prompts.render_turn): its
``[step N] > command`` line and the lines after it.
"""

from __future__ import annotations

import json
import re
from collections.abc import Sequence
from typing import Any

from langchain_core.messages import AIMessage, BaseMessage, HumanMessage

LANGMEM_TOOL = "Memory"  # langmem.knowledge.extraction's default schema
_SESSION = re.compile(r"<session_[^>]*>(.*?)</session_[^>]*>", re.DOTALL)
_MEM0_NEW = re.compile(r"^## New Messages\n(.*?)(?=^## |\Z)", re.DOTALL | re.MULTILINE)
_TURN = re.compile(r"^(?:\w+: )?(\[step \d+\] > .*)$")  # Mem0 writes "user: " before a message


def _text(message: BaseMessage) -> str:
    return message.content if isinstance(message.content, str) else json.dumps(message.content, default=str)


def turns_in(text: str) -> list[str]:
    """The transcript turns in ``text``, each from its header line to the next header or blank line."""
    turns: list[list[str]] = []
    for line in text.splitlines():
        header = _TURN.match(line.strip())
        if header:
            turns.append([header.group(1)])
        elif turns and line.strip() and not line.startswith("="):
            turns[-1].append(line.strip())
        elif turns and turns[-1]:
            turns.append([])  # a blank line ends the turn: what follows is not its text
    return ["\n".join(t) for t in turns if t]


def writes_langmem(tools: Sequence[Any]) -> bool:
    """LangMem's memory manager: its ``Memory`` tool is bound (with its patch/remove tools when it has memories)."""
    for tool in tools:
        function = tool.get("function") or {} if isinstance(tool, dict) else {}
        if function.get("name") == LANGMEM_TOOL:
            return "content" in ((function.get("parameters") or {}).get("properties") or {})
    return False


def langmem_memories(messages: Sequence[BaseMessage], call_id: Any) -> AIMessage:
    """One ``Memory`` call per turn of the conversation LangMem shows (its last session block)."""
    human = next(
        (_text(m) for m in reversed(messages) if isinstance(m, HumanMessage) and _SESSION.search(_text(m))), ""
    )
    sessions = _SESSION.findall(human)
    turns = turns_in(sessions[-1]) if sessions else []
    calls = [
        {"name": LANGMEM_TOOL, "args": {"content": turn}, "id": call_id(i), "type": "tool_call"}
        for i, turn in enumerate(turns)
    ]
    return AIMessage(content="" if calls else "nothing to remember", tool_calls=calls)


def mem0_facts(messages: Sequence[BaseMessage]) -> str | None:
    """Mem0's extraction reply for the turns under its ``## New Messages`` heading; None for another prompt."""
    last = next((_text(m) for m in reversed(messages) if isinstance(m, HumanMessage)), "")
    found = _MEM0_NEW.search(last)
    if found is None or "## Existing Memories" not in last:
        return None
    memories = [
        {"id": str(i), "text": turn, "attributed_to": "user"} for i, turn in enumerate(turns_in(found.group(1)))
    ]
    return json.dumps({"memory": memories})
