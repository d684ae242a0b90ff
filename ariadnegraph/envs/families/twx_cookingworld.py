"""TextWorldExpress's CookingWorld: TextWorld's cooking rules (textworld_cooking owns them), read by the TWX parser."""

from __future__ import annotations

from . import prompts
from .textworld_cooking import Appliance, Appliances, CookingRules, CookingWays, appliance_names, appliance_rules
from .twx import TextWorldExpress

# TextWorldExpress's games grill on the barbeque, which is outside (the backyard); a game whose kitchen is the only
# room grills in the toaster (its commands: 'cook red potato in barbeque', 'cook banana in toaster')
TWX_WAYS: CookingWays = {
    "fry": (Appliance("stove", "stove", "on"),),
    "roast": (Appliance("oven", "oven", "in"),),
    "grill": (
        Appliance("barbeque", "barbeque", "on", "outside, in the backyard"),
        Appliance("toaster", "toaster", "in", "in a game whose kitchen is the only room"),
    ),
}


class CookingWorld(CookingRules, TextWorldExpress):
    name = "twx.cookingworld"
    games = ("cookingworld",)
    appliances: Appliances = appliance_names(TWX_WAYS)

    @property
    def brief(self) -> str:  # type: ignore[override]
        return f"{prompts.TEXTWORLD_EXPRESS}\n{prompts.cooking_rules(appliance_rules(TWX_WAYS))}"


FAMILY = CookingWorld()
