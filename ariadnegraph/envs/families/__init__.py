"""Game families: what the agent knows of each kind of game, one module each, behind one interface
(:class:`~.base.GameFamily`). ``family_of(spec)`` resolves an episode's family once, from its env spec; nodes ask
the family (its brief, rules, wordings, tools, perception, thought graph) and never test a spec themselves.

A new family is one module (a GameFamily subclass and its ``FAMILY``) and one line in ``FAMILIES`` below; the first
family that covers a spec is its family (cooking before the rest of TextWorld), and a spec none covers plays with
the generic family.
"""

from __future__ import annotations

from ..registry import split_spec
from . import (
    crafter,
    generic,
    nethack,
    scienceworld,
    textworld,
    textworld_cooking,
    twx_arithmetic,
    twx_coincollector,
    twx_cookingworld,
    twx_mapreader,
    twx_peckingorder,
    twx_simonsays,
    twx_sorting,
    twx_textworldcommonsense,
)
from .base import GameFamily, Observed, Sighting, Standing

FAMILIES: list[GameFamily] = [
    textworld_cooking.FAMILY,
    textworld.FAMILY,
    twx_cookingworld.FAMILY,
    twx_coincollector.FAMILY,
    twx_mapreader.FAMILY,
    twx_textworldcommonsense.FAMILY,
    twx_sorting.FAMILY,
    twx_arithmetic.FAMILY,
    twx_simonsays.FAMILY,
    twx_peckingorder.FAMILY,
    scienceworld.FAMILY,
    crafter.FAMILY,
    nethack.FAMILY,
]
GENERIC = generic.FAMILY


def family_of(spec: str) -> GameFamily:
    """The family an env spec's game belongs to (the generic one when no module covers it)."""
    prefix, rest = split_spec(spec)
    return next((family for family in FAMILIES if family.covers(prefix, rest)), GENERIC)


def family_named(name: str | None) -> GameFamily | None:
    """The family of that name (as an episode's state keeps it), or None."""
    return next((f for f in [*FAMILIES, GENERIC] if f.name == name), None)


__all__ = ["FAMILIES", "GENERIC", "GameFamily", "Observed", "Sighting", "Standing", "family_named", "family_of"]
