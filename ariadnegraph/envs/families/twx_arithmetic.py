"""TextWorldExpress's arithmetic game."""

from __future__ import annotations

from .. import text
from .base import Standing, Taker
from .twx import TextWorldExpress

PROBLEM = "math problem"  # the text the task is read from: the box takes a thing of the answer's quantity, never it


class Game(TextWorldExpress):
    name = "twx.arithmetic"
    games = ("arithmetic",)
    # the problem is read; working out its answer, and which thing has that quantity, is the player's
    meanings = {"solve the math problem": "read the math problem"}
    # which thing to take is the answer's: a thing code took at random is placed by the model as if it were
    takes_what_lies_about = Taker.MODEL

    def ruinous(self, command: str, standing: Standing) -> str | None:
        """Putting the math problem itself somewhere ends the game lost: it is read, and what goes in the box is the
        thing whose quantity is its answer."""
        placed = text.placing(command)
        if placed and " ".join(placed[1].lower().split()) in (PROBLEM, f"the {PROBLEM}"):
            return "the math problem is read, not placed: put the thing whose quantity is its answer in the box"
        return None


FAMILY = Game()
