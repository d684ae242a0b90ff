"""TextWorldExpress's coincollector game."""

from __future__ import annotations

from .twx import TextWorldExpress


class Game(TextWorldExpress):
    name = "twx.coincollector"
    games = ("coincollector",)


FAMILY = Game()
