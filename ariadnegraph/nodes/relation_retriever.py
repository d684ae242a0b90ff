"""Relation retriever: facts (triplets) stated by the observation, read with the belief (STMA §4.2)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from langgraph.runtime import Runtime

from .. import prompting as p
from ..graphs.context import AgentContext
from ..graphs.session import open_session
from ..graphs.state import AgentState
from ..memory import WorldMemory
from .common import ask_structured
from .prompts import RELATION_RETRIEVER
from .schemas import Extraction

KNOWN_FACTS_SHOWN = 30


def extraction_sections(state: Mapping[str, Any], memory: WorldMemory) -> dict[str, object]:
    """What the model reads to extract this observation's facts: the observation with the belief, and the
    known facts about the room the agent was in and what it carries (what this observation may update)."""
    previous_location = memory.location()
    view = memory.current()
    keys = {memory.kg.normalizer.key(name) for name in (previous_location, "inventory", state.get("location")) if name}
    known = sorted({f.id: f for k in keys for f in view.incident(k)}.values(), key=lambda f: f.id)[-KNOWN_FACTS_SHOWN:]
    inventory = state.get("inventory")
    return {
        p.GOAL: state.get("goal", ""),
        p.LOCATION: previous_location or "(none)",
        p.LAST_ACTION: state.get("last_action") or "(none: the episode starts)",
        p.OBSERVATION: state.get("observation", ""),
        # "(nothing)" is a known empty inventory, "(unknown)" an env that does not list it
        p.INVENTORY: "(unknown)" if inventory is None else ", ".join(inventory) or "(nothing)",
        p.BELIEF: state.get("belief", ""),
        p.KNOWN_FACTS: [f"{f.subject}, {f.relation}, {f.object}" for f in known],
    }


def relation_retriever(state: AgentState, runtime: Runtime[AgentContext]) -> dict[str, Any]:
    memory = open_session(runtime.context.run_dir, state, create=False).memory
    extraction, update = ask_structured(runtime.context, node="relation_retriever", role="extraction", schema=Extraction,
                                        system=RELATION_RETRIEVER, sections=extraction_sections(state, memory),
                                        fallback=Extraction(), step=state.get("step", 0))
    return {
        "extraction": [[t.subject, t.relation, t.object] for t in extraction.triplets],
        "outdated": [[t.subject, t.relation, t.object] for t in extraction.outdated],
        **update,
    }
