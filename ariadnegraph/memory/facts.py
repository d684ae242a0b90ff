"""The fact: one semantic edge of the temporal knowledge graph, with the clocks that say when it held."""

from __future__ import annotations

from dataclasses import asdict, dataclass, replace
from typing import Any

from ..prompting import dated_fact_line

Triplet = tuple[str, str, str]


@dataclass(frozen=True)
class Fact:
    """``subject --relation--> object``, true in the world from ``valid_from`` until ``valid_to``.

    Steps are the agent's step counter. ``valid_to`` is the first step at which the fact no longer
    held (None while it still holds), so the fact is true for ``valid_from <= t < valid_to``.
    ``recorded_at`` is when memory learned it (the system clock, in Graphiti's sense); ``source`` is the
    step of the episodic vertex (observation) it was extracted from, when there is one.
    ``subject``/``object`` keep the first surface form seen; the ``*_key`` fields are the canonical
    identities used for matching.
    """

    id: int
    subject: str
    relation: str
    object: str
    subject_key: str
    object_key: str
    valid_from: int
    valid_to: int | None = None
    recorded_at: int = 0
    source: int | None = None

    @property
    def key(self) -> tuple[str, str, str]:
        return (self.subject_key, self.relation, self.object_key)

    @property
    def is_open(self) -> bool:
        return self.valid_to is None

    def valid_at(self, step: int) -> bool:
        """True in the world at ``step`` by the fact's own clock (what memory knows now, not then)."""
        return self.valid_from <= step and (self.valid_to is None or step < self.valid_to)

    # -- time travel: the one definition of "memory as it was at step k" ---------------------------------------
    def known_at(self, step: int) -> "Fact | None":
        """The fact as memory knew it at ``step``: None when it was recorded later; still open when it was
        closed later (at ``step`` nothing had yet contradicted it). Every reader of a past step goes through
        this (``TemporalKG.history``), so no answer about step k can carry what was learned after k."""
        if self.recorded_at > step:
            return None
        return replace(self, valid_to=None) if self.valid_to is not None and self.valid_to > step else self

    def held_span(self) -> tuple[int, int | None]:
        """The steps at which memory held the fact true, ``first <= k < end`` (end None: still holds): from
        when it was both true and known until it was closed. The report's slider shows a fact over this span."""
        return max(self.valid_from, self.recorded_at), self.valid_to

    def held_at(self, step: int) -> bool:
        """Whether memory, as it was at ``step``, held the fact true at that step (``known_at`` and valid)."""
        first, end = self.held_span()
        return first <= step and (end is None or step < end)

    def closed(self, step: int) -> "Fact":
        return replace(self, valid_to=step)

    @property
    def triplet(self) -> Triplet:
        return (self.subject, self.relation, self.object)

    def text(self) -> str:
        """The sentence used for embedding and for prompts."""
        return f"{self.subject} {self.relation} {self.object}"

    def describe(self) -> str:
        """Text with its time span, the form DAVIS hands to the LLM."""
        return dated_fact_line(self.subject, self.relation, self.object, self.valid_from, self.valid_to)

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> "Fact":
        return cls(**data)
