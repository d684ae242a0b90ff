"""Aggregator: the spatial part of memory as a few plain sentences (STMA's relation aggregator).

For the default preset this is deterministic text from the KG's spatial layer — no model call —
because the map is exact data; presets that reproduce STMA ask a model instead.
"""

from __future__ import annotations

from typing import Any

from langgraph.runtime import Runtime

from .. import prompting as p
from ..agent.context import AgentContext
from ..agent.session import Session
from ..agent.state import AgentState
from ..memory import spatial
from .common import ask_structured, environment_section
from .prompts import AGGREGATOR
from .schemas import SpatialBelief


def describe_map(memory) -> str:
    view = memory.current()
    here = spatial.current_location(view)
    lines = []
    if here:
        exits = spatial.exits(view, here)
        known = ", ".join(
            f"{d} to {memory.entity_name(r)}" if r else f"{d} (unexplored)" for d, r in sorted(exits.items())
        )
        lines.append(f"You are in {memory.entity_name(here)}. Exits: {known or 'none known'}.")
    rooms = sorted(memory.entity_name(k) for k in spatial.locations(view) if k != here)
    if rooms:
        lines.append(f"Other known places: {', '.join(rooms)}.")
    carried = [f.subject for f in view.find(object_key="inventory") if f.relation == "in"]
    if carried:
        lines.append(f"You carry: {', '.join(carried)}.")
    return " ".join(lines)


def aggregator(state: AgentState, runtime: Runtime[AgentContext], session: Session) -> dict[str, Any]:
    context = runtime.context
    if context.switches.aggregator == "llm":  # STMA's relation aggregator: the retrieved subgraph in words
        sections = {
            p.ENVIRONMENT: environment_section(state),
            p.MEMORY: state.get("memory_text") or [],
            p.LOCATION: state.get("location") or p.UNKNOWN,
        }
        belief, update = ask_structured(
            context,
            node="aggregator",
            schema=SpatialBelief,
            system=AGGREGATOR,
            sections=sections,
            fallback=SpatialBelief(text=p.NONE),
            step=state.get("step", 0),
        )
        return {"spatial_belief": belief.text, **update}
    memory = session.memory
    return {"spatial_belief": describe_map(memory)}
