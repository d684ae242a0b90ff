"""The scripted double's Simulacra roles (Park et al.'s memory stream): rating an observation's importance and
writing insights on recent ones, by rules on the rendered sections, as the rest of the double decides."""

from __future__ import annotations

import re
from collections.abc import Mapping

from ... import prompting as p
from ...nodes.schemas import Importance, Insights

Sections = Mapping[str, str]

# what a rule reads as mattering: instructions read, the score, a thing taken, a door or container opened
_MATTERS = re.compile(r"recipe|ingredients|directions|score|you take|you open|unlock|note", re.IGNORECASE)


def importance(s: Sections) -> Importance:
    """8 for an observation that reads instructions, raises the score or changes what is held or open; else 2."""
    return Importance(score=8 if _MATTERS.search(s.get(p.OBSERVATION, "")) else 2)


def insights(s: Sections) -> Insights:
    """The first lines of the history that matter, as insights (at most three)."""
    lines = [line.strip("- ").strip() for line in s.get(p.HISTORY, "").splitlines() if _MATTERS.search(line)]
    return Insights(insights=[line[:160] for line in lines[-3:]])
