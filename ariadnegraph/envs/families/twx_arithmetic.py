"""TextWorldExpress's arithmetic game."""

from __future__ import annotations

from .twx import TextWorldExpress


class Game(TextWorldExpress):
    name = "twx.arithmetic"
    games = ("arithmetic",)
    # the problem is read; working out its answer, and which thing has that quantity, is the player's
    meanings = {"solve the math problem": "read the math problem"}


FAMILY = Game()
