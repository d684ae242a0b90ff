"""Tracing: the game step and score on every traced run, and a local export of every model call.

LangSmith (on when its standard variables are set) gets the episode's name, tags and metadata from
the run's config (:mod:`ariadnegraph.play`); :func:`traced_node` adds the step and score each node
ran at, to the node's run and to every model and tool call made inside it.

For users without LangSmith, :class:`CallLog` appends one line per model call to ``calls.jsonl``: the
node and step that made it, the prompt messages, the reply (text and tool calls), token usage (with
the prompt tokens served from the provider's cache) and latency; and one ``{"reply": ...}`` line per
structured reply with its outcome and issues. Lines are written as calls finish, so a killed run
keeps the calls it made. (In LangSmith the outcomes are in each node's output, under ``replies``.)
"""

from __future__ import annotations

import contextvars
import functools
import json
import threading
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any
from uuid import UUID

import langsmith
from langchain_core.callbacks import BaseCallbackHandler
from langchain_core.messages import BaseMessage
from langchain_core.outputs import LLMResult

from .config import is_full_disk
from .models.doubles import model_label


def trace_labels(env: object, seed: object, preset: object, model: object) -> list[str]:
    """The tags a run's traces carry, on the CLI's and the server's runs alike (LangSmith filters by them)."""
    return ["ariadnegraph", f"preset:{preset}", f"env:{env}", *([f"seed:{seed}"] if seed is not None else []),
            f"model:{model}"]  # fmt: skip


_MODEL_RUN_NAME: contextvars.ContextVar[str | None] = contextvars.ContextVar("model_run_name", default=None)


def model_run_name() -> str | None:
    """The name a model call's trace run takes: the caller and the role whose model it uses (``planner (planner)``,
    ``safety_check (critic)``, ``thoughts.gate (planner)``), as :func:`name_model_calls` set it last in this node;
    None outside a node (LangChain's class name stands)."""
    return _MODEL_RUN_NAME.get()


def name_model_calls(name: str) -> None:
    """Name the model calls made next in this node (nodes.common.chat_model, where the caller is known)."""
    _MODEL_RUN_NAME.set(name)


def traced_node(node: Callable[..., Any]) -> Callable[..., Any]:
    """``node`` with the episode's labels on its trace run and on every run inside it: the step and score it ran at,
    the run id, game, seed, preset and model as metadata and tags (the server's runs get no config of the CLI's); the
    names its model calls take (:func:`name_model_calls`) end with it.

    The node's own run already exists when it starts, so its metadata is updated in place; runs made
    inside (model calls, KG tools) inherit the tracing context. Costs a few context-variable reads
    when tracing is off. ``functools.wraps`` keeps the signature LangGraph reads to pass ``runtime``.
    """

    @functools.wraps(node)
    def run(state: dict[str, Any], *args: Any, **kwargs: Any) -> Any:
        context = getattr(kwargs.get("runtime", args[0] if args else None), "context", None)
        preset, model = getattr(context, "preset", None), getattr(context, "model", None)
        labels = {
            "step": state.get("step", 0),
            "score": state.get("score", 0.0),
            **{k: v for k, v in (("run_id", state.get("run_id")), ("env", state.get("env"))) if v is not None},
            **({"seed": state["seed"]} if state.get("seed") is not None else {}),
            **(
                {"preset": preset, "model": model, "model_label": model_label(model or "")}
                if context is not None
                else {}
            ),
        }
        tags = trace_labels(state.get("env"), state.get("seed"), preset, model) if context is not None else []
        current = langsmith.get_current_run_tree()
        if current is not None:
            current.metadata.update(labels)
            current.tags = list(dict.fromkeys([*(current.tags or []), *tags]))
        named = _MODEL_RUN_NAME.set(None)
        try:
            with langsmith.tracing_context(metadata=labels, tags=tags or None):
                return node(state, *args, **kwargs)
        finally:
            _MODEL_RUN_NAME.reset(named)

    return run


def calling_node(metadata: dict[str, Any]) -> str | None:
    """The agent node a call belongs to: the outermost node of its namespace, so a call made inside a
    subgraph a node runs (the world_model_qa monologue's ``think``) is the node's call."""
    namespace = metadata.get("langgraph_checkpoint_ns") or ""
    outermost = namespace.split("|")[0].partition(":")[0]
    return outermost or metadata.get("langgraph_node")


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
            "node": calling_node(metadata),
            # the step label of traced_node (callbacks run in the caller's context)
            "step": (langsmith.get_tracing_context().get("metadata") or {}).get("step"),
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
        record["usage"] = {
            "prompt_tokens": usage.get("input_tokens"),
            "completion_tokens": usage.get("output_tokens"),
            "cached_tokens": (usage.get("input_token_details") or {}).get("cache_read"),
        }
        self._write(record)

    def on_custom_event(self, name: str, data: Any, *, run_id: UUID, **kwargs: Any) -> None:
        """A node's verdict on a structured reply (nodes.common.REPLY_EVENT): one ``reply`` line."""
        if name == "ariadne_reply" and isinstance(data, dict):
            step = (langsmith.get_tracing_context().get("metadata") or {}).get("step")
            self._write({"reply": {"step": step, **data}})

    def on_llm_error(self, error: BaseException, *, run_id: UUID, **kwargs: Any) -> None:
        record = self._open.pop(run_id, None)
        if record is None:
            return
        record["latency_ms"] = round((time.perf_counter() - record.pop("_t0")) * 1000, 2)
        record["error"] = " ".join(f"{type(error).__name__}: {error}".split())[:500]
        self._write(record)

    def _write(self, record: dict[str, Any]) -> None:
        line = json.dumps(record, default=str) + "\n"
        try:
            with self._lock, self.path.open("a") as handle:
                handle.write(line)
        except OSError as exc:
            # LangChain would log a callback's error as a warning and go on; on a full disk the run stops at its
            # next record (a checkpoint, a trajectory line), which says so in one line: this aid's line is let go.
            if not is_full_disk(exc):
                raise
