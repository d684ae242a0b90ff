"""A chat model for tests that answers from a queue and records what it was asked.

LangChain's fake chat models lack ``bind_tools``; this one binds tools like a real model, so
``with_structured_output`` and ToolNode loops run through their real code paths.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from collections.abc import Set as AbstractSet
from types import SimpleNamespace
from typing import Any

from langchain_core.language_models import BaseChatModel
from langchain_core.messages import AIMessage, BaseMessage
from langchain_core.outputs import ChatGeneration, ChatResult
from langchain_core.utils.function_calling import convert_to_openai_tool
from pydantic import PrivateAttr

from ariadnegraph.agent.past import EpisodePast

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


class FakePast(EpisodePast):
    """The index of the episode's past (agent/past.py) over ``records``, but for what a test sets: ``tried``, what was
    tried from wherever the state is (command -> times, the game's last answer); ``played_commands``, every command
    played; ``taken``, the commands played, the latest first. A test may change them between node calls."""

    def __init__(
        self,
        records: Iterable[Any] = (),
        *,
        tried: dict[str, tuple[int, str]] | None = None,
        played_commands: set[str] | None = None,
        taken: list[str] | None = None,
    ) -> None:
        super().__init__(records)
        self.tried, self.played_commands, self.taken = tried, played_commands, taken

    def tried_here(self, state: Any) -> dict[str, tuple[int, str]]:
        return dict(self.tried) if self.tried is not None else super().tried_here(state)

    def played(self) -> AbstractSet[str]:
        return frozenset(self.played_commands) if self.played_commands is not None else super().played()

    def last_played(self, starts: tuple[str, ...]) -> list[str]:
        if self.taken is None:
            return super().last_played(starts)
        return [command for command in self.taken if command.lower().startswith(starts)]


def record_step(session: Any, line: dict[str, Any]) -> None:
    """A step played after the session was made: in its run's trajectory and the index of its past (Session.record)."""
    session.run.append_step(line)
    session.past.add(line)


def fake_session(memory: Any = None, run: Any = None, observation: Any = None, past: Any = None) -> SimpleNamespace:
    """What a node that takes the episode's session reads of it (the memory, the run's files and the index of its
    past, the latest observation), handed in the way graphs/agent.py hands in the live one; an empty memory and a run
    that has played nothing by default."""
    import tempfile

    from ariadnegraph.memory import WorldMemory
    from ariadnegraph.runs import RunDir

    if run is None:
        run = RunDir.create(tempfile.mkdtemp(prefix="ariadne-fake-run-"), "fake", {"run_id": "fake", "env": "cooking:1"})
    return SimpleNamespace(
        memory=memory if memory is not None else WorldMemory(),
        run=run,
        past=past if past is not None else EpisodePast(run.steps()),
        observation=observation,
    )


def view_of(state: dict[str, Any], context: Any = None, session: Any = None) -> Any:
    """The controller's view of ``state`` as a node builds it (nodes/common.controller_view): ``context`` the run's
    (default: the ariadne preset with the test double), ``session`` a fake one over an empty memory by default."""
    from ariadnegraph.agent.context import AgentContext
    from ariadnegraph.nodes.common import controller_view

    return controller_view(state, context or AgentContext(model="scripted", preset="ariadne"), session or fake_session())
