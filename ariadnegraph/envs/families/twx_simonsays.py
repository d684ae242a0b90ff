"""TextWorldExpress's Simon says games (with and without memory, terse or verbose): the commands to play are said,
in order; any other command ends the game."""

from __future__ import annotations

import re

from .twx import TextWorldExpress

_SAID = re.compile(r"Simon says,\s*'(?P<command>[^']+)'", re.IGNORECASE)


class SimonSays(TextWorldExpress):
    name = "twx.simonsays"
    games = ("simonsays",)  # simonsays10..100, simonsayswithmemory*, *verbose

    def said_to_play(self, observation: str) -> str | None:
        """Without memory each command is said after the one before was played ("Simon says, 'touch pea'"); with
        memory they are all said at the start, as a list (kept as a text read, nodes/memory_update.text_read)."""
        said = _SAID.findall(observation or "")
        return said[-1] if said else None


FAMILY = SimonSays()
