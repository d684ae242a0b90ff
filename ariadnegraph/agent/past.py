"""What the nodes ask of the episode's past, kept up to date as the session records each step.

A step's cost must not grow with the episode: the questions the deciding roles ask every step (which
commands were played, which were tried in this very situation and what the game answered, which steps raised
the score, the last steps' records) are answered from this index, which the session updates as it records a
step (``Session.record``) and rebuilds from the run's trajectory when it is rebuilt itself (a resume, a fork,
a replay on a server worker). Nothing here reads a file.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from collections.abc import Set as AbstractSet
from typing import Any

from ..prompting import first_line
from ..runs import StepRecord

ANSWER_SHOWN = 100  # characters of the game's answer to a command kept with it
Situation = tuple[str | None, tuple[str, ...], float]  # where the player is, what it carries, the score


def situation_of(step: Mapping[str, Any]) -> Situation:
    """The situation a state or a trajectory line is in: in a game that answers the same way to the same command,
    the same place, inventory and score make the same situation."""
    return step.get("location"), tuple(sorted(step.get("inventory") or [])), float(step.get("score", 0.0) or 0.0)


class EpisodePast:
    """The episode's recorded steps, with the answers the nodes ask of them every step kept current (each ``add`` is
    a constant amount of work, whatever the episode's length)."""

    def __init__(self, records: Iterable[StepRecord] = ()) -> None:
        self._records: list[StepRecord] = []
        self._commands: list[str] = []  # every command played, in order
        self._played: set[str] = set()
        self._tried: dict[Situation, dict[str, tuple[int, str]]] = {}  # situation -> command -> (times, last answer)
        self._rises: list[StepRecord] = []
        # situation -> the commands played from it that raised the score, and those that lowered it
        self._raised: dict[Situation, set[str]] = {}
        self._lowered: dict[Situation, set[str]] = {}
        self._starting: dict[tuple[str, ...], list[str]] = {}  # prefixes asked of last_played -> the commands, in order
        self._situation: Situation | None = None  # the situation after the last step recorded
        self._score = 0.0
        for record in records:
            self.add(record)

    def add(self, record: StepRecord) -> None:
        """Index one more recorded step (the steps come in order, step 0 first)."""
        command = record.get("action")
        if command:
            self._commands.append(command)
            self._played.add(command)
            for starts, found in self._starting.items():
                if command.lower().startswith(starts):
                    found.append(command)
            if self._situation is not None:
                tried = self._tried.setdefault(self._situation, {})
                times, _ = tried.get(command, (0, ""))
                tried[command] = (times + 1, first_line(record.get("observation") or "", ANSWER_SHOWN))
        score = float(record.get("score", 0.0) or 0.0)
        if command and score > self._score:
            self._rises.append(record)
        if command and self._situation is not None and score != self._score:
            changed = self._raised if score > self._score else self._lowered
            changed.setdefault(self._situation, set()).add(command)
        self._score = score
        self._situation = situation_of(record)
        self._records.append(record)

    @property
    def steps(self) -> int:
        """How many steps are recorded (step 0 included)."""
        return len(self._records)

    def played(self) -> AbstractSet[str]:
        """Every command played so far (the index's own set, not a copy: it is asked several times a step)."""
        return self._played

    def last_played(self, starts: tuple[str, ...]) -> list[str]:
        """The commands played that start with one of ``starts`` (lower case), the latest first. The first question
        with given ``starts`` reads every command played; ``add`` keeps the answer current after it."""
        found = self._starting.get(starts)
        if found is None:
            found = self._starting[starts] = [c for c in self._commands if c.lower().startswith(starts)]
        return found[::-1]

    def tried_here(self, state: Mapping[str, Any]) -> dict[str, tuple[int, str]]:
        """Commands already played from the situation ``state`` is in, with how often and the first line of the game's
        last answer, in the order they were first played."""
        return dict(self._tried.get(situation_of(state), {}))

    def score_changes_here(self, state: Mapping[str, Any]) -> tuple[frozenset[str], frozenset[str]]:
        """The commands played from the situation ``state`` is in that raised the score, and those that lowered it
        (a score won and then undone brings the situation back: what won it is no dead end there)."""
        here = situation_of(state)
        return frozenset(self._raised.get(here, ())), frozenset(self._lowered.get(here, ()))

    def score_rises(self) -> list[StepRecord]:
        """The steps whose command raised the score, in order."""
        return list(self._rises)

    def records(self, last: int | None = None, until: int | None = None) -> list[StepRecord]:
        """The recorded steps up to step ``until`` (None: all), the ``last`` of them only when given."""
        chosen = self._records if until is None else self._records[: until + 1]  # step k is the k-th record
        if last is None:
            return list(chosen)
        return chosen[-last:] if last > 0 else []
