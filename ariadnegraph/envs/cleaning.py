"""Score for the AriGraph cleaning game, which has no score of its own (its max_score is 0).

The rule (``[cleaning]`` in games.toml): +1 the first time each misplaced item is picked up, +1 each
time an item is put at its target, -1 each time an item at its target is moved away. "Misplaced"
means not at its target when the episode starts; in ``clean_3x3_mess_2`` that is all 11 items, so the
maximum is 22. An item is at its target when the facts hold ``in(item, target)`` or
``on(item, target)``; it is carried when they hold ``in(item, I)``.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping

Fact = tuple[str, ...]
INVENTORY = "I"  # TextWorld's name for the player's inventory in facts


class CleaningScorer:
    """Turns successive fact sets into the cleaning score; call :meth:`reset` then :meth:`update`."""

    def __init__(self, targets: Mapping[str, str]) -> None:
        self.targets = dict(targets)
        self.misplaced: tuple[str, ...] = ()
        self.score = 0
        self._picked: set[str] = set()
        self._at_target: dict[str, bool] = {}

    @property
    def max_score(self) -> int:
        """Two points per item misplaced at reset: one for picking it up, one for putting it back."""
        return 2 * len(self.misplaced)

    @property
    def won(self) -> bool:
        return self.max_score > 0 and self.score >= self.max_score

    def at_target(self, facts: Iterable[Fact]) -> dict[str, bool]:
        """For each item that exists in the game: is it at its target now?"""
        present = set(facts) if not isinstance(facts, (set, frozenset)) else facts
        mentioned = {arg for fact in present for arg in fact[1:]}
        return {
            item: ("in", item, target) in present or ("on", item, target) in present
            for item, target in self.targets.items()
            if item in mentioned
        }

    def reset(self, facts: Iterable[Fact]) -> int:
        """Start an episode from the initial facts; returns the score (0)."""
        self._at_target = self.at_target(facts)
        self.misplaced = tuple(item for item, placed in self._at_target.items() if not placed)
        self._picked = set()
        self.score = 0
        return self.score

    def update(self, facts: Iterable[Fact]) -> int:
        """Apply one step's facts; returns the new score."""
        present = set(facts)
        now = self.at_target(present)
        for item, placed in now.items():
            if item in self.misplaced and item not in self._picked and ("in", item, INVENTORY) in present:
                self._picked.add(item)
                self.score += 1
            was = self._at_target.get(item, False)
            if placed and not was:
                self.score += 1
            elif was and not placed:
                self.score -= 1
        self._at_target = now
        return self.score

    def summary(self) -> dict[str, object]:
        """Plain data for ``Oracle.extra``: what is misplaced, picked up, and tidied."""
        return {
            "misplaced_at_reset": self.misplaced,
            "picked_up": tuple(sorted(self._picked)),
            "at_target": tuple(sorted(i for i, placed in self._at_target.items() if placed)),
        }
