"""TextWorldExpress's CookingWorld: TextWorld's cooking rules (textworld_cooking owns them), read by the TWX parser."""

from __future__ import annotations

from . import prompts
from .textworld_cooking import Appliances, CookingRules
from .twx import TextWorldExpress


class CookingWorld(CookingRules, TextWorldExpress):
    name = "twx.cookingworld"
    games = ("cookingworld",)
    # the game's own commands: 'cook red potato in barbeque'; 'cook banana in toaster' where the kitchen is all
    appliances: Appliances = {"fry": ("stove",), "roast": ("oven",), "grill": ("barbeque", "toaster")}

    @property
    def brief(self) -> str:  # type: ignore[override]
        return f"{prompts.TEXTWORLD_EXPRESS}\n{prompts.cooking_rules(prompts.TWX_APPLIANCES)}"


FAMILY = CookingWorld()
