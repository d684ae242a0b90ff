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
        return self.valid_from <= step and (self.valid_to is None or step < self.valid_to)

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
