"""What every LLM-backed node does the same way: build the role's prompt, call the model for a
structured reply (parse-and-retry, recorded fallback) and report usage under the node's name."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar

from langchain_core.messages import HumanMessage, SystemMessage
from pydantic import BaseModel

from ..graphs.context import AgentContext
from ..models import call_structured, load_chat_model
from ..prompting import render_sections

T = TypeVar("T", bound=BaseModel)


ROLES = ("summarizer", "extraction", "qa", "planner", "critic", "actor")


def check_models(context: AgentContext) -> None:
    """Load every role's model once, so a bad model string fails before an episode writes anything."""
    for role in ROLES:
        chat_model(context, role)


def chat_model(context: AgentContext, role: str):
    return load_chat_model(context.model_for(role), base_url=context.base_url, api_key=context.api_key,
                           timeout=context.request_timeout, max_retries=context.max_retries)


def ask_structured(
    context: AgentContext,
    *,
    node: str,
    role: str,
    schema: type[T],
    system: str,
    sections: Mapping[str, object],
    fallback: T,
    step: int,
) -> tuple[T, dict[str, Any]]:
    """The parsed reply (or ``fallback``) and the state update that accounts for the call."""
    messages = [SystemMessage(content=system), HumanMessage(content=render_sections(sections))]
    result = call_structured(chat_model(context, role), schema, messages, max_tries=context.structured_tries, fallback=fallback,
                             retries=context.max_retries)
    update: dict[str, Any] = {"usage": {node: result.usage.to_dict()}}
    if result.fell_back:
        update["fallbacks"] = [f"step {step}: {node} used its fallback after {result.tries} tries: {result.errors[-1]}"]
    return result.value, update


def first_line(text: str, limit: int = 160) -> str:
    line = next((l.strip() for l in (text or "").splitlines() if l.strip()), "")
    return line[:limit]


def history_text(history: list[dict[str, Any]] | None, length: int | None, full_text: bool) -> list[str] | str:
    """The recent steps a role reads: ``length`` of them (None: all). Compact: ``action -> first line``
    bullets; full text: ``[step N] > action`` records each followed by the whole observation."""
    records = list(history or [])
    if length is not None:
        records = records[-length:] if length > 0 else []
    if not full_text:
        return [f"{h.get('action') or '(start)'} -> {first_line(h.get('observation', ''))}" for h in records]
    if not records:
        return "(none)"
    return "\n\n".join(f"[step {h.get('step', 0)}] > {h.get('action') or '(start)'}\n{(h.get('observation') or '').strip()}" for h in records)
