"""Approval: a person accepts each command before it is played, replaces it, or stops the episode
(``approve_commands``).

The environment node, before it plays a command, pauses the thread with a LangGraph ``interrupt`` carrying the
step, the command, why it was chosen and the valid commands, and declaring the answers it takes as the interrupt's
``response_schema`` (:data:`RESPONSE_SCHEMA`, which a client such as Studio renders as a form):

- ``"accept"`` or ``{"type": "accept"}``: the agent's command is played;
- ``{"type": "replace", "command": "open fridge"}``: that command is played instead, and the agent plans again;
- ``"stop"`` or ``{"type": "stop"}``: the episode ends here, its result written, no command played.

Anything else is refused: the thread pauses again at the same step with the reason in one line (``error``), and
nothing is played. Approval is the thread's: once a run's context turns it on, it stays on for the thread's later
runs (a resume that names no ``approve_commands``) until one says false. (In the environment node rather than a node
of its own: the node before it, the actor, then keeps a plain edge, which a fork's ``update_state`` can follow
without a runtime.)"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Annotated, Any, Literal

from langgraph.types import interrupt
from pydantic import BaseModel, ConfigDict, Field, TypeAdapter, ValidationError

from ..envs import InvalidCommand, sanitize_command

VALID_SHOWN = 60  # valid commands sent with the question (a Crafter or NetHack list is long)


class Accept(BaseModel):
    """Play the agent's command."""

    model_config = ConfigDict(extra="forbid")
    type: Literal["accept"]


class Replace(BaseModel):
    """Play this command instead of the agent's (the agent then plans again)."""

    model_config = ConfigDict(extra="forbid")
    type: Literal["replace"]
    command: str = Field(min_length=1, max_length=200, examples=["open fridge"])


class Stop(BaseModel):
    """End the episode here: no command is played, the result is written."""

    model_config = ConfigDict(extra="forbid")
    type: Literal["stop"]


ANSWERS = TypeAdapter(Literal["accept", "stop"] | Annotated[Accept | Replace | Stop, Field(discriminator="type")])
RESPONSE_SCHEMA: dict[str, Any] = ANSWERS.json_schema()  # what the interrupt declares it takes
REFUSAL = 'answer \'accept\', \'stop\' or {"type": "replace", "command": "..."}'


@dataclass(frozen=True)
class Decision:
    """What a person's answer decides: the command to play, or that the episode stops (``command`` None)."""

    command: str | None
    replaced: bool = False


def read_decision(answer: Any, proposed: str) -> Decision | str:
    """What a person's answer decides, or the one line saying why it cannot be read."""
    try:
        choice = ANSWERS.validate_python(answer)
    except ValidationError:
        return f"{REFUSAL}; got {answer!r:.80}"
    kind = choice if isinstance(choice, str) else choice.type
    if kind == "accept":
        return Decision(proposed)
    if kind == "stop":
        return Decision(None)
    try:
        command = sanitize_command(choice.command)  # type: ignore[union-attr]  # only Replace is left
    except InvalidCommand as exc:
        return str(exc)
    return Decision(command, replaced=command != proposed)


def approving(state: Mapping[str, Any], setting: bool | None) -> bool:
    """Whether this step asks a person: the run's context says so, else the thread's last word on it."""
    return bool(state.get("approving")) if setting is None else setting


def approved_command(state: Mapping[str, Any]) -> tuple[str | None, dict[str, Any]]:
    """The command to play (the agent's, or the one a person gave instead; None: a person stopped the episode) and
    the state update the answer makes; pauses the thread until a person answers."""
    proposed = state.get("command") or ""  # the agent's
    question: dict[str, Any] = {
        "step": state.get("step", 0) + 1,
        "command": proposed,
        "reason": state.get("reason"),
        "valid": list(state.get("admissible") or [])[:VALID_SHOWN],
    }
    while True:
        decision = read_decision(interrupt(question, response_schema=RESPONSE_SCHEMA), proposed)
        if isinstance(decision, Decision):
            break
        question = {**question, "error": decision}
    if decision.command is None:
        return None, {"done": True, "stopped": True}
    if not decision.replaced:
        return decision.command, {}
    return decision.command, {
        "reason": f"a person's command (the agent chose '{proposed}')",
        "plan": [],
        "needs_plan": True,
        "expected": None,
    }
