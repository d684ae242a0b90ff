"""What a memory-QA question is (EMemBench, table 14): a :class:`Template` (ability, answer type, text, a solver and
its slots), the vocabulary slots are drawn from, and the helpers every solver shares over a :class:`Timeline`."""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from .index import Timeline, norm

NOT_ANSWERABLE = "not answerable"


NOTHING = "nothing"


ABILITIES = ("Single-Hop", "Multi-Hop", "Inducing", "Spatial", "Temporal", "Logical", "Adversarial")


INT_SLOTS = {"step", "delta", "k", "K", "offset", "L", "R", "anchor", "i", "j"}


ORDINALS = {"first": 0, "second": 1, "last": -1, "second last": -2}


Answer = str | int | list[str]


Solved = tuple[Answer, tuple[int, ...]] | None


@dataclass(frozen=True)
class Vocabulary:
    """Values that exist in the game (for keywords and adversarial values)."""

    items: Sequence[str] = ()
    locations: Sequence[str] = ()


@dataclass(frozen=True)
class Template:
    id: str
    ability: str
    answer_type: str  # "string" | "integer" | "list" (several acceptable answers)
    text: str
    solve: Callable[..., Solved]
    slots: Callable[[Timeline, Vocabulary], Iterable[dict[str, Any]]]
    adversarial: tuple[str, str] | None = None  # (slot, kind of value) a false-premise value may replace
    pattern: re.Pattern = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        regex = re.escape(self.text)
        for name in dict.fromkeys(re.findall(r"\{(\w+)\}", self.text)):
            group = r"(?P<%s>-?\d+)" % name if name in INT_SLOTS else r"(?P<%s>.+?)" % name
            regex = regex.replace(re.escape("{" + name + "}"), group, 1).replace(
                re.escape("{" + name + "}"), f"(?P={name})"
            )
        object.__setattr__(self, "pattern", re.compile(f"^{regex}$", re.IGNORECASE))

    def question(self, slots: dict[str, Any]) -> str:
        return self.text.format(**slots)

    def parse(self, question: str) -> dict[str, Any] | None:
        m = self.pattern.match(question.strip())
        if not m:
            return None
        return {k: int(v) if k in INT_SLOTS else v for k, v in m.groupdict().items()}


# -- shared helpers ------------------------------------------------------------------------------
def is_known(tl: Timeline, first: int, last: int, field_name: str | None = None) -> bool:
    """Every step of first..last is in the timeline (and has ``field_name`` known)."""
    if first > last:
        return False
    for t in range(first, last + 1):
        s = tl.get(t)
        if s is None or (field_name is not None and getattr(s, field_name) is None):
            return False
    return True


def pick_ordinal(steps: list[int], ordinal: str, ordinals: Mapping[str, int] = ORDINALS) -> int | None:
    """The step an ordinal names in ``steps`` ("second": the second of them; "last"), or None."""
    index = ordinals.get(ordinal)
    if index is None or not steps or (index >= 0 and index >= len(steps)) or (index < 0 and -index > len(steps)):
        return None
    return steps[index]


def most_common(counts: Counter, name: Callable[[str], str] = str) -> Answer | None:
    if not counts:
        return None
    top = max(counts.values())
    best = sorted(name(k) for k, v in counts.items() if v == top)
    return best[0] if len(best) == 1 else best


def acted_steps(tl: Timeline) -> list[int]:
    return [t for t in tl.order if t > 0 and tl.at(t).action]


def timeline_items(tl: Timeline) -> list[str]:
    return sorted(tl.gains)


def timeline_rooms(tl: Timeline) -> list[str]:
    return sorted(tl.arrivals)


def timeline_keywords(tl: Timeline, vocab: Vocabulary) -> list[str]:
    """Game names some observation mentions."""
    return sorted({norm(v) for v in [*vocab.items, *vocab.locations] if tl.mention_steps(v)})


def timeline_reason_keywords(tl: Timeline, vocab: Vocabulary) -> list[str]:
    """Game names some logged reason mentions."""
    return sorted({norm(v) for v in [*vocab.items, *vocab.locations] if tl.reason_steps(v)})


def step_ranges(tl: Timeline) -> list[tuple[int, int]]:
    out = []
    for width in (5, 10):
        for left in range(max(tl.first, 1), tl.last - width + 2, 5):
            out.append((left, left + width - 1))
    return out


def inventory_text(items: Sequence[str]) -> str:
    """An inventory as one answer string: sorted names, comma separated, or 'nothing'."""
    return ", ".join(sorted(norm(i) for i in items)) or NOTHING
