"""TextWorldExpress's CookingWorld: TextWorld's cooking rules (textworld_cooking owns them), read by the TWX parser."""

from __future__ import annotations

from . import prompts
from .textworld_cooking import CookingRules
from .twx import TextWorldExpress


class CookingWorld(CookingRules, TextWorldExpress):
    name = "twx.cookingworld"
    games = ("cookingworld",)

    @property
    def brief(self) -> str:  # type: ignore[override]
        return f"{prompts.TEXTWORLD_EXPRESS}\n{prompts.COOKING_RULES}"


FAMILY = CookingWorld()
