"""What a game family's rules say, as code: the moves that ruin the episode for good, for the agent's shield
(``rules_shield``), and the commands an instruction of the family means (``follow_lists``).

The ENVIRONMENT brief (:mod:`ariadnegraph.envs.prompts`) states these rules in words to every preset; a
preset with the shield also keeps the commands that break them out of its choices and never plays them.
Only rules whose breaking cannot be undone are here (a lost game, a burned ingredient), for the families
whose rules are known: the cooking games of TextWorld and TextWorldExpress's CookingWorld.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence

from .registry import split_spec

COOKED_STATES = ("roasted", "fried", "grilled", "burned", "burnt")
_COOK = re.compile(r"^cook (?:the )?(.+?) (?:with|in|on) .+$")
_EAT = re.compile(r"^eat (?:the )?(.+)$")


def cooking_family(spec: str) -> bool:
    """TextWorld's cooking games (generated, or AriGraph's) and TextWorldExpress's CookingWorld."""
    prefix, rest = split_spec(spec)
    return (
        prefix == "cooking"
        or (prefix == "arigraph" and rest.startswith("cook"))
        or (prefix == "twx" and rest.startswith("cookingworld"))
    )


def ruinous(spec: str, command: str, inventory: Iterable[str] | None) -> str | None:
    """Why ``command`` breaks the game's rules for good, or None: in a cooking game, eating anything but the
    meal loses the game, and cooking an ingredient the inventory shows cooked already burns it."""
    if not cooking_family(spec):
        return None
    words = " ".join((command or "").lower().split())
    eaten = _EAT.match(words)
    if eaten and eaten.group(1) != "meal":
        return f"eating the {eaten.group(1)} loses the game (only the prepared meal is eaten)"
    cooked = _COOK.match(words)
    if cooked:
        item = cooked.group(1)
        held = [" ".join(str(i).lower().split()) for i in inventory or []]
        if any(h.endswith(item) and h.split()[0] in COOKED_STATES for h in held if h != item):
            return f"the {item} is cooked already: cooking it again burns it"
    return None


def allowed(spec: str, commands: Sequence[str], inventory: Iterable[str] | None) -> list[str]:
    """``commands`` without the ruinous ones."""
    held = list(inventory or [])
    return [c for c in commands if ruinous(spec, c, held) is None]


# A cooking direction names the way to cook; the command names the appliance (the brief's "fry on the stove, ...")
COOKING_APPLIANCES = {"fry": "stove", "roast": "oven", "grill": "bbq"}
_DIRECTION = re.compile(r"^(fry|roast|grill) (?:the )?(.+)$")


def phrasings(spec: str, item: str) -> list[str]:
    """Other wordings of an instruction read, as the family's commands put it ("fry the tuna": "cook tuna stove"),
    for matching it with a valid command word for word; none outside the cooking family."""
    if not cooking_family(spec):
        return []
    found = _DIRECTION.match(" ".join(item.lower().split()))
    return [f"cook {found.group(2)} {COOKING_APPLIANCES[found.group(1)]}"] if found else []


# The brief's "cut (slice, dice, chop) only with the knife in your inventory"
CUTTING_VERBS = ("chop", "slice", "dice")


def tools_needed(spec: str, item: str) -> list[str]:
    """What an instruction read needs held before any command can do it ("chop the tuna": the knife); none
    outside the cooking family."""
    if not cooking_family(spec):
        return []
    return ["knife"] if " ".join(item.lower().split()).startswith(CUTTING_VERBS) else []
