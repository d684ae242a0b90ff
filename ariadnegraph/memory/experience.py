"""Past experience as RAP retrieves it (Kagaya et al. 2024, the baseline DAVIS runs with gold memory, §4.2).

RAP keeps whole past trajectories and, at each step, shows the agent the moments of them most like the present,
with what was done next. Here the trajectories are the gold runs a namespace holds as dated transitions
(``ariadne memory seed-gold``): a run's facts grouped by the step that learned them are one moment (the
command played and what it showed), and the commands the gold run played after it are what was done next.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from .transitions import DatedFact, EmbedFn

FOLLOWING = 3  # the gold run's next commands shown with a moment (ours: RAP shows the retrieved trajectory)
MOMENT_FACTS = 8  # most facts one moment shows


@dataclass(frozen=True)
class Moment:
    """One step of a gold run: the command played, and the facts it showed."""

    source: str
    step: int
    action: str | None
    facts: tuple[str, ...]

    def text(self) -> str:
        """What similarity is measured on: the command and what it showed."""
        return " ".join(filter(None, [self.action or "", *self.facts]))


def moments(transitions: Sequence[DatedFact]) -> list[Moment]:
    """The gold runs' steps in order (run by run), each with its command and the facts it learned."""
    grouped: dict[tuple[str, int], list[DatedFact]] = {}
    for fact in transitions:
        grouped.setdefault((fact.source, fact.step), []).append(fact)
    return [
        Moment(source, step, next((f.action for f in facts if f.action), None), tuple(_fact(f) for f in facts))
        for (source, step), facts in sorted(grouped.items())
    ]


def _fact(fact: DatedFact) -> str:
    return f"{fact.subject} {fact.relation} {fact.object}"


def similar_moments(query: str, found: Sequence[Moment], embed: EmbedFn, k: int) -> list[Moment]:
    """The ``k`` moments whose command and facts are closest to ``query`` (cosine), best first."""
    if not found or k <= 0 or not query.strip():
        return []
    vectors = embed([query, *(m.text() for m in found)])
    vectors = vectors / np.maximum(np.linalg.norm(vectors, axis=1, keepdims=True), 1e-9)
    scores = vectors[1:] @ vectors[0]
    order = sorted(range(len(found)), key=lambda i: (-float(scores[i]), i))
    return [found[i] for i in order[:k]]


def experience_line(moment: Moment, found: Sequence[Moment], following: int = FOLLOWING) -> str:
    """How the agent reads a retrieved moment: its run and step, the command and what it showed, then the
    commands the run played next (those of its steps that showed something new: a step that learned no fact left
    no dated transition in the namespace)."""
    after = [m.action for m in found if m.source == moment.source and m.step > moment.step and m.action]
    did = f" after '{moment.action}'" if moment.action else ""
    shown = "; ".join(moment.facts[:MOMENT_FACTS]) or "nothing new"
    then = f" -> then: {', '.join(after[:following])}" if after else " -> then: the run ended"
    return f"[{moment.source}, step {moment.step}]{did}: {shown}{then}"
