"""What the controller reads of a step: one typed view, built once where a node asks the controller
(``nodes/common.controller_view``), with the game family the environment node resolved for the episode.

The controller never reads the agent's state, context or session itself: what it needs of them is here, so a
question it asks twice in a step (the next step of a list read, what was tried in this situation) is worked out once
per view (``cached_property``)."""

from __future__ import annotations

from dataclasses import dataclass, field
from functools import cached_property
from typing import Any

from ..agent.past import EpisodePast
from ..agent.presets import Preset
from ..envs.families import GameFamily
from ..memory import WorldMemory


@dataclass(frozen=True)
class View:
    """One step as the controller sees it."""

    family: GameFamily  # the episode's game family
    switches: Preset  # what the preset turns on (the controller reads its own switches of it)
    memory: WorldMemory  # the episode's memory, read only
    past: EpisodePast  # the steps recorded so far
    goal: str = ""
    observation: str = ""  # the game's latest answer
    location: str | None = None
    inventory: tuple[str, ...] = ()
    valid: tuple[str, ...] = ()  # the game's valid commands now
    readings: tuple[str, ...] = ()  # the texts read and kept (pin_readings)
    step: int = 0
    score: float = 0.0
    progress_step: int = 0  # the last step whose command raised the score
    replans: int = 0  # planner calls this step has added after a step was sent back
    avoid: frozenset[str] = frozenset()  # what was sent back this step
    env: str | None = None  # the env spec (None before the game is known)
    # the task's questions the model answered, as (Question.key, the option; "" when it named none): worked.py
    worked_out: tuple[tuple[str, str], ...] = ()
    # what the controller worked out of this view already (steps.next_step): asked several times a step, worked out once
    memo: dict[str, Any] = field(default_factory=dict, compare=False, repr=False)

    @cached_property
    def tried(self) -> dict[str, tuple[int, str]]:
        """What was played from this very situation (place, inventory, score), how often, and the game's last answer,
        in the order first played."""
        return self.past.tried_here(self.situation)

    @cached_property
    def score_changes(self) -> tuple[frozenset[str], frozenset[str]]:
        """The commands played from this very situation that raised the score, and those that lowered it."""
        return self.past.score_changes_here(self.situation)

    @property
    def situation(self) -> dict[str, Any]:
        """The step's situation as the past indexes it (agent/past.situation_of)."""
        return {"location": self.location, "inventory": list(self.inventory), "score": self.score}

    def times_here(self, command: str | None) -> int:
        return self.tried.get(command, (0, ""))[0] if command else 0
