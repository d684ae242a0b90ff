"""TextWorldExpress's arithmetic game."""

from __future__ import annotations

from .twx import TextWorldExpress


class Game(TextWorldExpress):
    name = "twx.arithmetic"
    games = ("arithmetic",)


FAMILY = Game()
