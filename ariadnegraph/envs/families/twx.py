"""What TextWorldExpress's games share: the brief, and perception by the TWX parser. Each game is a family of its own
(one module each, twx_*.py), subclassing this with its name and its line of the brief."""

from __future__ import annotations

from collections.abc import Sequence
from typing import ClassVar

from . import parse_twx, prompts
from .base import GameFamily, Observed, Sighting

BOX = "box"  # where the arithmetic and sorting games want their things


class TextWorldExpress(GameFamily):
    name: ClassVar[str] = "twx"
    games: ClassVar[tuple[str, ...]] = ()  # the TWX settings this family covers (their names start with one)

    @property
    def brief(self) -> str:  # type: ignore[override]
        line = prompts.TWX_GAMES.get(self.name.removeprefix("twx."))
        return f"{prompts.TEXTWORLD_EXPRESS}\n{line}" if line else prompts.TEXTWORLD_EXPRESS

    def covers(self, prefix: str, rest: str) -> bool:
        return prefix == "twx" and rest.startswith(self.games)

    def goal_steps(self, goal: str) -> list[str]:
        """TextWorldExpress's goals put remarks among their steps ("A map is provided, that you may find helpful"):
        only the clauses that instruct are steps."""
        steps = super().goal_steps(goal)
        return [step for step in steps if self.instructs(step)] or steps

    def perceive(self, seen: Observed) -> Sighting:
        return parse_twx.sighting(seen)


def into_box(thing: str, commands: Sequence[str]) -> list[str]:
    """The valid commands that bring ``thing`` to the box: put it there when it is carried, else take it."""
    valid = {" ".join(command.lower().split()): command for command in commands}
    wanted = (f"put {thing} in {BOX}".lower(), f"take {thing}".lower())
    return [valid[move] for move in wanted if move in valid]
