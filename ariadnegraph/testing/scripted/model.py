"""``ScriptedChatModel``: a deterministic offline chat model that plays every role through the nodes.

It is an ordinary LangChain chat model: ``bind_tools`` binds OpenAI-format tools, so
``with_structured_output`` (tool calling + PydanticToolsParser) and ToolNode loops work unchanged.
The bound tools tell it its role: a schema tool (Belief, Extraction, ...) means "answer with one call
of it"; KG tools mean "world-model QA"; no tools means "answer in text". It reads only the messages
(sections of the last human message, its own earlier tool calls and the ToolMessages), keeps no state
between calls, and never sees the game's oracle.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Callable, Sequence
from typing import Any

from langchain_core.callbacks import CallbackManagerForLLMRun
from langchain_core.language_models import BaseChatModel
from langchain_core.messages import AIMessage, BaseMessage, HumanMessage, SystemMessage, ToolMessage
from langchain_core.outputs import ChatGeneration, ChatResult
from langchain_core.utils.function_calling import convert_to_openai_tool
from pydantic import BaseModel

from ... import prompting as p
from ...models.usage import estimate_tokens
from ...nodes.schemas import (
    ActionChoice,
    Belief,
    BeliefExtraction,
    CommandChoice,
    Critique,
    Decision,
    EntityFocus,
    Expansion,
    ExplorationCheck,
    Extraction,
    GoalPlan,
    Importance,
    Insights,
    Outdated,
    ParagraphSummary,
    Plan,
    ReasonedCritique,
    SafetyVerdict,
    SpatialBelief,
    TrajectorySummary,
    TransitionExtraction,
    TransitionPrediction,
    Weighing,
    WorkedOut,
)
from ...prompting import parse_sections
from . import beliefs, brain, generative, memagents, memqa, plans, policy, qa, questions

# The protocol the double plugs in by: a structured call binds its schema as the one tool, named after the
# schema's class (models.structured); a schema with a rule here is answered by the rule, from the prompt's
# sections; any other schema gets a form filled from them (_form). A node with a new schema adds its rule here.
RULES: dict[type[BaseModel], Callable[[dict[str, str]], BaseModel]] = {
    Belief: beliefs.believe,
    Extraction: beliefs.extraction,
    BeliefExtraction: beliefs.extraction,
    Outdated: beliefs.outdated,
    SpatialBelief: beliefs.spatial,
    Plan: policy.plan,
    Decision: policy.decide,
    Critique: brain.critique,
    ActionChoice: policy.choose,
    CommandChoice: lambda s: CommandChoice(action=policy.choose(s).action),
    ExplorationCheck: brain.exploration_check,
    TransitionPrediction: brain.predict,
    SafetyVerdict: brain.safety,
    EntityFocus: brain.focus,
    Expansion: brain.expand,
    TrajectorySummary: beliefs.summarize_trajectory,
    ParagraphSummary: beliefs.summarize_paragraphs,
    TransitionExtraction: beliefs.transition_extraction,
    ReasonedCritique: brain.reasoned_critique,
    Importance: generative.importance,
    GoalPlan: plans.goal_plan,
    Insights: generative.insights,
    WorkedOut: questions.work_out,
    Weighing: questions.weigh,
}
ROLES = {schema.__name__: (schema, rule) for schema, rule in RULES.items()}  # by the bound tool's name


def _text(message: BaseMessage) -> str:
    content = message.content if isinstance(message.content, str) else json.dumps(message.content, default=str)
    calls = getattr(message, "tool_calls", None) or []
    return content + "".join(json.dumps(c.get("args", {}), sort_keys=True, default=str) for c in calls)


def _call_id(seed: str, index: int) -> str:
    return "call_" + hashlib.sha1(f"{seed}|{index}".encode()).hexdigest()[:16]


def _tool_name(tool: Any) -> str | None:
    if isinstance(tool, dict):
        return (tool.get("function") or {}).get("name") or tool.get("name")
    return getattr(tool, "name", None)


def _sections(messages: Sequence[BaseMessage]) -> dict[str, str]:
    """Sections of the last human message that has any (retry and final-answer nudges have none).
    The system prompt is never read for them: everything the double decides from is a declared section (but for
    whether an answer format came with a question: :func:`_system`)."""
    for message in reversed(messages):
        if isinstance(message, HumanMessage):
            found = parse_sections(message.content if isinstance(message.content, str) else str(message.content))
            if found:
                return found
    return {}


def _system(messages: Sequence[BaseMessage]) -> str:
    """The system message's text: where the ask graph puts a question's answer format (memory QA's rules)."""
    return next((_text(m) for m in messages if isinstance(m, SystemMessage)), "")


def _tool_results(messages: Sequence[BaseMessage]) -> tuple[list[qa.ToolResult], int]:
    """Tool calls this model made earlier in the conversation, with their answers; and how many turns."""
    calls: dict[str, tuple[str, dict]] = {}
    turns = 0
    results = []
    for message in messages:
        if isinstance(message, AIMessage) and message.tool_calls:
            turns += 1
            for call in message.tool_calls:
                calls[call.get("id") or ""] = (call["name"], dict(call.get("args") or {}))
        elif isinstance(message, ToolMessage):
            name, args = calls.get(message.tool_call_id, (message.name or "tool", {}))
            content = message.content if isinstance(message.content, str) else json.dumps(message.content, default=str)
            results.append(qa.ToolResult(name, args, content))
    return results, turns


class ScriptedChatModel(BaseChatModel):
    """Deterministic offline model for every role (see module doc).

    ``malformed_replies``: the first N structured replies of a conversation carry invalid arguments
    (counted from the model's own earlier replies in it), to exercise parse-and-retry.
    ``tool_turns``: at most this many tool-calling turns in a QA conversation before answering.
    """

    malformed_replies: int = 0
    tool_turns: int = 2

    @property
    def _llm_type(self) -> str:
        return "scripted"

    @property
    def _identifying_params(self) -> dict[str, Any]:
        return {"malformed_replies": self.malformed_replies, "tool_turns": self.tool_turns}

    def bind_tools(self, tools: Sequence[Any], *, tool_choice: Any = None, **kwargs: Any):
        formatted = [convert_to_openai_tool(t) for t in tools]
        return self.bind(tools=formatted, tool_choice=tool_choice, **kwargs)

    def _generate(
        self,
        messages: list[BaseMessage],
        stop: list[str] | None = None,
        run_manager: CallbackManagerForLLMRun | None = None,
        **kwargs: Any,
    ) -> ChatResult:
        names = [n for n in (_tool_name(t) for t in kwargs.get("tools") or []) if n]
        seed = hashlib.sha1("".join(_text(m) for m in messages).encode()).hexdigest()
        role = next((n for n in names if n in ROLES), None)
        if role is not None:
            reply = self._structured(role, messages, seed)
        elif memagents.writes_langmem(kwargs.get("tools") or []):
            reply = memagents.langmem_memories(messages, lambda i: _call_id(seed, i))
        elif len(names) == 1 and kwargs.get("tool_choice") == "any":
            reply = self._form(kwargs["tools"][0], messages, seed)
        elif names:
            required = kwargs.get("tool_choice") in ("any", "required")
            reply = self._qa(messages, set(names), seed, required)
        else:
            reply = self._plain(messages)
        in_tokens = estimate_tokens("".join(_text(m) for m in messages))
        out_tokens = estimate_tokens(_text(reply))
        reply.usage_metadata = {
            "input_tokens": in_tokens,
            "output_tokens": out_tokens,
            "total_tokens": in_tokens + out_tokens,
        }
        return ChatResult(generations=[ChatGeneration(message=reply)])

    # -- roles ---------------------------------------------------------------------------------
    def _structured(self, role: str, messages: Sequence[BaseMessage], seed: str) -> AIMessage:
        schema, decide = ROLES[role]
        earlier = sum(1 for m in messages if isinstance(m, AIMessage))
        if earlier < self.malformed_replies:
            args: dict[str, Any] = {name: {"invalid": True} for name in schema.model_fields}
        else:
            args = decide(_sections(messages)).model_dump()
        return AIMessage(
            content="", tool_calls=[{"name": role, "args": args, "id": _call_id(seed, 0), "type": "tool_call"}]
        )

    def _form(self, tool: dict[str, Any], messages: Sequence[BaseMessage], seed: str) -> AIMessage:
        """A form the double has no role for (e.g. a declared thought node): every text field gets the
        first line of the section whose name shares a word with the field, else of the last section;
        an enum field its first choice. Generic on purpose: it proves the plumbing, not the thinking."""
        sections = _sections(messages)
        function = tool.get("function") or {}
        properties = (function.get("parameters") or {}).get("properties") or {}
        last = next(reversed(sections.values()), "") if sections else ""
        args: dict[str, Any] = {}
        for name, prop in properties.items():
            if prop.get("enum"):
                args[name] = prop["enum"][0]
                continue
            words = set(name.lower().split("_"))
            source = next((body for title, body in sections.items() if words & set(title.lower().split())), last)
            limit = prop.get("maxLength") or 200
            args[name] = (f"(scripted) {' '.join(source.split())}")[:limit]
        return AIMessage(
            content="",
            tool_calls=[
                {"name": function.get("name", "form"), "args": args, "id": _call_id(seed, 0), "type": "tool_call"}
            ],
        )

    def _qa(self, messages: Sequence[BaseMessage], available: set[str], seed: str, required: bool = False) -> AIMessage:
        sections = _sections(messages)
        results, turns = _tool_results(messages)
        # memory-QA questions (evals.memqa) have their own rules
        rules = memqa if memqa.recognises(sections, _system(messages)) else qa
        calls: list[tuple[str, dict]] = []
        if turns == 0:
            calls = rules.first_calls(sections, available)
        elif turns < (memqa.TOOL_TURNS if rules is memqa else self.tool_turns):
            calls = rules.follow_up_calls(sections, results, available)
        calls = [(n, a) for n, a in calls if n in available]
        if not calls and required:  # a tool call is demanded: the exits are always worth knowing
            calls = [(n, a) for n, a in (("unexplored_exits", {"location": ""}),) if n in available] or [
                (sorted(available)[0], {})
            ]
        if not calls:
            return AIMessage(content=rules.final_answer(sections, results))
        tool_calls = [
            {"name": n, "args": a, "id": _call_id(seed, i), "type": "tool_call"} for i, (n, a) in enumerate(calls)
        ]
        return AIMessage(content="", tool_calls=tool_calls)

    def _plain(self, messages: Sequence[BaseMessage]) -> AIMessage:
        if (facts := memagents.mem0_facts(messages)) is not None:
            return AIMessage(content=facts)
        sections = _sections(messages)
        results, _ = _tool_results(messages)
        if memqa.recognises(sections, _system(messages)):
            return AIMessage(content=memqa.final_answer(sections, results))
        if sections.get(p.DATED_FACTS):
            return AIMessage(content=qa.dated_answer(sections))
        if results or sections.get(p.QUESTION):
            return AIMessage(content=qa.final_answer(sections, results))
        if sections:
            return AIMessage(content="\n".join(f"{k}: {' '.join(v.split())[:200]}" for k, v in sections.items()))
        last = next((m for m in reversed(messages) if isinstance(m, HumanMessage)), None)
        return AIMessage(content=f"(scripted) {' '.join(_text(last).split())[:200]}" if last else "(scripted)")
