"""Actor: grounds the planned action to an admissible command — exact, then close match, then the
model's choice — and expands 'go to <place>' into moves along the KG's map (AriGraph)."""

from __future__ import annotations

import difflib
import re
from typing import Any

from langgraph.runtime import Runtime

from .. import prompting as p
from ..graphs.context import AgentContext
from ..graphs.session import open_session
from ..graphs.state import AgentState
from .common import ask_structured
from .prompts import ACTOR
from .schemas import ActionChoice

_GO_TO = re.compile(r"^\s*(?:go|walk|head|return)\s+(?:to|back to)\s+(?:the\s+)?(.+?)\s*$", re.IGNORECASE)


def ground_exact(action: str, admissible: list[str]) -> str | None:
    wanted = " ".join(action.lower().split())
    for candidate in admissible:
        if candidate.lower() == wanted:
            return candidate
    close = difflib.get_close_matches(wanted, [a.lower() for a in admissible], n=1, cutoff=0.85)
    if close:
        return next(a for a in admissible if a.lower() == close[0])
    return None


def expand_go_to(action: str, state: AgentState, memory) -> list[dict[str, str]] | None:
    """'go to X' as single moves with the room each should reach; None when X is unknown or unreachable."""
    match = _GO_TO.match(action)
    if not match:
        return None
    here = memory.location() or state.get("location")
    moves = memory.path(here, match.group(1)) if here else None
    if moves is None:
        return None
    return [{"action": f"go {direction}", "expected": room} for direction, room in moves]


def actor(state: AgentState, runtime: Runtime[AgentContext]) -> dict[str, Any]:
    context = runtime.context
    plan = list(state.get("plan") or [{"action": "look", "expected": ""}])
    admissible = state.get("admissible") or []
    memory = open_session(context.run_dir, state, create=False).memory
    update: dict[str, Any] = {}
    while plan and (moves := expand_go_to(plan[0]["action"], state, memory)) is not None:
        plan = moves + plan[1:]  # an empty expansion (already there) just drops the step
        if moves:
            break
    plan = plan or [{"action": "look", "expected": ""}]
    step = plan[0]
    command = ground_exact(step["action"], admissible) if admissible else step["action"]
    if command is None:
        sections = {p.PROPOSED_ACTION: step["action"], p.ADMISSIBLE: admissible, p.OBSERVATION: state.get("observation", "")}
        choice, update = ask_structured(context, node="actor", role="actor", schema=ActionChoice, system=ACTOR, sections=sections,
                                        fallback=ActionChoice(action=admissible[0]), step=state.get("step", 0))
        command = ground_exact(choice.action, admissible) or admissible[0]
    return {"proposed": command, "expected": step.get("expected") or None, "plan": plan[1:], **update}
