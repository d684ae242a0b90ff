"""What the controller proposes: candidate commands, each with where it came from and why.

A candidate's source says which part of the controller put it forward, in the one vocabulary the trajectory, the
diagnostics and the tables use for code's choices: an instruction read (``said``, ``listed``), the goal's next step
(``goal``), a key for a lock (``key``), the way to what the next step needs, seen elsewhere (``walk``) or from object
memory (``need``), the nearest place not searched yet (``search``), an exit not taken (``exit``), another way out
(``way out``), a thing here to take or open (``reach``), or what changes nothing (``look``); and, for the model to
weigh, what can be done with a thing carried (``carried``: where it belongs, which one the task means) and, where
which thing to take is the task itself, each take here (``weigh``), which code never plays on its own; and what carries
out the answer the model worked out to the task's question (``worked out``: the thing it chose, taken or put in place).
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import StrEnum


class Source(StrEnum):
    """Which part of the controller proposed a command."""

    SAID = "said"  # the game's latest text says to play it now
    LISTED = "listed"  # the next item of a list read (a recipe, a note)
    GOAL = "goal"  # the goal's next step, done here
    KEY = "key"  # a lock whose key is held, a key lying here, a note that tells the way
    WALK = "walk"  # toward what the next step needs, seen in another room
    NEED = "need"  # what the next step needs, as object memory has it
    SEARCH = "search"  # the nearest place not searched yet (object memory's frontier)
    EXIT = "exit"  # an exit not taken yet, or the first move toward one
    WAY_OUT = "way out"  # a way out of here not taken from this situation, or the one taken least
    REACH = "reach"  # a thing here not taken or opened yet
    LOOK = "look"  # what changes nothing (a look, a thing not examined yet), or the step as chosen
    CARRIED = "carried"  # a command that does something with a thing carried (put it somewhere, use it): the model's
    WEIGH = "weigh"  # a take where which thing to take is the task itself (a quantity, an order): the model's
    WORKED = "worked out"  # what carries out the model's answer to the task's question (controller/worked.py)
    TOOL = "tool"  # the take of a thing the task needs carried, lying here (the family's tools_for)


# What an instruction read or the goal says to play: code plays it, no model asked.
FORCED_SOURCES = frozenset(
    {Source.SAID, Source.LISTED, Source.GOAL, Source.KEY, Source.WALK, Source.WORKED, Source.TOOL}
)


@dataclass(frozen=True)
class Candidate:
    """A command the controller puts forward, why, and what it plays next without asking (``then``, in ``room``: the
    search of a lead one move away, once there)."""

    command: str
    source: Source
    why: str
    then: tuple[str, ...] = ()
    room: str | None = None

    def record(self) -> dict[str, str]:
        """As a step's trajectory line keeps it."""
        return {"command": self.command, "source": self.source.value, "why": self.why}
