"""Relation retriever: facts (triplets) stated by the observation, read with the belief (STMA §4.2)."""

from __future__ import annotations

from typing import Any

from langgraph.runtime import Runtime

from .. import prompting as p
from ..graphs.context import AgentContext
from ..graphs.session import open_session
from ..graphs.state import AgentState
from .common import ask_structured
from .prompts import RELATION_RETRIEVER
from .schemas import Extraction

KNOWN_FACTS_SHOWN = 30


def relation_retriever(state: AgentState, runtime: Runtime[AgentContext]) -> dict[str, Any]:
    memory = open_session(runtime.context.run_dir, state, create=False).memory
    previous_location = memory.location()
    view = memory.current()
    # Facts about the room the agent was in and what it carries: what this observation may update.
    keys = {memory.kg.normalizer.key(name) for name in (previous_location, "inventory", state.get("location")) if name}
    known = sorted({f.id: f for k in keys for f in view.incident(k)}.values(), key=lambda f: f.id)[-KNOWN_FACTS_SHOWN:]
    sections = {
        p.GOAL: state.get("goal", ""),
        p.LOCATION: previous_location or "(none)",
        p.LAST_ACTION: state.get("last_action") or "(none: the episode starts)",
        p.OBSERVATION: state.get("observation", ""),
        # "(nothing)" is a known empty inventory, "(unknown)" an env that does not list it
        p.INVENTORY: "(unknown)" if state.get("inventory") is None else ", ".join(state["inventory"]) or "(nothing)",
        p.BELIEF: state.get("belief", ""),
        p.KNOWN_FACTS: [f"{f.subject}, {f.relation}, {f.object}" for f in known],
    }
    extraction, update = ask_structured(runtime.context, node="relation_retriever", role="extraction", schema=Extraction,
                                        system=RELATION_RETRIEVER, sections=sections, fallback=Extraction(),
                                        step=state.get("step", 0))
    return {
        "extraction": [[t.subject, t.relation, t.object] for t in extraction.triplets],
        "outdated": [[t.subject, t.relation, t.object] for t in extraction.outdated],
        **update,
    }
