"""ScienceWorld: elementary science tasks in a house, a workshop, a greenhouse and the outdoors; read by the
ScienceWorld parser (its looks list each thing, what it holds and the doors to the rooms next door)."""

from __future__ import annotations

from . import parse_scienceworld, prompts
from .base import GameFamily, Observed, Sighting


class ScienceWorld(GameFamily):
    name = "scienceworld"
    brief = prompts.SCIENCEWORLD
    # its valid commands are every verb on every thing and pair of things (300-1,300 a step, 32,000 characters in
    # the kitchen): shown whole, a step's prompt is about 8,000 tokens, two minutes of a 1.5B model's reading on 2 cores
    commands_shown = 60  # (the env's max_admissible option cuts what the game lists, alphabetically; unset here)

    def covers(self, prefix: str, rest: str) -> bool:
        return prefix == "scienceworld"

    def perceive(self, seen: Observed) -> Sighting:
        return parse_scienceworld.sighting(seen)


FAMILY = ScienceWorld()
