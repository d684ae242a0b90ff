"""TextWorldExpress's mapreader game."""

from __future__ import annotations

from .twx import TextWorldExpress


class Game(TextWorldExpress):
    name = "twx.mapreader"
    games = ("mapreader",)


FAMILY = Game()
