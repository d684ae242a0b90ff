"""Relation retriever: facts (triplets) stated by the observation, read with the belief beside it (ours), by
the belief alone (STMA §4.2: the retriever maps the temporal belief to triplets), or by the observation with the
raw history buffer (STMA's "w/o Summarizer for Spatial Memory"). With ``coreference`` (DAVIS §3.2) the observations
are read with their pronouns written as the things they refer to (by rules: envs/coreference.resolve_pronouns).

Outdated facts are found in the same call among the known facts about the room and the inventory (ours), or,
with ``outdated_scope="entities"``, in a second call comparing the new triplets with every stored fact touching
one of their entities (AriGraph §2, appendix E).

A triplet naming something the text it was read from never mentions (the observation, the command,
the facts shown, the inventory, the task) is dropped before memory sees it and counted as
``ungrounded``: small models invent objects, and a fact in memory is believed by every later step.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping, Sequence
from typing import Any

from langgraph.runtime import Runtime

from .. import prompting as p
from ..agent.context import AgentContext
from ..agent.presets import HISTORY_BUFFER, OPEN_RELATION_READS, Preset
from ..agent.session import Session
from ..agent.state import AgentState
from ..envs.coreference import command_thing, last_named, resolve_pronouns
from ..envs.textworld_env import true_triplets
from ..memory import PLAYER, WorldMemory
from ..memory.normalize import normalize_relation
from ..memory.spatial import PLAYER_ALIASES
from ..vocabulary import DIRECTIONS
from .common import UNGROUNDED, ask_structured, environment_section, history_section, merged, with_issue
from .prompts import (
    OUTDATED_CHECK,
    RECIPE,
    RELATION_RETRIEVER,
    RELATION_RETRIEVER_BELIEF,
    RELATION_RETRIEVER_OPEN,
    RELATION_RETRIEVER_TRANSITION,
)
from .schemas import BeliefExtraction, Extraction, Outdated, TransitionExtraction

KNOWN_FACTS_SHOWN = 30  # known facts about the room and inventory shown with the observation (ours)
# AriGraph compares the new triplets with every fact incident to their entities. The bound only keeps a prompt a
# model can read if an entity gathers very many facts (a room full of things): the newest are kept, and the record
# counts what was left out. Far above what a game of the suites holds about the things one observation names.
INCIDENT_FACTS_SHOWN = 200
# Names every observation may use without stating them: the conventions of the extraction prompt.
_CONVENTIONS = {PLAYER, "inventory", RECIPE, *DIRECTIONS}
_ARTICLES = {"a", "an", "the", "some"}
# Relations whose object is a state or a step the model words itself ("diced" from "dice the pepper").
_STATE_RELATIONS = {"is", "needs"}
_WORD = re.compile(r"[a-z0-9]+")


def extraction_sections(
    state: Mapping[str, Any], memory: WorldMemory, preset: Preset | None = None
) -> dict[str, object]:
    """What the model reads to extract this step's facts: the observation with the belief (or, with
    ``extraction_reads="history"``, the raw history buffer instead), and the known facts about the room the
    agent was in and what it carries (what this observation may update); with ``extraction_reads="belief_only"``
    the belief alone (STMA). With ``coreference`` the observations are read with their pronouns resolved (DAVIS)."""
    if preset is not None and preset.extraction_reads == "belief_only":
        return {
            p.ENVIRONMENT: environment_section(state),
            p.GOAL: state.get("goal", ""),
            p.BELIEF: state.get("belief") or p.NONE,
        }
    raw = preset is not None and preset.extraction_reads == "history"
    transition = preset is not None and preset.extraction_reads == "transition"
    history = state.get("history") or []
    # the observation the last action was taken in (the transition's o_t); none at the episode's start
    before = history[-2].get("observation") if len(history) > 1 else None
    observation = state.get("observation", "")
    if preset is not None and preset.coreference:  # DAVIS §3.2: coreference resolved before extraction (by rules)
        named = command_thing(state.get("last_action")) or last_named(before or "")
        observation = resolve_pronouns(observation, named)
        before = resolve_pronouns(before) if before else before
    previous_location = memory.location()
    view = memory.current()
    keys = {memory.key(name) for name in (previous_location, "inventory", state.get("location")) if name}
    known = sorted({f.id: f for k in keys for f in view.incident(k)}.values(), key=lambda f: f.id)[-KNOWN_FACTS_SHOWN:]
    return {
        p.ENVIRONMENT: environment_section(state),
        p.GOAL: state.get("goal", ""),
        p.KNOWN_FACTS: [p.fact_line(f.subject, f.relation, f.object) for f in known],
        p.LOCATION: previous_location or p.UNKNOWN,
        p.INVENTORY: p.inventory_text(state.get("inventory")),
        p.BELIEF: None if raw or transition else state.get("belief", ""),
        p.HISTORY: history_section(history[:-1], preset.summarizer_history or HISTORY_BUFFER, True)
        if raw and preset
        else None,
        p.OBSERVATION_BEFORE: (before if len(history) > 1 else p.NONE) if transition else None,  # DAVIS's o_t
        p.LAST_ACTION: state.get("last_action") or p.EPISODE_START,
        p.OBSERVATION: observation,
    }


def _words(text: str) -> set[str]:
    return set(_WORD.findall(text.lower()))


def mentioned(name: str, words: set[str]) -> bool:
    """Whether every word of ``name`` (articles aside) occurs in the source text, or it is a convention."""
    own = [w for w in _WORD.findall(name.lower()) if w not in _ARTICLES]
    return bool(own) and (" ".join(own) in _CONVENTIONS or all(w in words for w in own))


def grounded(triplets: Iterable[list[str]], sections: Mapping[str, object]) -> tuple[list[list[str]], int]:
    """The triplets whose subject and object the prompt's text mentions (the object of a state relation
    is a word the model may choose), and how many were dropped."""
    triplets = list(triplets)
    texts = [item for v in sections.values() for item in (v if isinstance(v, list) else [v])]
    # "(unknown)" names nothing
    words = _words(" ".join(str(t) for t in texts if t and str(t).strip() not in p.PLACEHOLDERS))
    kept = [
        t
        for t in triplets
        if mentioned(t[0], words) and (t[1].strip().lower() in _STATE_RELATIONS or mentioned(t[2], words))
    ]
    return kept, len(triplets) - len(kept)


class OracleUnavailable(ValueError):
    """A role oracle asked of a game that does not give the truth it needs."""


def oracle_extraction(state: AgentState, session: Session) -> dict[str, Any]:
    """ORACLE (``oracle_extraction``, evaluation only): the game's true facts about what the observation
    names (and where the player is), as a perfect extractor would write them; no model call."""
    facts = session.observation.oracle.facts
    if not facts:
        raise OracleUnavailable(
            f"oracle_extraction needs a game that gives its true facts (TextWorld); {state.get('env')} gives none"
        )
    words = _words(state.get("observation", ""))
    triplets = [
        list(t) for t in true_triplets(facts) if t[0] == PLAYER or (mentioned(t[0], words) and mentioned(t[2], words))
    ]
    return {"extraction": triplets, "outdated": [], "decided": {"extracted": triplets, "oracle": True}}


def incident_facts(memory: WorldMemory, triplets: Iterable[list[str]]) -> tuple[list[list[str]], int]:
    """Every open fact touching an entity of ``triplets`` (AriGraph's E_rel), oldest first, the newest
    ``INCIDENT_FACTS_SHOWN`` of them; and how many more there were."""
    view = memory.current()
    keys = {memory.key(name) for t in triplets for name in (t[0], t[2])}
    facts = sorted({f.id: f for k in keys for f in view.incident(k)}.values(), key=lambda f: f.id)
    shown = facts[-INCIDENT_FACTS_SHOWN:]
    return [[f.subject, f.relation, f.object] for f in shown], len(facts) - len(shown)


def detect_outdated(
    state: Mapping[str, Any], context: AgentContext, memory: WorldMemory, triplets: list[list[str]]
) -> tuple[list[list[str]], dict[str, Any]]:
    """AriGraph's outdated detection: the known facts the new ``triplets`` replace, asked of the model with every
    stored fact touching their entities; no call when there is nothing to compare."""
    known, left_out = incident_facts(memory, triplets)
    if not triplets or not known:
        return [], {"compared": 0}
    sections = {
        p.ENVIRONMENT: environment_section(state),
        p.KNOWN_FACTS: [p.fact_line(*f) for f in known],
        p.OBSERVATION: state.get("observation", ""),
        p.NEW_FACTS: [p.fact_line(*t) for t in triplets],
    }
    reply, update = ask_structured(
        context,
        node="outdated_check",
        schema=Outdated,
        system=OUTDATED_CHECK,
        sections=sections,
        fallback=Outdated(),
        step=state.get("step", 0),
    )
    stored = {_fact_words(f) for f in known}  # only a fact memory holds can be outdated (a model may invent one)
    return [list(t) for t in reply.outdated if _fact_words(t) in stored], {
        **update,
        "compared": len(known),
        "left_out": left_out,
    }


PLAYER_PLACE_RELATIONS = frozenset({"in", "at", "inside", "located in", "located at", "standing in", "now in"})


def player_location(triplet: Sequence[str]) -> bool:
    """A fact of where the player is ("you, are in, Kitchen")."""
    subject = " ".join(triplet[0].lower().split())
    return (subject == PLAYER or subject in PLAYER_ALIASES) and normalize_relation(triplet[1]) in PLAYER_PLACE_RELATIONS


def _fact_words(fact: Iterable[str]) -> tuple[str, ...]:
    return tuple(" ".join(str(part).lower().split()) for part in fact)


# Per ``extraction_reads`` switch value: the reply's schema and the role's prompt
EXTRACTIONS: dict[str, tuple[type[Extraction] | type[TransitionExtraction], str]] = {
    "belief": (Extraction, RELATION_RETRIEVER),
    "history": (Extraction, RELATION_RETRIEVER),
    "belief_only": (BeliefExtraction, RELATION_RETRIEVER_BELIEF),
    "transition": (TransitionExtraction, RELATION_RETRIEVER_TRANSITION),
}


def relation_retriever(state: AgentState, runtime: Runtime[AgentContext], session: Session) -> dict[str, Any]:
    if runtime.context.switches.oracle_extraction:
        return oracle_extraction(state, session)
    memory = session.memory
    if runtime.context.switches.extract_new_only and any(
        e.text == state.get("observation") for e in memory.episodes.values()
    ):
        # read before word for word: nothing in it is new to memory
        return {"extraction": [], "outdated": [], "decided": {"extracted": [], "skipped": "read before"}}
    sections = extraction_sections(state, memory, runtime.context.switches)
    schema, system = EXTRACTIONS[runtime.context.switches.extraction_reads]
    if runtime.context.switches.open_relations and runtime.context.switches.extraction_reads in OPEN_RELATION_READS:
        system = RELATION_RETRIEVER_OPEN
    extraction, update = ask_structured(
        runtime.context,
        node="relation_retriever",
        schema=schema,
        system=system,
        sections=sections,
        fallback=schema(),
        step=state.get("step", 0),
    )
    triplets, dropped = grounded([list(t) for t in extraction.triplets], sections)
    if runtime.context.switches.open_relations:  # where the player is comes from the env's room (appendix E)
        triplets = [t for t in triplets if not player_location(t)]
    update = with_issue(update, "relation_retriever", UNGROUNDED, dropped)
    decided: dict[str, Any] = {}
    if runtime.context.switches.outdated_scope == "entities":
        outdated, checked = detect_outdated(state, runtime.context, memory, triplets)
        decided = {"outdated_compared": checked.pop("compared"), "outdated_left_out": checked.pop("left_out", 0)}
        update = merged([update, checked])
    else:
        outdated, _ = grounded([list(t) for t in extraction.outdated], sections)
    read = sections.get(p.OBSERVATION)  # the observation as extraction read it: kept when coreference changed it
    resolved = {"resolved": read} if read is not None and read != state.get("observation", "") else {}
    return {
        **update,
        "extraction": triplets,
        "outdated": outdated,
        "decided": {
            "extracted": triplets,
            "outdated": outdated,
            "ungrounded": dropped,
            **decided,
            **({"transition": extraction.transition} if isinstance(extraction, TransitionExtraction) else {}),
            **resolved,
        },
    }
