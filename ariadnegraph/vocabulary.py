"""The words of text games that several layers share, with one owner: directions, the commands that
change nothing, and the states things can be in (doors, cut and cooked food). The environments, the
memory, the nodes and the scripted double import them; nothing here imports the package."""

from __future__ import annotations

# Each direction and the one that leads back.
OPPOSITE = {
    "north": "south",
    "south": "north",
    "east": "west",
    "west": "east",
    "northeast": "southwest",
    "southwest": "northeast",
    "northwest": "southeast",
    "southeast": "northwest",
    "up": "down",
    "down": "up",
}
DIRECTIONS = tuple(OPPOSITE)
# What players type for a direction.
ABBREVIATIONS = {
    "n": "north",
    "s": "south",
    "e": "east",
    "w": "west",
    "ne": "northeast",
    "nw": "northwest",
    "se": "southeast",
    "sw": "southwest",
    "u": "up",
    "d": "down",
}

LOOK = "look"
SAFE_COMMANDS = (LOOK, "look around", "inventory")  # change nothing in the world (TextWorld, ScienceWorld)

DOOR_STATES = ("open", "closed", "locked")
# Cooking games: the verb of a recipe's direction and the state it leaves an ingredient in.
CUT_VERBS = {"slice": "sliced", "dice": "diced", "chop": "chopped"}
COOK_VERBS = {"fry": "fried", "roast": "roasted", "grill": "grilled"}
CUT_STATES = tuple(CUT_VERBS.values())
COOK_STATES = tuple(COOK_VERBS.values())
BURNED = "burned"  # cooked twice
RAW = "raw"
APPLIANCES = {"fried": "stove", "roasted": "oven", "grilled": "bbq"}  # where each cooked state is made
