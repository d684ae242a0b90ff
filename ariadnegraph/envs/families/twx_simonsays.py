"""TextWorldExpress's Simon says games (with and without memory, terse or verbose): the commands to play are said,
in order; any other command ends the game."""

from __future__ import annotations

from .twx import TextWorldExpress


class SimonSays(TextWorldExpress):
    name = "twx.simonsays"
    games = ("simonsays",)  # simonsays10..100, simonsayswithmemory*, *verbose


FAMILY = SimonSays()
