"""TextWorldExpress's arithmetic game."""

from __future__ import annotations

import re
from collections.abc import Sequence

from .. import text
from .base import Asking, Question, Standing, Taker
from .prompts import ARITHMETIC_QUESTION
from .twx import TextWorldExpress, into_box

PROBLEM = "math problem"  # the text the task is read from: the box takes a thing of the answer's quantity, never it
# what reading it says: "Your task is to solve the following math problem: subtract 23 from 26 ."
_PROBLEM_READ = re.compile(r"solve the following math problem:\s*(?P<problem>[^.\n]+?)\s*\.", re.I)


class Game(TextWorldExpress):
    name = "twx.arithmetic"
    games = ("arithmetic",)
    # the problem is read; working out its answer, and which thing has that quantity, is the player's
    meanings = {"solve the math problem": "read the math problem"}
    # which thing to take is the answer's: a thing code took at random is placed by the model as if it were
    takes_what_lies_about = Taker.MODEL

    def question(self, asking: Asking) -> Question | None:
        """Once the problem is read: which thing here or carried has the answer's quantity (the problem is none)."""
        read = next((found for reading in asking.readings if (found := _PROBLEM_READ.search(reading))), None)
        things = (*asking.reach, *asking.carried)
        options = tuple(dict.fromkeys(t for t in things if t.lower() not in (PROBLEM, f"the {PROBLEM}")))
        if read is None or not options:
            return None
        return Question(ARITHMETIC_QUESTION.format(problem=" ".join(read["problem"].split())), options)

    def answer_moves(self, question: Question, answer: str, commands: Sequence[str]) -> list[str]:
        return into_box(answer, commands)

    def ruinous(self, command: str, standing: Standing) -> str | None:
        """Putting the math problem itself somewhere ends the game lost: it is read, and what goes in the box is the
        thing whose quantity is its answer."""
        placed = text.placing(command)
        if placed and " ".join(placed[1].lower().split()) in (PROBLEM, f"the {PROBLEM}"):
            return "the math problem is read, not placed: put the thing whose quantity is its answer in the box"
        return None


FAMILY = Game()
