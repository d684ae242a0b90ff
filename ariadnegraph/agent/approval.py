"""Approval: a person accepts or replaces each command before it is played (``approve_commands``).

The environment node, before it plays a command, pauses the thread with a LangGraph ``interrupt``
carrying the step, the command, why it was chosen and the valid commands; the thread continues when the
client resumes it (``Command(resume=...)``): ``"accept"`` (or ``{"accept": true}``) plays the agent's
command, any other text (or ``{"command": "..."}``) is played instead. An answer that is neither pauses
again, saying why. A replaced command leaves the agent's plan behind: the planner is asked for a new
one at the next step. (In the environment node rather than a node of its own: the node before it, the
actor, then keeps a plain edge, which a fork's ``update_state`` can follow without a runtime.)"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from langgraph.types import interrupt

from ..envs import InvalidCommand, sanitize_command

ACCEPT = ("accept", "accepted", "approve", "yes", "y", "ok")
VALID_SHOWN = 60  # valid commands sent with the question (a Crafter or NetHack list is long)


def read_decision(answer: Any, proposed: str) -> tuple[str | None, str | None]:
    """The command a person's answer plays, or why the answer cannot be read."""
    if isinstance(answer, dict):
        if answer.get("accept") is True:
            return proposed, None
        answer = answer.get("command")
    if not isinstance(answer, str) or not answer.strip():
        return None, "answer 'accept', or the command to play instead (text, or {\"command\": ...})"
    if answer.strip().lower() in ACCEPT:
        return proposed, None
    try:
        return sanitize_command(answer), None
    except InvalidCommand as exc:
        return None, str(exc)


def approved_command(state: Mapping[str, Any]) -> tuple[str, dict[str, Any]]:
    """The command to play (the agent's, or the one a person gave instead) and the state update a
    replacement makes; pauses the thread until a person answers."""
    proposed = state.get("command") or ""  # the agent's
    question: dict[str, Any] = {
        "step": state.get("step", 0) + 1,
        "command": proposed,
        "reason": state.get("reason"),
        "valid": list(state.get("admissible") or [])[:VALID_SHOWN],
    }
    while True:
        command, problem = read_decision(interrupt(question), proposed)
        if command is not None:
            break
        question = {**question, "error": problem}
    if command == proposed:
        return command, {}
    return command, {
        "reason": f"a person's command (the agent chose '{proposed}')",
        "plan": [],
        "needs_plan": True,
        "expected": None,
    }
