"""NetHack through NLE, shown as text. The env names the dungeon level the player is on (memory files facts under
it); its text is not regular enough for a parser here: a preset with extraction leaves it to the model."""

from __future__ import annotations

from . import prompts
from .base import GameFamily


class NetHack(GameFamily):
    name = "nethack"
    brief = prompts.NETHACK
    tracks_position = True

    def covers(self, prefix: str, rest: str) -> bool:
        return prefix == "nethack"


FAMILY = NetHack()
