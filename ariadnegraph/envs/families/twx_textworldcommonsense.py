"""TextWorldExpress's textworldcommonsense game."""

from __future__ import annotations

from .twx import TextWorldExpress


class Game(TextWorldExpress):
    name = "twx.textworldcommonsense"
    games = ("textworldcommonsense",)


FAMILY = Game()
