"""What the task asks the player to work out (a sum read in a note, the smallest quantity left), as the controller
reads it: the family's question now, and the move that carries out the model's answer.

The model answers the question (nodes/worked_out.py); code answers only a question of one option, which needs no
knowledge. With no language model no question is asked and nothing here plays: which thing to take is the task, and
code does not take one at random.
"""

from __future__ import annotations

from collections.abc import Sequence

from ..envs.families.base import Asking, Question, held_in
from ..envs.text import taking
from .candidates import Candidate, Source
from .guards import placed_by_the_agent
from .view import View

HEARD_STEPS = 10  # the steps whose commands and answers a family reads for what was measured or said (Asking.heard)


def question_now(view: View) -> Question | None:
    """The family's question at this step, from the texts read, the things a valid command takes here, those carried
    and those the agent put somewhere (worked out once per view: the node, the proposal and the prompt all ask)."""
    if "question" not in view.memo:
        reach = [held_in(thing)[0] for command in view.valid if (thing := taking(command))]
        asking = Asking(
            goal=view.goal,
            readings=view.readings,
            valid=view.valid,
            reach=tuple(reach),
            carried=view.inventory,
            placed=placed_by_the_agent(view),
            played=frozenset(view.past.played()),
            location=view.location,
            heard=tuple(
                (str(record.get("action") or ""), str(record.get("observation") or ""))
                for record in view.past.records(last=HEARD_STEPS)
            ),
        )
        view.memo["question"] = view.family.question(asking)
    return view.memo["question"]


def answer_to(view: View, question: Question) -> str | None:
    """The model's answer to ``question`` (None: not asked yet; "": asked, and it named no option)."""
    return next((answer for key, answer in reversed(view.worked_out) if key == question.key), None)


def answered_now(view: View) -> tuple[Question, str] | None:
    """The question now and the option the model answered it with, if it named one."""
    question = question_now(view)
    answer = answer_to(view, question) if question else None
    return (question, answer) if question and answer else None


def worked_move(view: View, choices: Sequence[str]) -> Candidate | None:
    """The move among ``choices`` that carries out the model's answer to the question now, if it answered one."""
    answered = answered_now(view)
    if answered is None:
        return None
    question, answer = answered
    moves = view.family.answer_moves(question, answer, choices)
    return Candidate(moves[0], Source.WORKED, f"the answer worked out: {answer}") if moves else None
