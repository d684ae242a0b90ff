"""Crafter's instruction manual, the one AgentKit's Crafter agent checks its knowledge against
(Wu et al. 2024, appendix D.1): desired interactions, the achievements and what each requires, the
actions and what each needs, and notes. Written in our words; the recipes, tools and actions are read
at run time from the installed ``crafter`` package's own ``data.yaml``, never copied here.

Like the manual the paper gave its agent, it names which items and places a recipe needs but not how
many: those amounts are what the agent's knowledge base has to learn from playing (section 4.1).
"""

from __future__ import annotations

import functools
from pathlib import Path
from typing import Any

import yaml

# What the game rewards doing, in our words (the paper's list of desired interactions, condensed).
_INTERACTIONS = (
    "gather wood, saplings, stone, coal, iron and diamonds",
    "place a table, a furnace, stone and plants; make pickaxes and swords",
    "eat (a cow, a ripe plant), drink water from a lake, and sleep when energy is low, somewhere safe",
    "keep away from zombies, skeletons and arrows, or fight them once you have a weapon",
    "stone can bridge water, block arrows or wall you in for the night",
)
# Achievements whose requirements are not a recipe of data.yaml (they come from creatures or the body).
_OTHER_NEEDS = {
    "collect_drink": "nothing (face water)",
    "collect_sapling": "nothing (collecting grass sometimes gives one)",
    "eat_cow": "nothing (face a cow and hit it)",
    "eat_plant": "place_plant, then wait for the plant to ripen",
    "defeat_zombie": "nothing (a weapon helps)",
    "defeat_skeleton": "nothing (skeletons live in dark caves)",
    "wake_up": "nothing (sleep, then wake when rested)",
}
_ACTION_NEEDS = {
    "noop": "always possible",
    "move_left": "walkable ground to the west",
    "move_right": "walkable ground to the east",
    "move_up": "walkable ground to the north",
    "move_down": "walkable ground to the south",
    "do": "facing a material or creature, with the tool that material needs",
    "sleep": "energy below its maximum",
}
_NOTES = (
    "Only the four directions exist: there are no diagonal moves.",
    "Health comes back by itself over time while food, drink and energy are not empty.",
    "A zombie close by chases you; fight it or get away.",
    "While asleep you cannot act until energy is full, and zombies hurt more: sleep only where it is safe.",
)


@functools.cache
def crafter_data() -> dict[str, Any]:
    """The installed crafter package's ``data.yaml`` (actions, recipes, achievements)."""
    import crafter

    return yaml.safe_load((Path(crafter.__file__).parent / "data.yaml").read_text())


def _words(name: str) -> str:
    return name.replace("_", " ")


def _requirements(data: dict[str, Any]) -> dict[str, str]:
    """Achievement -> what it requires, from the recipes (items by name only: amounts are left to learn)."""
    needs: dict[str, str] = {}
    for material, rule in (data.get("collect") or {}).items():
        received = next(iter(rule.get("receive") or {}), material)
        tools = [f"make_{tool}" for tool in rule.get("require") or {}]
        needs.setdefault(f"collect_{received}", ", ".join(tools) or "nothing")
    for thing, rule in (data.get("place") or {}).items():
        items = [f"collect_{item}" for item in rule.get("uses") or {}]
        needs[f"place_{thing}"] = ", ".join(items) or "nothing"
    for tool, rule in (data.get("make") or {}).items():
        places = [f"place_{place}" for place in rule.get("nearby") or []]
        items = [f"collect_{item}" for item in rule.get("uses") or {}]
        needs[f"make_{tool}"] = ", ".join(dict.fromkeys(places + items))
    needs.update(_OTHER_NEEDS)
    return needs


def _action_needs(data: dict[str, Any]) -> dict[str, str]:
    needs = dict(_ACTION_NEEDS)
    for thing, rule in (data.get("place") or {}).items():
        items = " and ".join(_words(i) for i in rule.get("uses") or {})
        needs[f"place_{thing}"] = f"{items} in the inventory; facing {' or '.join(rule.get('where') or [])}"
    for tool, rule in (data.get("make") or {}).items():
        nearby = " and ".join(rule.get("nearby") or [])
        items = ", ".join(_words(i) for i in rule.get("uses") or {})
        needs[f"make_{tool}"] = f"a {nearby} nearby; {items} in the inventory"
    return needs


@functools.cache
def crafter_manual() -> str:
    """The manual as the agent reads it: plain text, one item a line."""
    data = crafter_data()
    needs = _requirements(data)
    actions = _action_needs(data)
    lines = ["What to do:", *(f"- {line}" for line in _INTERACTIONS), "", "Achievements and what each requires first:"]
    lines += [f"- {_words(a)}: {_words(needs.get(a, 'nothing'))}" for a in data["achievements"]]
    lines += ["", "Actions (as commands) and what each needs:"]
    lines += [f"- {_words(a)}: {actions.get(a, 'always possible')}" for a in data["actions"]]
    lines += ["", "Notes:", *(f"- {note}" for note in _NOTES)]
    return "\n".join(lines)
