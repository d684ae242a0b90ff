"""What the controller vetoes and what a deciding role is offered: the valid commands but those the game family's
rules say ruin the episode (``rules_shield``: ``GameFamily.ruinous``), and a text already read again; the family's
cut of a long list of commands."""

from __future__ import annotations

from collections.abc import Sequence

from ..envs.families import GameFamily, Standing
from ..memory import objects as om
from .view import View


def breaks_rules(view: View, command: str) -> str | None:
    """Why the game family's rules say ``command`` ruins the episode, given what is carried, the texts read, the goal
    and what memory has seen in a holder, else None: the one place the rules are asked (GameFamily.ruinous)."""
    memory = view.memory
    current = memory.current()

    def contents(holder: str) -> list[str]:
        return om.contents(current, memory.key(holder))

    standing = Standing(
        inventory=list(view.inventory),
        readings=list(view.readings),
        goal=view.goal,
        contents=contents,
        location=view.location,
    )
    return view.family.ruinous(command, standing)


def within_rules(view: View, commands: Sequence[str]) -> list[str]:
    """``commands`` without those the game family's rules say ruin the episode (``breaks_rules``)."""
    return [command for command in commands if breaks_rules(view, command) is None]


def offered_commands(view: View) -> list[str]:
    """The valid commands a deciding role is offered: all of them, but for those the game family's rules say ruin the
    episode (``rules_shield``) and, with ``pin_readings`` and ``progress_shown``, a text already kept in TEXTS READ read
    again (it shows nothing new; a small model re-reads what the goal says to read)."""
    valid = list(view.valid)
    switches = view.switches
    if switches.pin_readings and switches.progress_shown:
        read = {reading.split(":\n", 1)[0].strip().lower() for reading in view.readings}
        valid = [c for c in valid if c.strip().lower() not in read or view.family.rereads(c)]
    if not switches.rules_shield or not view.env:
        return valid
    return within_rules(view, valid)


def shown_commands(
    family: GameFamily, goal: str, inventory: Sequence[str], commands: Sequence[str], keep: Sequence[str | None] = ()
) -> list[str]:
    """The commands a model is shown of ``commands`` (valid ones): the game family's cut where it lists too many to
    read (GameFamily.shown_commands), the goal and what is carried making one relevant; ``keep`` always (the step
    proposed, a fallback: a choice the schema must admit)."""
    focus = " ".join([goal, *inventory])
    return family.shown_commands(commands, focus, [c for c in keep if c])
