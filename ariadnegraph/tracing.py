"""Local trace export: every model call of a run appended to ``calls.jsonl`` in its run directory.

For users without LangSmith: each line holds the node that made the call, the prompt messages, the
reply (text and tool calls), token usage and latency. Lines are written as calls finish, so a killed
run keeps the calls it made.
"""

from __future__ import annotations

import json
import threading
import time
from pathlib import Path
from typing import Any
from uuid import UUID

from langchain_core.callbacks import BaseCallbackHandler
from langchain_core.messages import BaseMessage
from langchain_core.outputs import LLMResult

CALLS_FILE = "calls.jsonl"


def _message(message: BaseMessage) -> dict[str, Any]:
    data: dict[str, Any] = {"role": message.type, "content": message.content}
    tool_calls = getattr(message, "tool_calls", None)
    if tool_calls:
        data["tool_calls"] = [{"name": c["name"], "args": c["args"]} for c in tool_calls]
    return data


class CallLog(BaseCallbackHandler):
    """A callback handler that appends one JSON line per chat-model call to ``path``."""

    def __init__(self, path: str | Path) -> None:
        self.path = Path(path)
        self._open: dict[UUID, dict[str, Any]] = {}
        self._lock = threading.Lock()

    def on_chat_model_start(self, serialized, messages, *, run_id: UUID, metadata=None, **kwargs: Any) -> None:
        metadata = metadata or {}
        self._open[run_id] = {
            "node": metadata.get("langgraph_node"),
            "model": (serialized or {}).get("name") or metadata.get("ls_model_name"),
            "prompt": [_message(m) for m in (messages[0] if messages else [])],
            "started": time.time(),
            "_t0": time.perf_counter(),
        }

    def on_llm_end(self, response: LLMResult, *, run_id: UUID, **kwargs: Any) -> None:
        record = self._open.pop(run_id, None)
        if record is None:
            return
        generation = response.generations[0][0] if response.generations and response.generations[0] else None
        message = getattr(generation, "message", None)
        usage = getattr(message, "usage_metadata", None) or {}
        record["latency_ms"] = round((time.perf_counter() - record.pop("_t0")) * 1000, 2)
        record["reply"] = _message(message) if message is not None else {"content": getattr(generation, "text", "")}
        record["usage"] = {"prompt_tokens": usage.get("input_tokens"), "completion_tokens": usage.get("output_tokens")}
        self._write(record)

    def on_llm_error(self, error: BaseException, *, run_id: UUID, **kwargs: Any) -> None:
        record = self._open.pop(run_id, None)
        if record is None:
            return
        record["latency_ms"] = round((time.perf_counter() - record.pop("_t0")) * 1000, 2)
        record["error"] = " ".join(f"{type(error).__name__}: {error}".split())[:500]
        self._write(record)

    def _write(self, record: dict[str, Any]) -> None:
        line = json.dumps(record, default=str) + "\n"
        with self._lock, self.path.open("a") as handle:
            handle.write(line)
