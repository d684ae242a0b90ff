"""A chat model for tests that answers from a queue and records what it was asked.

LangChain's fake chat models lack ``bind_tools``; this one binds tools like a real model, so
``with_structured_output`` and ToolNode loops run through their real code paths.
"""

from __future__ import annotations

from collections.abc import Callable
from types import SimpleNamespace
from typing import Any

from langchain_core.language_models import BaseChatModel
from langchain_core.messages import AIMessage, BaseMessage
from langchain_core.outputs import ChatGeneration, ChatResult
from langchain_core.utils.function_calling import convert_to_openai_tool
from pydantic import PrivateAttr

Reply = AIMessage | Callable[[list[BaseMessage], list[str]], AIMessage]


def tool_reply(name: str, args: dict[str, Any] | str, call_id: str = "call_1") -> AIMessage:
    """An AIMessage calling ``name``; a str ``args`` is sent raw (to simulate malformed JSON)."""
    if isinstance(args, str):
        return AIMessage(content="", invalid_tool_calls=[{"name": name, "args": args, "id": call_id, "error": "bad json", "type": "invalid_tool_call"}])
    return AIMessage(content="", tool_calls=[{"name": name, "args": args, "id": call_id, "type": "tool_call"}])


class QueuedChatModel(BaseChatModel):
    replies: list[Any]
    repeat_last: bool = False
    _calls: list[dict[str, Any]] = PrivateAttr(default_factory=list)

    @property
    def _llm_type(self) -> str:
        return "queued-test"

    @property
    def calls(self) -> list[dict[str, Any]]:
        return self._calls

    def bind_tools(self, tools, *, tool_choice=None, **kwargs):
        return self.bind(tools=[convert_to_openai_tool(t) for t in tools], tool_choice=tool_choice, **kwargs)

    def _generate(self, messages, stop=None, run_manager=None, **kwargs) -> ChatResult:
        tool_names = [t["function"]["name"] for t in kwargs.get("tools") or []]
        self._calls.append({"messages": list(messages), "tools": tool_names})
        if not self.replies:
            raise AssertionError("the test model ran out of replies")
        reply = self.replies[0] if (self.repeat_last and len(self.replies) == 1) else self.replies.pop(0)
        message = reply(list(messages), tool_names) if callable(reply) else reply
        message = message.model_copy(update={"usage_metadata": {"input_tokens": 10, "output_tokens": 2, "total_tokens": 12}})
        return ChatResult(generations=[ChatGeneration(message=message)])


def structured(schema_name: str, **args: Any) -> AIMessage:
    return tool_reply(schema_name, args)


def fake_session(memory: Any = None, run: Any = None, observation: Any = None) -> SimpleNamespace:
    """What a node that takes the episode's session reads of it (the memory, the run's files, the latest
    observation), handed in the way graphs/agent.py hands in the live one; an empty memory and a run that has played
    nothing by default."""
    import tempfile

    from ariadnegraph.memory import WorldMemory
    from ariadnegraph.runs import RunDir

    if run is None:
        run = RunDir.create(tempfile.mkdtemp(prefix="ariadne-fake-run-"), "fake", {"run_id": "fake", "env": "cooking:1"})
    return SimpleNamespace(memory=memory if memory is not None else WorldMemory(), run=run, observation=observation)
