"""TextWorld's cooking games (STMA's levels, AriGraph's cook games): the recipe, the knife, the appliances, and the
moves that lose the game. The cooking words every layer uses are owned here (TextWorldExpress's CookingWorld plays
by the same rules and imports them)."""

from __future__ import annotations

import functools
import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass

from . import parse_textworld, prompts
from .base import GameFamily, Observed, Sighting, Standing, Triplet
from .textworld import TextWorld

# The verb of a recipe's direction and the state it leaves an ingredient in.
CUT_VERBS = {"slice": "sliced", "dice": "diced", "chop": "chopped"}
COOK_VERBS = {"fry": "fried", "roast": "roasted", "grill": "grilled"}
READ_THE_RECIPE = "read the recipe in the cookbook"  # the first step of every cooking game (the rules say so)
CUT_STATES = tuple(CUT_VERBS.values())
COOK_STATES = tuple(COOK_VERBS.values())
BURNED = "burned"  # cooked twice
RAW = "raw"
COOKING_STATES = frozenset({RAW, *CUT_STATES, *COOK_STATES, BURNED, "burnt"})
MEAL = "meal"


@dataclass(frozen=True)
class Appliance:
    """Where a way of cooking is done: the appliance as the game's commands name it ('cook carrot with bbq'), as the
    game's text shows it, how it is done there ('on' the stove, 'in' the oven), and where it is when not in every
    kitchen."""

    name: str
    shown: str
    at: str  # "on" or "in"
    where: str = ""


# Per way of cooking a recipe's direction names, the appliances a family's games do it with, as data: the rules
# (ruins_a_meal), the grounding of a direction and the brief (appliance_rules) all read this one table.
CookingWays = Mapping[str, tuple[Appliance, ...]]
TEXTWORLD_WAYS: CookingWays = {
    "fry": (Appliance("stove", "stove", "on"),),
    "roast": (Appliance("oven", "oven", "in"),),
    "grill": (Appliance("bbq", "BBQ", "on"),),
}


def appliance_rules(ways: CookingWays) -> str:
    """Where each way of cooking is done, as the brief says it: 'fry on the stove, roast in the oven, grill on the
    BBQ'."""
    return ", ".join(
        f"{way} " + " or ".join(f"{a.at} the {a.shown}" + (f" ({a.where})" if a.where else "") for a in appliances)
        for way, appliances in ways.items()
    )


def appliance_needs(ways: CookingWays) -> str:
    """The same, as a task's text says it: 'frying needs the stove, roasting needs the oven, grilling needs the BBQ'."""
    return ", ".join(
        f"{way}ing needs the {' or the '.join(a.shown for a in appliances)}" for way, appliances in ways.items()
    )


# where each cooked state is made in TextWorld's games (the scripted double reads it too)
APPLIANCES = {COOK_VERBS[way]: appliances[0].name for way, appliances in TEXTWORLD_WAYS.items()}

_COOK = re.compile(r"^cook (?:the )?(.+?) (?:with|in|on) (?:the )?(.+)$")
_EAT = re.compile(r"^eat (?:the )?(.+)$")
_DIRECTION = re.compile(r"^(fry|roast|grill) (?:the )?(.+)$")
# A cooking direction names the way to cook; the command names the appliance (the brief's "fry on the stove", ...):
# per way, the appliances that do it in a family's games
Appliances = dict[str, tuple[str, ...]]


def appliance_names(ways: CookingWays) -> Appliances:
    """Per way of cooking, the names the game's commands give its appliances."""
    return {way: tuple(a.name for a in appliances) for way, appliances in ways.items()}


TEXTWORLD_APPLIANCES: Appliances = appliance_names(TEXTWORLD_WAYS)


@functools.lru_cache(maxsize=8)  # the shield asks once per valid command, with the same texts read
def recipe_appliances(readings: tuple[str, ...], appliances: tuple[tuple[str, tuple[str, ...]], ...]) -> Appliances:
    """What each ingredient may be cooked with, by the directions of the texts read ("grill the red hot pepper": bbq);
    ``appliances``: the family's, as items (hashable for the cache)."""
    way = dict(appliances)
    found: Appliances = {}
    for text in readings:
        for line in text.lower().splitlines():
            direction = _DIRECTION.match(" ".join(line.split()))
            if direction:
                found[direction.group(2)] = way[direction.group(1)]
    return found


def ruins_a_meal(
    command: str,
    inventory: Iterable[str] | None,
    readings: Iterable[str] = (),
    appliances: Appliances = TEXTWORLD_APPLIANCES,
) -> str | None:
    """Eating anything but the meal loses a cooking game; cooking an ingredient the inventory shows cooked burns it;
    cooking it with another appliance than the recipe read says loses the game (it was roasted, not grilled)."""
    words = " ".join((command or "").lower().split())
    eaten = _EAT.match(words)
    if eaten and eaten.group(1) != MEAL:
        return f"eating the {eaten.group(1)} loses the game (only the prepared meal is eaten)"
    cooked = _COOK.match(words)
    if cooked:
        item = cooked.group(1)
        held = [" ".join(str(i).lower().split()) for i in inventory or []]
        # any word before the name: "sliced grilled red apple" is cooked (cut first, then grilled)
        if any(set(h[: -len(item)].split()) & {*COOK_STATES, BURNED, "burnt"} for h in held if h.endswith(f" {item}")):
            return f"the {item} is cooked already: cooking it again burns it"
        # only an appliance these rules know
        wanted = recipe_appliances(tuple(readings), tuple(appliances.items())).get(item)
        used = cooked.group(2)
        if wanted and used in {a for known in appliances.values() for a in known} and used not in wanted:
            return f"the recipe cooks the {item} with the {' or the '.join(wanted)}, and any other way loses the game"
    return None


def cooking_phrasings(item: str, appliances: Appliances = TEXTWORLD_APPLIANCES) -> list[str]:
    """ "fry the tuna" as the game's command puts it: "cook tuna stove"."""
    found = _DIRECTION.match(" ".join(item.lower().split()))
    return [f"cook {found.group(2)} {appliance}" for appliance in appliances[found.group(1)]] if found else []


def cooking_tools(item: str) -> list[str]:
    """A cut (slice, dice, chop) needs the knife held (the brief's "cut only with the knife in your inventory")."""
    return ["knife"] if " ".join(item.lower().split()).startswith(tuple(CUT_VERBS)) else []


def appliance_for(item: str, appliances: Appliances = TEXTWORLD_APPLIANCES) -> list[str]:
    """A cooking direction needs its appliance: "roast the carrot" is done at the oven."""
    found = _DIRECTION.match(" ".join(item.lower().split()))
    return list(appliances[found.group(1)]) if found else []


def held_states(facts: Iterable[Triplet], inventory: Iterable[str] | None) -> list[Triplet]:
    """The cooking states the inventory's names show ("sliced raw pork chop": the pork chop is sliced and raw), for
    the things ``facts`` place in the inventory under their short names."""
    held = [t[0] for t in facts if t[1] == "in" and t[2] == parse_textworld.INVENTORY]
    found: list[Triplet] = []
    for name in (" ".join(str(i).lower().split()) for i in inventory or []):
        thing = next((h for h in sorted(held, key=len, reverse=True) if name.endswith(h)), None)
        if thing is None:
            continue
        found += [(thing, "is", word) for word in name[: -len(thing)].split() if word in COOKING_STATES]
    return found


_STATE_WORDS = "|".join(sorted(COOKING_STATES))


def shown_states(facts: Iterable[Triplet], text: str) -> list[Triplet]:
    """The cooking states the text shows before the name of a thing ``facts`` place somewhere ("There is a raw yellow
    potato on the floor", "The fridge contains a raw chicken wing": raw), where the commands name it without them."""
    placed = {t[0] for t in facts if t[1] in ("in", "on")}
    lowered = " ".join(text.lower().split())
    found: list[Triplet] = []
    for thing in placed:
        for shown in re.finditer(rf"\b((?:(?:{_STATE_WORDS}) )+){re.escape(thing)}\b", lowered):
            found += [(thing, "is", word) for word in shown.group(1).split()]
    return list(dict.fromkeys(found))


class CookingRules(GameFamily):
    """The cooking rules, for any family whose games cook (mixed in before the family's own class)."""

    verb_synonyms = {"enjoy": "eat"}  # the goal says "enjoy your meal", the game takes "eat meal"
    ignored_words = frozenset({"your"})
    verbs = GameFamily.verbs | set(CUT_VERBS) | set(COOK_VERBS) | {"prepare"}
    state_groups = (frozenset({RAW, *COOK_STATES, BURNED, "cooked"}), frozenset({"uncut", *CUT_STATES}))
    appliances: Appliances = TEXTWORLD_APPLIANCES  # where each way of cooking is done in the family's games

    def ruinous(self, command: str, standing: Standing) -> str | None:
        return ruins_a_meal(command, standing.inventory, standing.readings, self.appliances)

    def phrasings(self, item: str) -> list[str]:
        return cooking_phrasings(item, self.appliances)

    def tools_needed(self, item: str) -> list[str]:
        return cooking_tools(item)

    def goal_steps(self, goal: str) -> list[str]:
        """The recipe is read first (the rules say so), also where the goal does not say it ("Prepare the meal from the
        recipe and eat it": a goal of one step names no cookbook, and what to cook is known only once it is read)."""
        steps = super().goal_steps(goal)
        return steps if any("cookbook" in step.lower() for step in steps) else [READ_THE_RECIPE, *steps]

    def things_named(self, item: str) -> list[str]:
        if " ".join(item.lower().split()).startswith(("prepare", "eat")):  # the meal is made, not found
            return []
        return [*super().things_named(item), *appliance_for(item, self.appliances)]

    def places_named(self, item: str, goal: str) -> list[str]:
        """The meal is prepared in the kitchen (the brief's "'prepare meal' in the kitchen")."""
        return ["kitchen"] if " ".join(item.lower().split()).startswith("prepare") else []

    def perceive(self, seen: Observed) -> Sighting:
        found = super().perceive(seen)
        states = list(dict.fromkeys([*held_states(found.facts, seen.inventory), *shown_states(found.facts, seen.text)]))
        return Sighting((*found.facts, *states), found.shown) if states else found


class Cooking(CookingRules, TextWorld):
    name = "textworld.cooking"
    brief = f"{prompts.TEXTWORLD}\n{prompts.cooking_rules(appliance_rules(TEXTWORLD_WAYS))}"

    def covers(self, prefix: str, rest: str) -> bool:
        return prefix == "cooking" or (prefix == "arigraph" and rest.startswith("cook"))


FAMILY = Cooking()
