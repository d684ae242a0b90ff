"""Run configuration of the agent: one keyword-only dataclass, read by every node through the runtime.

What an agent does is its preset's (``switches``); a field here that shadows a preset setting
(``qa_turns``, ``history_length``, ``episodic_k``, ``max_replans``, ``search_depth``, ``search_width``,
``memory_facts``; each named as its switch) is None unless set, and when set it replaces the
preset's value in ``switches``, the one place the two meet: nodes read only ``switches``. Any other
switch is replaced through ``switch_overrides`` (``--set SWITCH=VALUE``), checked against ``Preset``.

Each field not set falls back to an environment variable of its upper-cased name prefixed ``ARIADNE_``
(e.g. ``ARIADNE_MODEL``), so a LangGraph server is configured without code edits; a value set, even the
field's default, is kept (None sets nothing). The dataclass is the
graphs' context schema: Studio renders it as a form (descriptions, choices as ``Literal``s).

Who may choose what: :data:`OPERATOR_SETTINGS` are the server operator's alone (paths, endpoints); a
client's context that changes one is refused (:func:`check_client_settings`). Secrets are never fields:
a context is a client's form, mirrored into run.json, checkpoints and traces (a provider's key comes
from its own variable, or ``ARIADNE_MODEL_API_KEY`` for ``base_url``: :func:`ariadnegraph.config.model_api_key`).
"""

from __future__ import annotations

import functools
import json
import re
from collections.abc import Callable
from dataclasses import dataclass, field, fields, replace
from functools import cache, cached_property
from typing import Any, Literal, get_args, get_origin, get_type_hints

from pydantic import TypeAdapter, ValidationError

from ..config import DEFAULT_RUN_DIR, RUN_DIR_ENV, setting
from ..config import run_dir as run_dir_setting
from ..models import DEFAULT_MODEL, NO_MODEL, is_local, is_no_model
from .presets import PRESETS, Preset, PresetName, get_preset, plays_without_model, without_model
from .switches import check_switches, parse_switches

ToolCalling = Literal["auto", "native", "json"]
TOOL_CALLING: tuple[str, ...] = get_args(ToolCalling)

# The settings a server's clients may not choose: where runs are written and read, and which endpoint
# receives model requests (with the server's credentials). Everything else in the context is a client's choice.
OPERATOR_SETTINGS = ("run_dir", "base_url")
# A client names a built-in thought graph (agentkit/NAME.yaml); a path, which would read a file of the server's, is the
# operator's.
BUILTIN_NAME = re.compile(r"[a-z][a-z0-9_-]{0,40}")
# Bounds a client cannot step outside (a context is also a server's request): (least, most).
RANGES: dict[str, tuple[float, float]] = {
    "max_replans": (0, 10),
    "qa_turns": (0, 20),
    "structured_tries": (1, 10),
    "max_retries": (0, 10),
    "request_timeout": (0.01, 3600),
    "history_length": (0, 100_000),
    "search_depth": (0, 10),
    "search_width": (1, 100),
    "episodic_k": (0, 100),
    "memory_facts": (0, 1000),
}


def _setting(description: str, default: Any, kind: type | None = None, *, operator: bool = False) -> Any:
    metadata: dict[str, Any] = {"description": description, "kind": kind}
    if operator:  # shown read-only in Studio's form; a client that changes it is refused
        metadata["json_schema_extra"] = {"readOnly": True}
    return field(default=default, metadata=metadata)


def _parse(name: str, text: str, default: Any, kind: type | None = None) -> Any:
    """An ``ARIADNE_*`` value as the field's type (``kind``, else that of its default)."""
    kind = kind or (type(default) if isinstance(default, (int, float)) and not isinstance(default, bool) else None)
    if kind is bool:
        if text.strip().lower() not in ("true", "false", "1", "0"):
            raise ValueError(f"ARIADNE_{name.upper()}={text!r} is not true or false")
        return text.strip().lower() in ("true", "1")
    if kind is None:
        return text
    try:
        return kind(text)
    except ValueError:
        raise ValueError(f"ARIADNE_{name.upper()}={text!r} is not a {kind.__name__}") from None


def _described(kind: Any) -> str:
    """A field's type as a client reads it in an error message."""
    args = [a for a in get_args(kind) if a is not type(None)]
    if get_origin(kind) is Literal:
        return "one of " + ", ".join(str(a) for a in args)
    if args and len(args) < len(get_args(kind)):  # X | None
        return f"{_described(args[0])} or null"
    names = {int: "an integer", float: "a number", str: "a string", bool: "true or false"}
    return names.get(kind, "a mapping" if get_origin(kind) is dict else str(kind))


@cache
def _validators() -> dict[str, tuple[Any, TypeAdapter]]:
    hints = get_type_hints(AgentContext)
    return {f.name: (hints[f.name], TypeAdapter(hints[f.name])) for f in fields(AgentContext)}


def _check_types(context: "AgentContext") -> None:
    """Every field holds a value of its declared type (a client's JSON, an env variable, code): one clear
    line naming the setting, never a TypeError deep in a node."""
    for name, (kind, adapter) in _validators().items():
        value = getattr(context, name)
        try:
            adapter.validate_python(value, strict=True)
        except ValidationError:
            raise ValueError(f"context setting '{name}' must be {_described(kind)}, got {value!r:.80}") from None


# Settings that replace a switch of the same name when set (None: the preset's value stands).
SHADOWED_SWITCHES = (
    "qa_turns",
    "history_length",
    "episodic_k",
    "max_replans",
    "search_depth",
    "search_width",
    "memory_facts",
)


@dataclass(kw_only=True)
class AgentContext:
    model: str = _setting(
        "Default chat model: 'local:NAME' (ariadne models list; pulled on first use), 'provider:model', e.g. "
        "'openai:gpt-4o-mini', 'none' (no language model: the controller alone plays, the ariadne preset only), or "
        "'scripted' (the offline rule-based test double, not a language model).",
        DEFAULT_MODEL,
    )
    base_url: str | None = _setting(
        "Base URL of an OpenAI-compatible server (vLLM, Ollama, llama.cpp); its key is "
        "ARIADNE_MODEL_API_KEY. Set by the operator (ARIADNE_BASE_URL) on a server.",
        None,
        operator=True,
    )
    summarizer_model: str | None = _setting("Override for the summarizer.", None)
    extraction_model: str | None = _setting("Override for the relation retriever (triplet extraction).", None)
    qa_model: str | None = _setting("Override for the world-model QA (inner monologue).", None)
    planner_model: str | None = _setting("Override for the planner.", None)
    critic_model: str | None = _setting("Override for the critic.", None)
    actor_model: str | None = _setting("Override for the actor's fallback choice.", None)
    preset: PresetName = _setting("Which agent to run (see ariadnegraph/agent/presets.py).", "ariadne")
    max_replans: int | None = _setting(
        "Planner calls allowed per step after a rejection or a deviation, replacing the preset's (2).", None, int
    )
    qa_turns: int | None = _setting(
        "Tool turns of the inner monologue per planning, replacing the preset's (ariadne and "
        "davis: 5, as DAVIS; 0: no inner monologue).",
        None,
        int,
    )
    tool_calling: ToolCalling = _setting(
        "How the inner monologue calls KG tools: 'native' tool calls, 'json' (a json_schema "
        "lookup format, for servers and small models without native tool calls), or 'auto' "
        "(json for local: models, native otherwise).",
        "auto",
    )
    structured_tries: int = _setting("Tries per structured reply before the recorded fallback.", 3)
    max_retries: int = _setting(
        "Retries of a failed model request (429, 5xx, timeout, unreadable reply), with backoff.", 3
    )
    request_timeout: float = _setting("Seconds before a model request times out (then it is retried).", 120.0)
    history_length: int | None = _setting(
        "Recent steps shown to the deciding roles, replacing the preset's.", None, int
    )
    search_depth: int | None = _setting("AriGraph semantic search depth d, replacing the preset's (2).", None, int)
    search_width: int | None = _setting("AriGraph semantic search width w, replacing the preset's (5).", None, int)
    episodic_k: int | None = _setting(
        "Episodes retrieved (AriGraph episodic search, RAG), replacing the preset's.", None, int
    )
    memory_facts: int | None = _setting("Most facts shown to the planner, replacing the preset's (40).", None, int)
    memory_from: str | None = _setting(
        "Seed the episode's memory with the facts and lessons this agent's namespace of the "
        "long-term store holds for the game's family (ariadne memory show).",
        None,
    )
    approve_commands: bool | None = _setting(
        "Pause before each command is played so a person can accept it, replace it or stop the episode (a "
        "LangGraph interrupt; resume with 'accept', {'type': 'replace', 'command': ...} or 'stop'). Once true it "
        "stays on for the thread's later runs until one says false; unset (null) keeps what the thread had.",
        None,
        bool,
    )
    run_dir: str = _setting(
        f"Folder holding one subfolder per run. Set by the operator ({RUN_DIR_ENV}) on a server.",
        DEFAULT_RUN_DIR,
        operator=True,
    )
    switch_overrides: dict[str, Any] = field(
        default_factory=dict,
        metadata={
            "description": 'Preset switches replaced for this run (--set SWITCH=VALUE), e.g. {"precheck": false}; '
            "ARIADNE_SWITCH_OVERRIDES takes JSON.",
            "kind": None,
        },
    )

    def __post_init__(self) -> None:
        for f in fields(self):
            env = setting(f"ARIADNE_{f.name.upper()}")  # (blank: unset, the default stands)
            if f.name == "run_dir":  # config.run_dir owns this setting (the CLI reads it there too)
                if self.run_dir == DEFAULT_RUN_DIR:
                    self.run_dir = str(run_dir_setting())
                continue
            if env is None or f.name in _given(self):  # a value set (even the default's) beats the environment
                continue
            if f.name == "switch_overrides":
                try:
                    self.switch_overrides = json.loads(env)
                except ValueError:
                    raise ValueError(f"ARIADNE_SWITCH_OVERRIDES={env!r} is not JSON") from None
                continue
            setattr(self, f.name, _parse(f.name, env, f.default, f.metadata.get("kind")))
        if isinstance(self.preset, str) and self.preset not in PRESETS:
            raise ValueError(f"unknown preset '{self.preset}' (choose {', '.join(PRESETS)})")
        if isinstance(self.tool_calling, str) and self.tool_calling not in TOOL_CALLING:
            raise ValueError(f"unknown tool calling mode '{self.tool_calling}' (choose {', '.join(TOOL_CALLING)})")
        if isinstance(self.request_timeout, int) and not isinstance(self.request_timeout, bool):
            self.request_timeout = float(self.request_timeout)  # JSON's 60 is a number of seconds too
        _check_types(self)
        for name, (least, most) in RANGES.items():
            value = getattr(self, name)
            if value is not None and not least <= value <= most:
                raise ValueError(f"{name.replace('_', ' ')} must be between {least:g} and {most:g}, got {value}")
        self.switch_overrides = parse_switches(self.switch_overrides)
        if is_no_model(self.model):
            _check_no_model(self)
        check_switches(self.preset, self._played())  # switches that cannot play as set: refused before any run
        if self.memory_from is not None:
            from ..memory.longterm import check_name

            check_name(self.memory_from)

    @cached_property
    def switches(self) -> Preset:
        """What the agent does: the preset, with the settings given here in its place. Nodes and routing
        functions read only this."""
        return self._played()

    def _played(self) -> Preset:
        given = {name: getattr(self, name) for name in SHADOWED_SWITCHES}
        played = replace(
            get_preset(self.preset), **{**{k: v for k, v in given.items() if v is not None}, **self.switch_overrides}
        )
        return without_model(played) if is_no_model(self.model) else played

    def tool_mode(self) -> str:
        """'native' or 'json' tool calls for the inner monologue's model."""
        if self.tool_calling != "auto":
            return self.tool_calling
        return "json" if is_local(self.model_for("qa")) else "native"

    def model_for(self, role: str) -> str:
        """The model string a role uses: its override, else the default model."""
        return getattr(self, f"{role}_model", None) or self.model


ROLE_MODELS = ("summarizer", "extraction", "qa", "planner", "critic", "actor")  # the roles a model may be set for


def _check_no_model(context: AgentContext) -> None:
    """``--model none`` plays a preset whose controller chooses, and no role has a model of its own beside it."""
    named = [f"{role}_model" for role in ROLE_MODELS if getattr(context, f"{role}_model") is not None]
    if named:
        raise ValueError(f"model '{NO_MODEL}' plays with no language model: {', '.join(named)} cannot be set beside it")
    preset = replace(get_preset(context.preset), **context.switch_overrides)
    if not plays_without_model(preset):
        raise ValueError(
            f"preset '{context.preset}' needs a language model to choose its commands: model '{NO_MODEL}' plays the "
            "presets whose controller proposes them (ariadne)"
        )


_dataclass_init = AgentContext.__init__


@functools.wraps(_dataclass_init)
def _init_noting_what_is_given(self: AgentContext, **given: Any) -> None:
    """The dataclass's ``__init__``, noting which fields the caller set: only the others fall back to their
    ``ARIADNE_*`` variable (``--preset ariadne`` with ``ARIADNE_PRESET=stma`` set plays ariadne). None (and no
    switch overrides) sets nothing: callers pass an option a user left out as None, and its variable applies."""
    chosen = frozenset(name for name, value in given.items() if value is not None and value != {})
    object.__setattr__(self, "_given_fields", chosen)
    _dataclass_init(self, **given)


AgentContext.__init__ = _init_noting_what_is_given  # type: ignore[method-assign]


def _given(context: AgentContext) -> frozenset[str]:
    return getattr(context, "_given_fields", frozenset())


class ClientSettingRefused(ValueError):
    """A server's client set a setting only the operator may set (a ValueError: the server shows its message)."""


def check_client_settings(context: AgentContext) -> None:
    """On a server: the context a client sent leaves :data:`OPERATOR_SETTINGS` as the operator set them
    (``ARIADNE_*`` variables, read by a context built with nothing given), and names no file of the
    server's: a thought graph is one of the built-in ones, by name (a path would read any file there)."""
    operator = AgentContext()
    for name in OPERATOR_SETTINGS:
        if getattr(context, name) != getattr(operator, name):
            raise ClientSettingRefused(
                f"'{name}' is the server's setting (ARIADNE_{name.upper()}); a client cannot set it"
            )
    thoughts = context.switch_overrides.get("thoughts")
    if thoughts is not None and not BUILTIN_NAME.fullmatch(thoughts):
        raise ClientSettingRefused(
            f"switch 'thoughts' takes the name of a built-in thought graph on a server (e.g. 'crafter'), got "
            f"{thoughts!r:.80}"
        )


def checked_for_clients(node: Callable[..., Any]) -> Callable[..., Any]:
    """``node`` as a served graph runs it: the client's context is checked before the node does anything
    (any node may be the first a run executes: a paused thread resumes at the next one, with the context
    its client sends then). ``functools.wraps`` keeps the signature LangGraph reads to pass ``runtime``."""

    @functools.wraps(node)
    def run(state: Any, runtime: Any, *args: Any, **kwargs: Any) -> Any:
        check_client_settings(runtime.context)
        return node(state, runtime, *args, **kwargs)

    return run
