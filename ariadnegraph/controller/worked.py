"""What the task asks the player to work out (a sum read in a note, the smallest quantity left), as the controller
reads it: the family's question now, and the move that carries out the model's answer.

The model answers the question (nodes/worked_out.py); code never does. With no language model the question stays
unanswered and nothing here plays: which thing to take is the task, and code does not take one at random.
"""

from __future__ import annotations

from collections.abc import Sequence

from ..envs.families.base import Asking, Question, held_in
from .candidates import Candidate, Source
from .guards import TAKING, placed_by_the_agent
from .view import View


def question_now(view: View) -> Question | None:
    """The family's question at this step, from the texts read, the things a valid command takes here, those carried
    and those the agent put somewhere."""
    reach = [held_in(command.split(" ", 1)[1])[0] for command in view.valid if command.lower().startswith(TAKING)]
    asking = Asking(
        goal=view.goal,
        readings=view.readings,
        valid=view.valid,
        reach=tuple(reach),
        carried=view.inventory,
        placed=placed_by_the_agent(view),
        raised=tuple(str(record.get("action") or "") for record in view.past.score_rises()),
    )
    return view.family.question(asking)


def answer_to(view: View, question: Question) -> str | None:
    """The model's answer to ``question`` (None: not asked yet; "": asked, and it named no option)."""
    return next((answer for key, answer in reversed(view.worked_out) if key == question.key), None)


def worked_move(view: View, choices: Sequence[str]) -> Candidate | None:
    """The move among ``choices`` that carries out the model's answer to the question now, if it answered one."""
    question = question_now(view)
    answer = answer_to(view, question) if question else None
    if not answer:
        return None
    moves = view.family.answer_moves(answer, choices)
    return Candidate(moves[0], Source.WORKED, f"the answer worked out: {answer}") if moves else None
