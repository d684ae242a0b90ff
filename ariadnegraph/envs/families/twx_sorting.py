"""TextWorldExpress's sorting game."""

from __future__ import annotations

from .twx import TextWorldExpress


class Game(TextWorldExpress):
    name = "twx.sorting"
    games = ("sorting",)


FAMILY = Game()
