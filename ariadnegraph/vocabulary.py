"""The words of text games that several layers share, with one owner: directions, the commands that
change nothing, and the states doors can be in. The environments, the
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
READING_COMMANDS = ("read ", "examine ", "x ")  # what reads a text (a recipe, a note)

DOOR_STATES = ("open", "closed", "locked")
# (a game family's own words, such as cooking's, are its module's: envs/families/)
