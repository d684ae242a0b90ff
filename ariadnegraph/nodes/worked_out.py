"""The task's question, asked of the model: where the task itself is to work something out (which thing's quantity
is a sum read in a note, which thing left has the smallest quantity), the game family poses it as a choice among the
things it can be (envs/families/base.Question), and the model answers it in one short call before the choice of the
step. The answer is the model's knowledge; carrying it out (take the thing, put it in the box) is code's
(controller/worked.py). A question is asked once: its answer is kept in the state (``worked_out``).

With no language model the question is never asked, and nothing plays it: code does not take a thing at random where
which one is the task. A question of one option needs no knowledge: it is answered without a call.
"""

from __future__ import annotations

import re
from dataclasses import replace
from typing import Any

from .. import prompting as p
from ..agent.context import AgentContext
from ..controller.view import View
from ..controller.worked import answer_to, question_now
from ..envs.families.base import Question
from ..models import is_no_model
from .common import MODEL_NODES, ask_structured, fell_back
from .prompts import WORK_OUT
from .schemas import WorkedOut

NODE = "worked_out"


def work_out(context: AgentContext, view: View) -> tuple[View, dict[str, Any], dict[str, Any]]:
    """The view with the answer to the family's question now, asked of the model when it has not been yet; the state
    update that keeps the answer (with ``question``: what was asked, for the step's record); and the call's
    accounting (both empty when nothing was asked). A reply that could not be read keeps nothing: the question is
    asked again at the next step."""
    if is_no_model(context.model_for(MODEL_NODES[NODE].role)):
        return view, {}, {}
    question = question_now(view)
    if question is None or answer_to(view, question) is not None:
        return view, {}, {}
    accounting: dict[str, Any] = {}
    if len(question.options) == 1:  # no knowledge needed: the one thing left is the answer, no call made
        answer = question.options[0]
    else:
        answer, accounting = _ask(context, view, question)
        if fell_back(accounting, NODE):
            return view, {}, accounting
    kept = {"question": question.key, "answer": answer}
    worked = replace(view, worked_out=(*view.worked_out, (question.key, answer)), memo={})
    asked = {**kept, "asked": question.asked, "called": bool(accounting)}
    return worked, {"worked_out": [kept], "question": asked}, accounting


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
    """The option an answer names: the same words (case, punctuation and articles aside), else the one option whose
    words all stand in it ("the 69 tomatoes, which is 39 + 30"), else the one option whose name holds all the
    answer's words ("brown bear" for "baby baby brown bear"); "" when it names none, or several."""
    said = _words(answer)
    if not said:
        return ""
    exact = [option for option in options if _words(option) == said]
    if exact:
        return exact[0]
    within = [option for option in options if _contains(said, _words(option))]
    if len(within) == 1:
        return within[0]
    holding = [option for option in options if set(said) <= set(_words(option))]
    return holding[0] if len(holding) == 1 else ""


def _words(text: str) -> list[str]:
    """The words that name a thing: no article, no punctuation, no word twice in a row (the game's "baby baby wolf"
    is a baby wolf); a quantity and its unit are one word either way ("27 g" is "27g")."""
    words = [word for word in re.findall(r"\w+", re.sub(r"(\d)\s+([a-z]+)\b", r"\1\2", text.lower()))]
    words = [word for word in words if word not in ("the", "a", "an")]
    return [word for i, word in enumerate(words) if i == 0 or word != words[i - 1]]


def _contains(said: list[str], option: list[str]) -> bool:
    """Whether ``option``'s words stand in ``said`` one after another."""
    n = len(option)
    return bool(n) and any(said[i : i + n] == option for i in range(len(said) - n + 1))
