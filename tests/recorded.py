"""Recorded observations played back into memory, for tests that read what memory holds (tests/fixtures/observations)."""

from __future__ import annotations

import json
from pathlib import Path

from ariadnegraph.memory import WorldMemory
from ariadnegraph.nodes.memory_update import perceived, place_facts

FIXTURES = Path(__file__).parent / "fixtures" / "observations"


def remembered_cooking(upto: int | None = None) -> WorldMemory:
    """The recorded cooking:3 steps (0 pantry, 1 door opened, 2 kitchen, 10 fridge opened, 11 cheese taken) into a
    memory, as memory_update writes them under object_memory."""
    return remembered("textworld_cooking.json", upto)


def remembered(fixture: str, upto: int | None = None) -> WorldMemory:
    """A recorded fixture's steps, up to step ``upto``, into a memory, as memory_update writes them under
    object_memory."""
    data = json.loads((FIXTURES / fixture).read_text())
    memory = WorldMemory()
    for s in data["steps"]:
        if upto is not None and s["step"] > upto:
            break
        state = {
            "env": data["env"],
            "observation": s["observation"],
            "last_action": s["action"],
            "admissible": s["valid"],
            "location": s["location"],
            "inventory": s["inventory"],
        }
        facts, ended = perceived(memory, state)
        memory.observe(
            s["step"], s["observation"], [*place_facts(memory, state, env_map=True), *facts], ended, action=s["action"]
        )
    return memory
