"""The task's question, asked of the model: where the task itself is to work something out (which thing's quantity
is a sum read in a note, which thing left has the smallest quantity), the game family poses it as a choice among the
things it can be (envs/families/base.Question), and the model answers it in one short call before the choice of the
step. The answer is the model's knowledge; carrying it out (take the thing, put it in the box) is code's
(controller/worked.py). A question is asked once: its answer is kept in the state (``worked_out``).

Two forms of call. A question whose answer is the one with the most or least of something (the smallest quantity,
the longest life span: ``Question.scale``) is a form with a number to fill in for each option, and code takes the
option at the scale's end: the model weighs every thing and cannot copy the first one offered as its answer. Any other
is a line of working then an option; where the working ends in a number an option's quantity is, that option is the
answer, whatever the answer field copied.

With no language model the question is never asked, and nothing plays it: code does not take a thing at random where
which one is the task. A question of one option needs no knowledge: it is answered without a call.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import replace
from typing import Any, cast

from .. import prompting as p
from ..agent.context import AgentContext
from ..controller.view import View
from ..controller.worked import answer_to, question_now
from ..envs.families.base import Question, Scale
from ..models import is_no_model
from .common import MODEL_NODES, ask_structured, fell_back
from .prompts import WEIGH, WORK_OUT
from .schemas import WEIGHING_TOKENS_EACH, Weighing, WorkedOut, weighing_for

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
    said: dict[str, Any] = {}  # what the model wrote, for the step's record
    if len(question.options) == 1:  # no knowledge needed: the one thing left is the answer, no call made
        answer = question.options[0]
    else:
        answer, said, accounting = (_weigh if question.scale else _ask)(context, view, question)
        if fell_back(accounting, NODE):
            return view, {}, accounting
    kept = {"question": question.key, "answer": answer}
    worked = replace(view, worked_out=(*view.worked_out, (question.key, answer)), memo={})
    asked = {**kept, "asked": question.asked, "called": bool(accounting), **said}
    return worked, {"worked_out": [kept], "question": asked}, accounting


def _ask(context: AgentContext, view: View, question: Question) -> tuple[str, dict[str, Any], dict[str, Any]]:
    """The option the model's working comes to, else the one its answer names ("" when neither names one); what it
    wrote; and the call's update."""
    reply, update = ask_structured(
        context,
        node=NODE,
        schema=WorkedOut,
        system=WORK_OUT,
        sections={
            p.GOAL: view.goal,
            p.READINGS: list(view.readings) or None,
            p.QUESTION: question.asked,
            p.OPTIONS: list(question.options),
        },
        fallback=WorkedOut(working="no usable reply", answer=""),
        step=view.step,
    )
    # A small model's answer field often copies the first option even where its working came to another ("24 / 3 =
    # 8", answer "72 pears"): the working is where it did the sum, so its result decides.
    answer = result_option(reply.working, question.options) or named_option(reply.answer, question.options)
    return answer, {"working": reply.working}, update


def _weigh(context: AgentContext, view: View, question: Question) -> tuple[str, dict[str, Any], dict[str, Any]]:
    """The option the model's numbers put at the scale's end ("" at a tie); the numbers; and the call's update."""
    scale = question.scale
    assert scale is not None
    names = question.weighed_names()
    reply, update = ask_structured(
        context,
        node=NODE,
        schema=weighing_for(names),
        system=WEIGH.format(measure=scale.measure, unit=scale.unit, extreme="greatest" if scale.most else "least"),
        # the question and the things only: with the goal beside them the 1.5B weighs what the goal says, not them
        sections={p.QUESTION: question.asked, p.OPTIONS: list(names)},
        fallback=cast(Any, Weighing()),  # (the form's own fields cannot be filled without a reply: nothing is kept)
        step=view.step,
        reply_tokens=WEIGHING_TOKENS_EACH * (len(names) + 1),
    )
    if fell_back(update, NODE):
        return "", {}, update
    weighed = reply.numbers()
    numbers = {option: weighed[name] for option, name in zip(question.options, names, strict=True)}
    return weighed_answer(numbers, scale), {"weighed": numbers}, update


def weighed_answer(numbers: Mapping[str, float], scale: Scale) -> str:
    """The option whose number is the greatest (``scale.most``) or the least; "" when there is none, or a tie."""
    if not numbers:
        return ""
    end = max(numbers.values()) if scale.most else min(numbers.values())
    at_end = [option for option, number in numbers.items() if number == end]
    return at_end[0] if len(at_end) == 1 else ""


_RESULT = re.compile(r"=\s*(-?\d+(?:\.\d+)?)\s*\D*$")  # the number after a working's last "=", at its end
_QUANTITY = re.compile(r"^\s*(\d+(?:\.\d+)?)")  # a thing's quantity, first in its name ("8 brocollis")


def result_option(working: str, options: tuple[str, ...]) -> str:
    """The option whose quantity is the number a working ends in after its last "=" ("24 / 3 = 8": "8 brocollis");
    "" when the working ends in no such number, or no option or several have that quantity."""
    found = _RESULT.search(working)
    if found is None:
        return ""
    result = float(found[1])
    having = [o for o in options if (quantity := _QUANTITY.match(o)) and float(quantity[1]) == result]
    return having[0] if len(having) == 1 else ""


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
