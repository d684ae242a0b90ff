"""TextWorldExpress's sorting game."""

from __future__ import annotations

from collections.abc import Sequence

from .. import text
from .base import Asking, Question, Standing, Taker
from .prompts import SORTING_QUESTION
from .twx import BOX, TextWorldExpress, into_box


class Game(TextWorldExpress):
    name = "twx.sorting"
    games = ("sorting",)
    # which thing to take next is the order's (the smallest quantity left): not one code takes at random
    takes_what_lies_about = Taker.MODEL

    def question(self, asking: Asking) -> Question | None:
        """Which of the things not in the box yet (here or carried) has the smallest quantity: the next to put there."""
        things = (*asking.carried, *asking.reach)
        options = tuple(dict.fromkeys(t for t in things if t.lower() not in asking.placed))
        return Question(SORTING_QUESTION, options) if options else None

    def answer_moves(self, question: Question, answer: str, commands: Sequence[str]) -> list[str]:
        return into_box(answer, commands)

    def ruinous(self, command: str, standing: Standing) -> str | None:
        """Taking a thing back out of the box undoes the order made so far: it loses what the placing scored, and
        can lose the game."""
        taken = text.taking(command.lower())
        if taken is None or standing.contents is None:
            return None
        thing = taken.removesuffix(f" from {BOX}").removeprefix("the ")
        if thing in (" ".join(t.lower().split()) for t in standing.contents(BOX)):
            return "what is in the box stays there: taking it back out undoes the order and can lose the game"
        return None


FAMILY = Game()
