"""Question generation (EMemBench algorithm 1): enumerate each template's candidates (table 14's, or
table 15's for a Crafter run) on the episode's timeline up to the horizon, keep those whose precondition holds, sample a
balanced set per ability
type with a seed, and add adversarial (false-premise) questions.

Adversarial values are names that exist in the game (oracle facts of any step, ScienceWorld's rooms,
things held only after the horizon) but never occur in the episode up to the horizon: not in any
action, observation, location or inventory of steps 0..N. The template's own precondition must fail
on them too, so "not answerable" is checked by the same code that computes every other answer.
"""

from __future__ import annotations

import random
from collections.abc import Sequence
from dataclasses import asdict, dataclass, field
from typing import Any, cast

from ...config import MEMQA_PER_TYPE
from .crafter_index import CrafterTimeline
from .crafter_templates import CRAFTER_TEMPLATES
from .index import Episode, Timeline, mentions, norm
from .questions import ABILITIES, NOT_ANSWERABLE, Answer, Template, Vocabulary
from .templates import HORIZON_PREFIX, TEMPLATES

# Ours: EMemBench's A.6 history_turns=10 is the gameplay prompt's window (its Jericho template, A.3); the paper's
# in-context answerer reads the whole log (§4), our full-history answerer
IN_CONTEXT_TURNS = 10
PER_TYPE = MEMQA_PER_TYPE


@dataclass(frozen=True)
class QAItem:
    """One question with its ground truth and metadata (EMemBench's (q, y, m))."""

    id: str
    run_id: str
    template: str
    ability: str
    answer_type: str
    question: str
    answer: Answer
    evidence: tuple[int, ...]
    horizon: int
    slots: dict[str, Any] = field(default_factory=dict)
    adversarial: bool = False

    @property
    def age(self) -> str:
        """'recent' when every evidence step lies in the in-context window (the last 10 turns before
        the horizon), else 'old'."""
        return "recent" if self.evidence and min(self.evidence) > self.horizon - IN_CONTEXT_TURNS else "old"

    def to_dict(self) -> dict[str, Any]:
        return {**asdict(self), "evidence": list(self.evidence), "age": self.age}


def candidates(
    template: Template, tl: Timeline, vocab: Vocabulary
) -> list[tuple[dict[str, Any], Answer, tuple[int, ...]]]:
    """Every instantiation whose precondition holds, with its answer and evidence (deduplicated)."""
    found, seen = [], set()
    for slots in template.slots(tl, vocab):
        key = tuple(sorted(slots.items()))
        if key in seen:
            continue
        seen.add(key)
        solved = template.solve(tl, **slots)
        if solved is None or solved[0] in (None, "", []):
            continue
        found.append((slots, solved[0], solved[1]))
    return found


def absent_values(episode: Episode, tl: Timeline, kind: str) -> list[str]:
    """Game values of ``kind`` ('item', 'location', 'keyword'; Crafter's 'resource', 'terrain', 'action',
    'keyword') that never occur in ``tl``."""
    if isinstance(tl, CrafterTimeline):  # its frames' text names every item: what never occurred in its signals
        return tl.absent(kind)
    full = episode.timeline
    later_items = {i for t in full.order if t > tl.last for i in full.inventory(t) or ()}
    later_rooms = {cast(str, full.location(t)) for t in full.order if t > tl.last and full.location(t)}
    items = {norm(v): v for v in [*episode.items, *later_items]}
    rooms = {norm(v): v for v in [*episode.locations, *later_rooms]}
    pools: dict[str, dict[str, str]] = {"item": items, "location": rooms, "keyword": {**items, **rooms}}
    pool = pools[kind]
    return sorted(v for k, v in pool.items() if k and not mentions(tl.text, k))


def _sample(rng: random.Random, pools: list[list[Any]], k: int) -> list[Any]:
    """Round-robin over templates (each pool shuffled), so one template cannot fill a type."""
    pools = [rng.sample(p, len(p)) for p in pools if p]
    rng.shuffle(pools)
    picked: list[Any] = []
    while len(picked) < k and any(pools):
        for pool in pools:
            if pool and len(picked) < k:
                picked.append(pool.pop())
    return picked


def generate(episode: Episode, *, horizon: int | None = None, per_type: int = PER_TYPE, seed: int = 42) -> list[QAItem]:
    """``per_type`` questions of each ability type (fewer when too few candidates) over steps 0..horizon."""
    tl = episode.timeline.upto(horizon)
    last = tl.last
    vocab = Vocabulary(episode.items, episode.locations)
    prefix = HORIZON_PREFIX.format(horizon=last) if horizon is not None else ""
    templates = CRAFTER_TEMPLATES if isinstance(tl, CrafterTimeline) else TEMPLATES  # table 15, else table 14
    items: list[QAItem] = []

    def add(
        template: Template, slots: dict[str, Any], answer: Answer, evidence: Sequence[int], adversarial: bool = False
    ) -> None:
        items.append(
            QAItem(
                f"{episode.run_id}:{len(items)}",
                episode.run_id,
                template.id,
                "Adversarial" if adversarial else template.ability,
                "string" if adversarial else template.answer_type,
                prefix + template.question(slots),
                answer,
                tuple(sorted(set(evidence))),
                last,
                dict(slots),
                adversarial,
            )
        )

    for ability in ABILITIES[:-1]:
        rng = random.Random(f"{seed}|{episode.run_id}|{horizon}|{ability}")
        pools = [[(t, *c) for c in candidates(t, tl, vocab)] for t in templates if t.ability == ability]
        for template, slots, answer, evidence in _sample(rng, pools, per_type):
            add(template, slots, answer, evidence)

    rng = random.Random(f"{seed}|{episode.run_id}|{horizon}|Adversarial")
    pools = []
    for template in templates:
        if template.adversarial is None:
            continue
        slot, kind = template.adversarial
        values = absent_values(episode, tl, kind)
        pool: dict[tuple, Any] = {}
        for slots, _, _ in candidates(template, tl, vocab)[:20]:
            for value in values:
                false = {**slots, slot: value}
                if template.solve(tl, **false) is None:
                    pool.setdefault(tuple(sorted(false.items())), (template, false))
        pools.append(list(pool.values()))
    for template, slots in _sample(rng, pools, per_type):
        add(template, slots, NOT_ANSWERABLE, range(0, last + 1), adversarial=True)
    return items
