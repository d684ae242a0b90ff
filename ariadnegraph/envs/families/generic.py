"""The family of a game no family module covers: the defaults of GameFamily (a generic brief, no rules, no parser:
a preset with extraction reads its observations with the model)."""

from __future__ import annotations

from . import prompts
from .base import GameFamily


class Generic(GameFamily):
    name = "generic"
    brief = prompts.GENERIC


FAMILY = Generic()
