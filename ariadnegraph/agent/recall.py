"""Recall at an episode's start: what an agent's namespace of the long-term store holds for the game's
family (``AgentContext.memory_from``), read through the graph's Store (``runtime.store``: the CLI's
SQLite file, or the Store a LangGraph server declares in langgraph.json). Its facts seed the run's
memory before the first step; its lessons are shown to the deciding roles with the episode's own; its
dated transitions (gold runs) are history the world model questions (:func:`world_history`), never
part of the episode's current state."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from langgraph.store.base import BaseStore

from ..envs.registry import env_family
from ..memory.longterm import LESSONS_SHOWN, LongTermMemory, Namespace
from ..memory.queries import dated_transitions
from ..memory.transitions import THIS_EPISODE, DatedFact
from .session import Session

RECALLED = "recalled"  # run.json key: {"from": "agent/family", "facts": n, "lessons": n, "skipped": [row, ...]}


def recall(state: Mapping[str, Any], session: Session, memory_from: str | None, store: BaseStore | None) -> list[str]:
    """The lessons the episode's deciding roles are shown: the namespace's newest, then the episode's
    own (earlier trials), the last :data:`LESSONS_SHOWN`. The namespace's facts are seeded into the
    memory once per run (a start played again after a crash finds them recorded in run.json)."""
    given = [str(lesson) for lesson in state.get("lessons") or []]
    if not memory_from:
        return given
    if store is None:
        raise ValueError(
            "memory_from reads the long-term store, and none is configured "
            "(the CLI's --store / ARIADNE_STORE; a server's langgraph.json 'store')"
        )
    namespace = Namespace(memory_from, env_family(state["env"]))
    longterm = LongTermMemory(store)
    lessons = longterm.lessons(namespace)
    meta = session.run.meta()
    if RECALLED not in meta:
        facts = longterm.facts(namespace)
        if facts:
            session.memory.seed(facts)
        transitions = len(longterm.transitions(namespace))
        session.run.write_meta(
            {
                **meta,
                RECALLED: {
                    "from": str(namespace),
                    "facts": len(facts),
                    "lessons": len(lessons),
                    **({"transitions": transitions} if transitions else {}),
                    # rows the Store holds but this code did not write, passed over (LongTermMemory.skipped)
                    **({"skipped": longterm.skipped} if longterm.skipped else {}),
                },
            }
        )
    return list(dict.fromkeys([*lessons, *given]))[-LESSONS_SHOWN:]


def world_history(
    state: Mapping[str, Any], session: Session, memory_from: str | None, store: BaseStore | None
) -> list[DatedFact]:
    """What the world model questions (DAVIS §3.2-3.4): the namespace's dated transitions (read once per
    session), then every fact this episode recorded so far, each with its run and step."""
    return [*recalled_transitions(state, session, memory_from, store), *dated_transitions(session.memory, THIS_EPISODE)]


def recalled_transitions(
    state: Mapping[str, Any], session: Session, memory_from: str | None, store: BaseStore | None
) -> list[DatedFact]:
    """The namespace's dated transitions (its gold runs), read once per session: DAVIS's history, RAP's experience."""
    if session.recalled is None:
        session.recalled = []
        if memory_from and store is not None:
            session.recalled = LongTermMemory(store).transitions(Namespace(memory_from, env_family(state["env"])))
    return session.recalled
