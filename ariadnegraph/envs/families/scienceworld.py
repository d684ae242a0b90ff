"""ScienceWorld: elementary science tasks in a house, a workshop, a greenhouse and the outdoors; read by the
ScienceWorld parser (its looks list each thing, what it holds and the doors to the rooms next door)."""

from __future__ import annotations

from . import parse_scienceworld, prompts
from .base import GameFamily, Observed, Sighting


class ScienceWorld(GameFamily):
    name = "scienceworld"
    brief = prompts.SCIENCEWORLD

    def covers(self, prefix: str, rest: str) -> bool:
        return prefix == "scienceworld"

    def perceive(self, seen: Observed) -> Sighting:
        return parse_scienceworld.sighting(seen)


FAMILY = ScienceWorld()
