"""TextWorldExpress's sorting game."""

from __future__ import annotations

import re
from collections.abc import Sequence

from .. import text
from .base import Asking, Question, Scale, Standing, Taker
from .prompts import SORTING_QUESTION
from .twx import BOX, TextWorldExpress, into_box

# The units the game's quantities come in (its generator's list), each kind smallest first: the model weighs every
# thing in the smallest unit its options name, so no number it writes needs a decimal point.
UNITS = (("mg", "g", "kg"), ("mm", "cm", "m"), ("ml", "l"))
_AMOUNT_UNIT = re.compile(r"^\s*\d+(?:\.\d+)?\s*([a-z]+)\b", re.IGNORECASE)


def smallest_unit(things: Sequence[str]) -> str | None:
    """The smallest unit the quantities of ``things`` are named in ("g" for "13g of plastic" and "38kg of steel");
    None when none is a unit of the game's."""
    named = {found[1].lower() for thing in things if (found := _AMOUNT_UNIT.match(thing))}
    return next((unit for kind in UNITS for unit in kind if unit in named), None)


class Game(TextWorldExpress):
    name = "twx.sorting"
    games = ("sorting",)
    # which thing to take next is the order's (the smallest quantity left): not one code takes at random
    takes_what_lies_about = Taker.MODEL

    def question(self, asking: Asking) -> Question | None:
        """Which of the things not in the box yet (here or carried) has the smallest quantity: the next to put there."""
        things = (*asking.carried, *asking.reach)
        options = tuple(dict.fromkeys(t for t in things if t.lower() not in asking.placed))
        if not options:
            return None
        unit = smallest_unit(options)
        return Question(SORTING_QUESTION, options, scale=Scale("quantity", unit, most=False) if unit else None)

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
