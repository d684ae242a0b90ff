"""TextWorld's games that are not cooking: the treasure hunts, the coin games, AriGraph's cleaning game and any
TextWorld game file. Read by the TextWorld parser (valid commands and door sentences)."""

from __future__ import annotations

from . import parse_textworld, prompts
from .base import GameFamily, Observed, Sighting


class TextWorld(GameFamily):
    name = "textworld"
    brief = prompts.TEXTWORLD

    def covers(self, prefix: str, rest: str) -> bool:
        return prefix in (
            "treasure",
            "coin",
            "custom",
            "file",
            "arigraph",
        )  # (cooking ones are claimed first: the registry)

    def opens_locks(self, thing: str) -> bool:
        """A key: "Key 1", "Golden key", "keycard" (the treasure hunts lock their lockers and doors)."""
        return any(word.startswith("key") for word in thing.lower().split())

    def tells_the_way(self, thing: str) -> bool:
        """A note: "Note 2". A note is a text the game wrote for the player (a treasure hunt's says which lock the
        next key opens), and what it says is known only once it is read."""
        return "note" in thing.lower().split()

    def perceive(self, seen: Observed) -> Sighting:
        return parse_textworld.sighting(seen)


FAMILY = TextWorld()
