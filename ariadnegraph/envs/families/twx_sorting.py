"""TextWorldExpress's sorting game."""

from __future__ import annotations

from .. import text
from .base import Standing, Taker
from .twx import TextWorldExpress

BOX = "box"  # where the things go, smallest quantity first


class Game(TextWorldExpress):
    name = "twx.sorting"
    games = ("sorting",)
    # which thing to take next is the order's (the smallest quantity left): not one code takes at random
    takes_what_lies_about = Taker.MODEL

    def ruinous(self, command: str, standing: Standing) -> str | None:
        """Taking a thing back out of the box undoes the order made so far: it loses what the placing scored, and
        can lose the game."""
        words = " ".join(command.lower().split())
        verb = next((v for v in text.TAKING_VERBS if words.startswith(f"{v} ")), None)
        if verb is None or standing.contents is None:
            return None
        thing = words[len(verb) + 1 :].removesuffix(f" from {BOX}").removeprefix("the ")
        if thing in (" ".join(t.lower().split()) for t in standing.contents(BOX)):
            return "what is in the box stays there: taking it back out undoes the order and can lose the game"
        return None


FAMILY = Game()
