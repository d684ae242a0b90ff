"""The scripted double's answer to the task's question (nodes/worked_out.py), by rules from its QUESTION and OPTIONS
sections: a math problem worked out and the option of that quantity; the smallest quantity, its units converted; and
for a weighed question, each amount in one unit. Where knowledge of the world is asked (which animal lives longest) it
has none: it gives every option the same number, a tie no answer comes from."""

from __future__ import annotations

import re

from ... import prompting as p
from ...nodes.schemas import Weighing, WorkedOut
from .reading import Sections
from .sections import items

_PROBLEM = re.compile(r"(?P<op>add|subtract|multiply|divide)\s+(?P<a>\d+)\s+(?:and|from|by)\s+(?P<b>\d+)", re.I)
_AMOUNT = re.compile(r"^(?P<n>\d+(?:\.\d+)?)\s*(?P<unit>[a-z]*)\b", re.I)
_IN_BASE = {"mg": 0.001, "g": 1.0, "kg": 1000.0, "mm": 0.001, "cm": 0.01, "m": 1.0, "ml": 0.001, "l": 1.0}


def work_out(s: Sections) -> WorkedOut:
    question, options = s.get(p.QUESTION, ""), items(s.get(p.OPTIONS))
    if problem := _PROBLEM.search(question):
        a, b = int(problem["a"]), int(problem["b"])
        op = problem["op"].lower()
        result = {"add": a + b, "subtract": b - a, "multiply": a * b, "divide": b and a // b}[op]
        named = next((o for o in options if (amount := _AMOUNT.match(o)) and float(amount["n"]) == result), "")
        return WorkedOut(working=f"{op} {a} and {b} = {result}", answer=named or str(result))
    if "smallest" in question.lower():
        if amounts := _amounts(options):
            smallest = min(amounts, key=lambda o: amounts[o])
            return WorkedOut(working="each in one unit, the smallest", answer=smallest)
    return WorkedOut(working="the double knows nothing of this", answer="")


def weigh(s: Sections) -> Weighing:
    options = items(s.get(p.OPTIONS))
    amounts = _amounts(options)
    if len(amounts) == len(options):
        return Weighing(**amounts)
    return Weighing(**dict.fromkeys(options, 0.0))


def _amounts(options: list[str]) -> dict[str, float]:
    """Each option's quantity in its kind's base unit (a count is its number), for the options that name one."""
    return {o: float(m["n"]) * _IN_BASE.get(m["unit"].lower(), 1.0) for o in options if (m := _AMOUNT.match(o))}
