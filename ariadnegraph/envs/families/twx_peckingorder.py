"""TextWorldExpress's peckingorder game: the instructions book says the current task ("The current task is to take the
watermelon."); each reading says the next one, and taking anything it does not say ends the game."""

from __future__ import annotations

import re

from .base import Standing
from .twx import TextWorldExpress

_CURRENT = re.compile(r"The current task is to (?P<command>[^.]+)\.", re.IGNORECASE)
_TAKING = ("take ", "pick up ")


class Game(TextWorldExpress):
    name = "twx.peckingorder"
    games = ("peckingorder",)
    meanings = {"read and follow the instructions book": "read the instructions book"}
    changing_texts = ("instructions book",)

    def said_to_play(self, observation: str) -> str | None:
        """The book's current task, right after it is read."""
        found = _CURRENT.search(observation or "")
        return found["command"].strip() if found else None

    def ruinous(self, command: str, standing: Standing) -> str | None:
        """A take the book's latest reading does not say ends the game: each reading says the one thing to take."""
        words = " ".join(command.lower().split())
        if not words.startswith(_TAKING):
            return None
        said = [found["command"] for text in standing.readings for found in _CURRENT.finditer(text)]
        if said and set(self.things_named(said[-1])) & set(self.things_named(words)):
            return None
        return "the instructions book says what to take, one thing at a time: read it and take what it says"


FAMILY = Game()
