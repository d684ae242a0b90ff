"""TextWorldExpress's peckingorder game."""

from __future__ import annotations

from .twx import TextWorldExpress


class Game(TextWorldExpress):
    name = "twx.peckingorder"
    games = ("peckingorder",)


FAMILY = Game()
