"""The task's question, asked of the model: where the task itself is to work something out (which thing's quantity
is a sum read in a note, which thing left has the smallest quantity), the game family poses it as a choice among the
things it can be (envs/families/base.Question), and the model answers it in one short call before the choice of the
step. The answer is the model's knowledge; carrying it out (take the thing, put it in the box) is code's
(controller/worked.py). A question is asked once: its answer is kept in the state (``worked_out``).

With no language model the question is never asked, and nothing plays it: code does not take a thing at random where
which one is the task. A question of one option needs no knowledge: it is answered without a call.
"""

from __future__ import annotations

from dataclasses import replace
from typing import Any

from .. import prompting as p
from ..agent.context import AgentContext
from ..controller.view import View
from ..controller.worked import answer_to, question_now
from ..envs.families.base import Question
from ..models import is_no_model
from .common import MODEL_NODES, ask_structured
from .prompts import WORK_OUT
from .schemas import WorkedOut

NODE = "worked_out"


def work_out(context: AgentContext, view: View) -> tuple[View, dict[str, Any]]:
    """The view with the answer to the family's question now, asked of the model when it has not been yet, and the
    state update that keeps the answer and accounts for the call (empty when nothing was asked)."""
    question = question_now(view)
    if question is None or answer_to(view, question) is not None:
        return view, {}
    update: dict[str, Any] = {}
    if len(question.options) == 1:
        answer = question.options[0]
    elif is_no_model(context.model_for(MODEL_NODES[NODE].role)):
        return view, {}
    else:
        answer, update = _ask(context, view, question)
    kept = {"question": question.key, "answer": answer}
    worked = replace(view, worked_out=(*view.worked_out, (question.key, answer)))
    return worked, {**update, "worked_out": [kept], "worked": {**kept, "asked": question.asked}}


def _ask(context: AgentContext, view: View, question: Question) -> tuple[str, dict[str, Any]]:
    """The option the model's answer names ("" when it names none), and the call's update."""
    sections = {
        p.GOAL: view.goal,
        p.READINGS: list(view.readings) or None,
        p.QUESTION: question.asked,
        p.OPTIONS: list(question.options),
    }
    reply, update = ask_structured(
        context,
        node=NODE,
        schema=WorkedOut,
        system=WORK_OUT,
        sections=sections,
        fallback=WorkedOut(working="no usable reply", answer=""),
        step=view.step,
    )
    return named_option(reply.answer, question.options), update


def named_option(answer: str, options: tuple[str, ...]) -> str:
    """The option an answer names: the same words (case and a leading article aside), else the one option whose words
    all stand in it ("the 69 tomatoes, which is 39 + 30"); "" when it names none or several."""
    said = _words(answer)
    exact = [option for option in options if _words(option) == said]
    if exact:
        return exact[0]
    within = [option for option in options if _contains(said, _words(option))]
    return within[0] if len(within) == 1 else ""


def _words(text: str) -> list[str]:
    """The words that name a thing: no article, no word twice in a row (the game's "baby baby wolf" is a baby wolf)."""
    words = [word for word in text.lower().replace(",", " ").split() if word not in ("the", "a", "an")]
    return [word for i, word in enumerate(words) if i == 0 or word != words[i - 1]]


def _contains(said: list[str], option: list[str]) -> bool:
    """Whether ``option``'s words stand in ``said`` one after another."""
    n = len(option)
    return bool(n) and any(said[i : i + n] == option for i in range(len(said) - n + 1))
