"""What every rule of the scripted double reads the same way: the sections as a dict, a game answer that
reports failure, names compared lowercased, and the double's own constants."""

from __future__ import annotations

import re
from collections.abc import Mapping

from ... import vocabulary
from ...envs.families import textworld_cooking as cooking

Sections = Mapping[str, str]


FAILURE = re.compile(
    r"can't|cannot|not a verb|only understood|you need|is locked|isn't|aren't|doesn't seem|no such|"
    r"not open|nothing happens|that's already|you don't|what do you want|not something|is closed|"
    r"too many|you have to|first\b",
    re.IGNORECASE,
)


APPLIANCES = cooking.APPLIANCES


COOK_VERBS = {state: verb for verb, state in cooking.COOK_VERBS.items()}


CUT_VERBS = {state: verb for verb, state in cooking.CUT_VERBS.items()}


MAX_SEEN = 40


NO_EXITS = "no unexplored exit is known"


NOTHING_BETTER = "nothing better known"


LOCKABLE = re.compile(r"locker|chest|safe|coffer|box|case|cabinet|door", re.IGNORECASE)


OPPOSITE = vocabulary.OPPOSITE


SPATIAL_EXITS = re.compile(r"^Unexplored exits of (.+?): (.+?)\.?$", re.MULTILINE)


# the double's exploration order (a policy, not vocabulary)
DIR_ORDER = ("north", "east", "south", "west", "northeast", "northwest", "southeast", "southwest", "up", "down")


def lowered(s: str) -> str:
    return " ".join(s.lower().split())


def failed(text: str | None) -> bool:
    """Whether a game answer reports that the command did nothing."""
    first = (text or "").strip().split("\n")[0]
    return bool(FAILURE.search(first)) and not first.startswith("-=")
