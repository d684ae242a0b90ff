"""Crafter as text: a survival world on a grid. The env names the player's region (memory files facts under it), the
family has its instruction manual (AgentKit appendix D) and AgentKit's thought graph (agentkit/crafter.yaml)."""

from __future__ import annotations

from . import prompts
from .base import GameFamily


class Crafter(GameFamily):
    name = "crafter"
    brief = prompts.CRAFTER
    thought_graph = "crafter"
    tracks_position = True

    def covers(self, prefix: str, rest: str) -> bool:
        return prefix == "crafter"

    def manual(self) -> str | None:
        from ..crafter_manual import crafter_manual

        return crafter_manual()


FAMILY = Crafter()
