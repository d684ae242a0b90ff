"""Run configuration of the agent: one keyword-only dataclass, read by every node through the runtime.

Each field falls back to an environment variable of its upper-cased name prefixed ``ARIADNE_``
(e.g. ``ARIADNE_MODEL``), so a LangGraph server is configured without code edits; Studio renders the
descriptions as a form.
"""

from __future__ import annotations

import os
from dataclasses import MISSING, dataclass, field, fields
from typing import Any

from ..models import is_local
from .presets import PRESETS, Preset, get_preset

TOOL_CALLING = ("auto", "native", "json")


def _setting(description: str, default: Any) -> Any:
    return field(default=default, metadata={"description": description})


def _parse(name: str, text: str, default: Any) -> Any:
    """An ``ARIADNE_*`` value as the field's type (that of its default)."""
    kind = type(default) if isinstance(default, (int, float)) and not isinstance(default, bool) else None
    if kind is None:
        return text
    try:
        return kind(text)
    except ValueError:
        raise ValueError(f"ARIADNE_{name.upper()}={text!r} is not a {kind.__name__}") from None


@dataclass(kw_only=True)
class AgentContext:
    model: str = _setting("Default chat model: 'scripted' (offline) or 'provider:model', e.g. 'openai:gpt-4o-mini'.", "scripted")
    base_url: str | None = _setting("Base URL of an OpenAI-compatible server (vLLM, Ollama, llama.cpp).", None)
    api_key: str | None = _setting("API key for base_url; providers otherwise read their usual variables.", None)
    summarizer_model: str | None = _setting("Override for the summarizer.", None)
    extraction_model: str | None = _setting("Override for the relation retriever (triplet extraction).", None)
    qa_model: str | None = _setting("Override for the world-model QA (inner monologue).", None)
    planner_model: str | None = _setting("Override for the planner.", None)
    critic_model: str | None = _setting("Override for the critic.", None)
    actor_model: str | None = _setting("Override for the actor's fallback choice.", None)
    preset: str = _setting(f"Which agent to run: {', '.join(PRESETS)} (see ariadnegraph/graphs/presets.py).", "ariadne")
    max_replans: int = _setting("Planner calls allowed per step after a rejection or a deviation.", 2)
    qa_turns: int = _setting("Tool turns of the inner monologue per planning (DAVIS used 5).", 5)
    tool_calling: str = _setting("How the inner monologue calls KG tools: 'native' tool calls, 'json' (a json_schema lookup "
                                 "format, for servers and small models without native tool calls), or 'auto' (json for "
                                 "local: models, native otherwise).", "auto")
    structured_tries: int = _setting("Tries per structured reply before the recorded fallback.", 3)
    max_retries: int = _setting("Retries of a failed model request (429, 5xx, timeout, unreadable reply), with backoff.", 3)
    request_timeout: float = _setting("Seconds before a model request times out (then it is retried).", 120.0)
    history_length: int = _setting("Recent steps shown to the planner.", 5)
    search_depth: int = _setting("AriGraph semantic search depth d.", 2)
    search_width: int = _setting("AriGraph semantic search width w.", 5)
    episodic_k: int = _setting("Episodes returned by AriGraph episodic search.", 2)
    memory_facts: int = _setting("Most facts shown to the planner.", 40)
    run_dir: str = _setting("Folder holding one subfolder per run.", "runs")

    def __post_init__(self) -> None:
        for f in fields(self):
            env = os.environ.get(f"ARIADNE_{f.name.upper()}")
            if env is None or getattr(self, f.name) != (f.default if f.default is not MISSING else None):
                continue
            setattr(self, f.name, _parse(f.name, env, f.default))
        if self.preset not in PRESETS:
            raise ValueError(f"unknown preset '{self.preset}' (choose {', '.join(PRESETS)})")
        for name in ("max_replans", "qa_turns", "structured_tries", "history_length", "max_retries"):
            if getattr(self, name) < (1 if name == "structured_tries" else 0):
                raise ValueError(f"{name.replace('_', ' ')} must not be negative, got {getattr(self, name)}")
        if self.tool_calling not in TOOL_CALLING:
            raise ValueError(f"unknown tool calling mode '{self.tool_calling}' (choose {', '.join(TOOL_CALLING)})")
        if not self.request_timeout > 0:
            raise ValueError(f"request timeout must be positive, got {self.request_timeout}")

    @property
    def switches(self) -> Preset:
        """The preset's switches, read by nodes and routing functions."""
        return get_preset(self.preset)

    def effective_qa_turns(self) -> int:
        """Tool turns of the inner monologue: the preset's bound, else ``qa_turns``."""
        turns = self.switches.qa_turns
        return self.qa_turns if turns is None else min(turns, self.qa_turns) if turns else 0

    def tool_mode(self) -> str:
        """'native' or 'json' tool calls for the inner monologue's model."""
        if self.tool_calling != "auto":
            return self.tool_calling
        return "json" if is_local(self.model_for("qa")) else "native"

    def model_for(self, role: str) -> str:
        """The model string a role uses: its override, else the default model."""
        return getattr(self, f"{role}_model", None) or self.model
