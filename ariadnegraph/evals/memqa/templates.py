"""EMemBench's question templates for text games (table 14), as small programs over a :class:`Timeline`.

Each template has its ability type, answer type, question text, a ``solve`` that computes the answer
and the evidence steps from a timeline (None when the answerability precondition fails), and a
``slots`` enumerator of candidate values. ``solve`` is the single definition of a template's meaning:
the generator uses it on the true timeline for ground truth, and the scripted answerer uses it on the
timeline it could rebuild from its own context.

Step convention: step 0 is the start; "at step t" means after the action of step t. Table 14's
"before performing the action at step t" is kept where the table says it (A_location, A_obs_before).
A_reason and C_keyword_count_reason read the reasoning the agent logged with each command (the
planner's or the chooser's); A_valid_action the valid commands it was shown when it chose the command
of step t (logged with step t-1, when there were few enough to log). As in table 14,
A_keyword_occurrence and the four ``B_keyword_*`` key on the reason too: the steps whose logged reason
mentions the keyword (a run that logged no reasons gets none of them); C_keyword_count_obs alone counts
in observations.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from .index import Timeline, mentions, norm

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
def _known(tl: Timeline, first: int, last: int, field_name: str | None = None) -> bool:
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


def _items(tl: Timeline) -> list[str]:
    return sorted(tl.gains)


def _rooms(tl: Timeline) -> list[str]:
    return sorted(tl.arrivals)


def _keywords(tl: Timeline, vocab: Vocabulary) -> list[str]:
    """Game names some observation mentions."""
    return sorted({norm(v) for v in [*vocab.items, *vocab.locations] if tl.mention_steps(v)})


def _reason_keywords(tl: Timeline, vocab: Vocabulary) -> list[str]:
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


# -- Single-Hop ----------------------------------------------------------------------------------
def a_action(tl: Timeline, step: int) -> Solved:
    s = tl.get(step)
    return (s.action, (step,)) if s and step > 0 and s.action else None


def a_location(tl: Timeline, step: int) -> Solved:
    loc = tl.location(step - 1)
    return (loc, (step - 1,)) if step > 0 and step in tl and loc else None


def a_obs_before(tl: Timeline, step: int) -> Solved:
    s = tl.get(step - 1)
    return (s.observation, (step - 1,)) if step > 0 and step in tl and s and s.observation else None


def a_obs_after(tl: Timeline, step: int) -> Solved:
    s = tl.get(step)
    return (s.observation, (step,)) if s and step > 0 and s.observation else None


def a_reward(tl: Timeline, step: int) -> Solved:
    s = tl.get(step)
    return (int(round(s.score)), (step,)) if s and step > 0 and s.score is not None else None


def a_gain_item(tl: Timeline, ordinal: str, item: str) -> Solved:
    t = pick_ordinal(tl.gains.get(norm(item), []), ordinal) if ordinal in ("first", "last") else None
    return (t, (t,)) if t is not None else None


_ENTER_LEAVE = {
    "first arrive at": ("arrivals", 0),
    "first leave": ("departures", 0),
    "last arrive at": ("arrivals", -1),
}


def a_enter_leave(tl: Timeline, event: str, location: str) -> Solved:
    if event not in _ENTER_LEAVE:
        return None
    kind, index = _ENTER_LEAVE[event]
    steps = getattr(tl, kind).get(norm(location), [])
    return (steps[index], (steps[index],)) if steps else None


def a_keyword_occurrence(tl: Timeline, ordinal: str, keyword: str) -> Solved:
    t = pick_ordinal(tl.reason_steps(keyword), ordinal)
    return (t, (t,)) if t is not None else None


def _step_slots(tl: Timeline, vocab: Vocabulary) -> Iterable[dict]:
    return ({"step": t} for t in acted_steps(tl))


def _gain_slots(tl: Timeline, vocab: Vocabulary) -> Iterable[dict]:
    return ({"ordinal": o, "item": tl.name(i)} for i in _items(tl) for o in ("first", "last"))


def _enter_slots(tl: Timeline, vocab: Vocabulary) -> Iterable[dict]:
    return ({"event": e, "location": tl.name(r)} for r in _rooms(tl) for e in _ENTER_LEAVE)


def _keyword_slots(tl: Timeline, vocab: Vocabulary) -> Iterable[dict]:
    return ({"ordinal": o, "keyword": k} for k in _reason_keywords(tl, vocab) for o in ORDINALS)


# -- Multi-Hop -----------------------------------------------------------------------------------
def _field_at(tl: Timeline, step: int, what: str) -> Answer | None:
    s = tl.get(step)
    if s is None:
        return None
    if what == "action":
        return s.action or None
    if what == "location":
        return s.location
    if what == "observation":
        return s.observation or None
    return int(round(s.score)) if s.score is not None else None


def _after(anchor_of: Callable[[Timeline, str], int | None], what: str) -> Callable[..., Solved]:
    def solve(tl: Timeline, value: str, delta: int) -> Solved:
        anchor = anchor_of(tl, value)
        if anchor is None or delta < 1:
            return None
        answer = _field_at(tl, anchor + delta, what)
        return (answer, (anchor, anchor + delta)) if answer is not None else None

    return solve


def _first_gain(tl: Timeline, item: str) -> int | None:
    steps = tl.gains.get(norm(item))
    return steps[0] if steps else None


def _first_reason_mention(tl: Timeline, keyword: str) -> int | None:
    steps = tl.reason_steps(keyword)
    return steps[0] if steps else None


def _after_slots(anchor_of: Callable[[Timeline, str], int | None], values: Callable[[Timeline, Vocabulary], list[str]]):
    def slots(tl: Timeline, vocab: Vocabulary) -> Iterable[dict]:
        for v in values(tl, vocab):
            anchor = anchor_of(tl, v)
            for delta in (1, 2, 3):
                if anchor is not None and anchor + delta in tl:
                    yield {"value": tl.name(v), "delta": delta}

    return slots


# -- Inducing ------------------------------------------------------------------------------------
def c_action_mode(tl: Timeline) -> Solved:
    steps = acted_steps(tl)
    counts = Counter(norm(tl.at(t).action) for t in steps)
    answer = most_common(counts)
    return (answer, tuple(steps)) if answer is not None else None


def _visits(tl: Timeline, left: int, right: int) -> list[str]:
    """Locations in order of visits within left..right (a stay counts once)."""
    seq: list[str] = []
    for t in range(left, right + 1):
        loc = norm(tl.location(t))
        if not seq or seq[-1] != loc:
            seq.append(loc)
    return seq


def c_distinct_locations(tl: Timeline, L: int, R: int) -> Solved:
    if not _known(tl, L, R, "location"):
        return None
    return len(set(_visits(tl, L, R))), tuple(range(L, R + 1))


def c_most_frequent_location(tl: Timeline, L: int, R: int) -> Solved:
    if not _known(tl, L, R, "location"):
        return None
    answer = most_common(Counter(_visits(tl, L, R)), tl.name)  # never None: every step's location is known
    return (answer, tuple(range(L, R + 1))) if answer is not None else None


def c_total_dwell(tl: Timeline, L: int, R: int) -> Solved:
    if not _known(tl, L, R, "location"):
        return None
    answer = most_common(
        Counter(norm(tl.location(t)) for t in range(L, R + 1)), tl.name
    )  # never None: every step's location is known
    return (answer, tuple(range(L, R + 1))) if answer is not None else None


def c_keyword_count_obs(tl: Timeline, L: int, R: int, keyword: str) -> Solved:
    if not _known(tl, L, R):
        return None
    pattern = rf"(?<![\w-]){re.escape(keyword.lower())}(?![\w-])"
    count: int = sum(len(re.findall(pattern, tl.at(t).observation.lower())) for t in range(L, R + 1))
    return count, tuple(range(L, R + 1))


def first_sentence(text: str) -> str:
    """The first sentence of a reasoning text, on one line."""
    line = " ".join((text or "").split())
    return re.split(r"(?<=[.!?])\s+", line, maxsplit=1)[0] if line else ""


def a_reason(tl: Timeline, step: int) -> Solved:
    s = tl.get(step)
    return (first_sentence(s.reason), (step,)) if s and step > 0 and s.reason else None


def a_valid_action(tl: Timeline, step: int, action: str) -> Solved:
    shown = tl.get(step - 1)
    if step <= 0 or step not in tl or shown is None or shown.valid is None:
        return None
    return ("yes" if norm(action) in {norm(v) for v in shown.valid} else "no"), (step - 1,)


def c_keyword_count_reason(tl: Timeline, L: int, R: int, keyword: str) -> Solved:
    if not _known(tl, L, R) or not any(tl.at(t).reason for t in range(L, R + 1)):
        return None
    pattern = rf"(?<![\w-]){re.escape(keyword.lower())}(?![\w-])"
    count: int = sum(len(re.findall(pattern, (tl.at(t).reason or "").lower())) for t in range(L, R + 1))
    return count, tuple(range(L, R + 1))


def _reason_slots(tl: Timeline, vocab: Vocabulary) -> Iterable[dict]:
    return ({"step": t} for t in acted_steps(tl) if tl.at(t).reason)


def _valid_slots(tl: Timeline, vocab: Vocabulary) -> Iterable[dict]:
    """The command taken (usually valid) and one valid at another step but not then (a 'no')."""
    every = sorted({v for t in tl.order for v in (tl.at(t).valid or ())})
    for t in acted_steps(tl):
        shown = tl.get(t - 1)
        if shown is None or shown.valid is None:
            continue
        yield {"step": t, "action": tl.at(t).action}
        valid = {norm(v) for v in shown.valid}
        other = next((v for v in every if norm(v) not in valid), None)
        if other is not None:
            yield {"step": t, "action": other}


def _reason_keyword_slots(tl: Timeline, vocab: Vocabulary) -> Iterable[dict]:
    keywords = _reason_keywords(tl, vocab)
    for a, b in step_ranges(tl):
        for k in keywords:
            if any(mentions(tl.at(t).reason or "", k) for t in range(a, b + 1) if t in tl):
                yield {"L": a, "R": b, "keyword": k}


def _range_slots(tl: Timeline, vocab: Vocabulary) -> Iterable[dict]:
    return ({"L": a, "R": b} for a, b in step_ranges(tl))


def _range_keyword_slots(tl: Timeline, vocab: Vocabulary) -> Iterable[dict]:
    keywords = _keywords(tl, vocab)
    for a, b in step_ranges(tl):
        for k in keywords:
            if any(mentions(tl.at(t).observation, k) for t in range(a, b + 1) if t in tl):
                yield {"L": a, "R": b, "keyword": k}


def _none_slots(tl: Timeline, vocab: Vocabulary) -> Iterable[dict]:
    return [{}]


# -- Spatial -------------------------------------------------------------------------------------
def _map_evidence(tl: Timeline, *steps: int) -> tuple[int, ...]:
    return tuple(sorted({*steps, *(m[0] for m in tl.moves)}))


def d_compare_distances(tl: Timeline, A: str, B: str, anchor: int) -> Solved:
    here = tl.location(anchor)
    if not here or norm(A) == norm(B):
        return None
    dist = tl.distances(here)
    a, b = dist.get(norm(A)), dist.get(norm(B))
    if a is None or b is None or a == b:
        return None
    return (A if a < b else B), _map_evidence(tl, anchor)


def d_direction_count(tl: Timeline, L: int, R: int, direction: str) -> Solved:
    if not _known(tl, L, R, "location"):
        return None
    return sum(1 for t, _, d, _ in tl.moves if L <= t <= R and d == norm(direction)), tuple(range(L, R + 1))


def d_reachable_locations_count(tl: Timeline, location: str, k: int) -> Solved:
    dist = tl.distances(location)
    if not dist:
        return None
    return sum(1 for room, d in dist.items() if 0 < d <= k), _map_evidence(tl)


def d_reachable_within(tl: Timeline, target: str, source: str, k: int) -> Solved:
    dist = tl.distances(source)
    if not dist or norm(target) not in tl.neighbours or norm(target) == norm(source):
        return None
    d = dist.get(norm(target))
    return ("yes" if d is not None and d <= k else "no"), _map_evidence(tl)


def d_sequence_moves(tl: Timeline, step: int, sequence: str) -> Solved:
    room = tl.location(step)
    if not room:
        return None
    room = norm(room)
    for direction in sequence.split(", then "):
        room = tl.exits.get(room, {}).get(norm(direction))
        if room is None:
            return None
    return tl.name(room), _map_evidence(tl, step)


def d_shortest_path(tl: Timeline, i: int, j: int) -> Solved:
    a, b = tl.location(i), tl.location(j)
    if not a or not b or i == j:
        return None
    d = tl.distances(a).get(norm(b))
    return (d, _map_evidence(tl, i, j)) if d is not None else None


def _pairs_of_rooms(tl: Timeline) -> list[tuple[str, str]]:
    rooms = sorted(tl.neighbours)
    return [(a, b) for a in rooms for b in rooms if a < b]


def _compare_slots(tl: Timeline, vocab: Vocabulary) -> Iterable[dict]:
    for t in acted_steps(tl)[::3]:
        for a, b in _pairs_of_rooms(tl):
            yield {"A": tl.name(a), "B": tl.name(b), "anchor": t}


def _direction_slots(tl: Timeline, vocab: Vocabulary) -> Iterable[dict]:
    directions = sorted({m[2] for m in tl.moves})
    return ({"L": a, "R": b, "direction": d} for a, b in step_ranges(tl) for d in directions)


def _reach_count_slots(tl: Timeline, vocab: Vocabulary) -> Iterable[dict]:
    return ({"location": tl.name(r), "k": k} for r in sorted(tl.neighbours) for k in (1, 2, 3))


def _reach_within_slots(tl: Timeline, vocab: Vocabulary) -> Iterable[dict]:
    return ({"target": tl.name(b), "source": tl.name(a), "k": k} for a, b in _pairs_of_rooms(tl) for k in (1, 2))


def _sequence_slots(tl: Timeline, vocab: Vocabulary) -> Iterable[dict]:
    for t in acted_steps(tl):
        room = norm(tl.location(t))
        first = tl.exits.get(room, {})
        for d1, r1 in sorted(first.items()):
            yield {"step": t, "sequence": d1}
            for d2 in sorted(tl.exits.get(r1, {})):
                yield {"step": t, "sequence": f"{d1}, then {d2}"}


def _path_slots(tl: Timeline, vocab: Vocabulary) -> Iterable[dict]:
    steps = acted_steps(tl)
    return ({"i": i, "j": j} for i in steps[::2] for j in steps[1::2] if i < j)


# -- Temporal ------------------------------------------------------------------------------------
def e_gain_delay(tl: Timeline, item: str) -> Solved:
    steps = tl.gains.get(norm(item), [])
    return (steps[1] - steps[0], (steps[0], steps[1])) if len(steps) >= 2 else None


def e_item_before_leave(tl: Timeline, location: str, item: str) -> Solved:
    leaves, gains = tl.departures.get(norm(location), []), tl.gains.get(norm(item), [])
    if not leaves or not gains:
        return None
    return ("yes" if gains[0] < leaves[0] else "no"), (gains[0], leaves[0])


def e_item_order(tl: Timeline, A: str, B: str) -> Solved:
    a, b = tl.gains.get(norm(A), []), tl.gains.get(norm(B), [])
    if not a or not b or norm(A) == norm(B):
        return None
    return ("yes" if b[0] < a[0] else "no"), (a[0], b[0])


def e_region_stay(tl: Timeline, location: str) -> Solved:
    arrivals = tl.arrivals.get(norm(location), [])
    if not arrivals:
        return None
    leaves = [t for t in tl.departures.get(norm(location), []) if t > arrivals[0]]
    if not leaves or not _known(tl, arrivals[0], leaves[0], "location"):
        return None
    return leaves[0] - arrivals[0], tuple(range(arrivals[0], leaves[0] + 1))


def e_scene_order(tl: Timeline, A: str, B: str) -> Solved:
    a, b = tl.arrivals.get(norm(A), []), tl.arrivals.get(norm(B), [])
    if not a or not b or norm(A) == norm(B):
        return None
    return ("yes" if b[0] < a[0] else "no"), (a[0], b[0])


def _item_slots(tl: Timeline, vocab: Vocabulary) -> Iterable[dict]:
    return ({"item": tl.name(i)} for i in _items(tl))


def _leave_slots(tl: Timeline, vocab: Vocabulary) -> Iterable[dict]:
    return ({"location": tl.name(r), "item": tl.name(i)} for r in sorted(tl.departures) for i in _items(tl))


def _item_pair_slots(tl: Timeline, vocab: Vocabulary) -> Iterable[dict]:
    return ({"A": tl.name(a), "B": tl.name(b)} for a in _items(tl) for b in _items(tl) if a != b)


def _room_slots(tl: Timeline, vocab: Vocabulary) -> Iterable[dict]:
    return ({"location": tl.name(r)} for r in _rooms(tl))


def _room_pair_slots(tl: Timeline, vocab: Vocabulary) -> Iterable[dict]:
    return ({"A": tl.name(a), "B": tl.name(b)} for a in _rooms(tl) for b in _rooms(tl) if a != b)


# -- Logical -------------------------------------------------------------------------------------
def f_has_item(tl: Timeline, step: int, item: str) -> Solved:
    inv = tl.inventory(step)
    if inv is None:
        return None
    return ("yes" if norm(item) in {norm(i) for i in inv} else "no"), (step,)


def f_list_inventory(tl: Timeline, step: int) -> Solved:
    inv = tl.inventory(step)
    return (inventory_text(inv), (step,)) if inv is not None and step > 0 else None


def f_max_inventory_step(tl: Timeline) -> Solved:
    known = [t for t in tl.order if tl.inventory(t) is not None]
    if not known:
        return None
    best = max(known, key=lambda t: (len(tl.inventory(t) or ()), -t))
    return best, (best,)


def f_location_most_item_gain(tl: Timeline) -> Solved:
    gained: dict[str, set[str]] = {}
    for item, steps in tl.gains.items():
        for t in steps:
            if tl.location(t):
                gained.setdefault(norm(tl.location(t)), set()).add(item)
    answer = most_common(Counter({room: len(items) for room, items in gained.items()}), tl.name)
    evidence = tuple(sorted(t for steps in tl.gains.values() for t in steps))
    return (answer, evidence) if answer is not None else None


def _has_item_slots(tl: Timeline, vocab: Vocabulary) -> Iterable[dict]:
    held = sorted({norm(i) for t in tl.order for i in tl.inventory(t) or ()})
    return ({"step": t, "item": tl.name(i)} for t in acted_steps(tl)[::2] for i in held)


T = Template
TEMPLATES: tuple[Template, ...] = (
    T("A_action", "Single-Hop", "string", "At step {step}, what action did you execute?", a_action, _step_slots),
    T(
        "A_location",
        "Single-Hop",
        "string",
        "Before performing the action at step {step}, what was your location?",
        a_location,
        _step_slots,
    ),
    T(
        "A_obs_before",
        "Single-Hop",
        "string",
        "Before performing the action at step {step}, what was the observation?",
        a_obs_before,
        _step_slots,
    ),
    T(
        "A_obs_after",
        "Single-Hop",
        "string",
        "After performing the action at step {step}, what was the resulting observation?",
        a_obs_after,
        _step_slots,
    ),
    T(
        "A_reward",
        "Single-Hop",
        "integer",
        "After performing the action at step {step}, what was the cumulative reward so far?",
        a_reward,
        _step_slots,
    ),
    T(
        "A_reason",
        "Single-Hop",
        "string",
        "At step {step}, what is the first sentence of your reasoning?",
        a_reason,
        _reason_slots,
    ),
    T(
        "A_valid_action",
        "Single-Hop",
        "string",
        "At step {step}, is '{action}' a valid action? Answer in 'yes' or 'no'.",
        a_valid_action,
        _valid_slots,
    ),
    T(
        "A_gain_item",
        "Single-Hop",
        "integer",
        "At which step did you {ordinal} gain '{item}'?",
        a_gain_item,
        _gain_slots,
        ("item", "item"),
    ),
    T(
        "A_enter_leave",
        "Single-Hop",
        "integer",
        "At which step did you {event} '{location}'?",
        a_enter_leave,
        _enter_slots,
        ("location", "location"),
    ),
    T(
        "A_keyword_occurrence",
        "Single-Hop",
        "integer",
        "Which step is the {ordinal} step whose reason mentions '{keyword}'?",
        a_keyword_occurrence,
        _keyword_slots,
        ("keyword", "keyword"),
    ),
    T(
        "B_gain_after_action",
        "Multi-Hop",
        "string",
        "After first obtaining '{value}', what action was executed {delta} step(s) later?",
        _after(_first_gain, "action"),
        _after_slots(_first_gain, lambda tl, v: _items(tl)),
        ("value", "item"),
    ),
    T(
        "B_gain_after_location",
        "Multi-Hop",
        "string",
        "After first obtaining '{value}', what was your location {delta} step(s) later?",
        _after(_first_gain, "location"),
        _after_slots(_first_gain, lambda tl, v: _items(tl)),
        ("value", "item"),
    ),
    T(
        "B_gain_after_observation",
        "Multi-Hop",
        "string",
        "After first obtaining '{value}', what was the observation {delta} step(s) later?",
        _after(_first_gain, "observation"),
        _after_slots(_first_gain, lambda tl, v: _items(tl)),
        ("value", "item"),
    ),
    T(
        "B_gain_after_reward",
        "Multi-Hop",
        "integer",
        "After first obtaining '{value}', what was the cumulative reward {delta} step(s) later?",
        _after(_first_gain, "reward"),
        _after_slots(_first_gain, lambda tl, v: _items(tl)),
        ("value", "item"),
    ),
    T(
        "B_keyword_after_action",
        "Multi-Hop",
        "string",
        "After the first step whose reason mentions '{value}', what action was executed {delta} step(s) later?",
        _after(_first_reason_mention, "action"),
        _after_slots(_first_reason_mention, _reason_keywords),
        ("value", "keyword"),
    ),
    T(
        "B_keyword_after_location",
        "Multi-Hop",
        "string",
        "After the first step whose reason mentions '{value}', what was your location {delta} step(s) later?",
        _after(_first_reason_mention, "location"),
        _after_slots(_first_reason_mention, _reason_keywords),
        ("value", "keyword"),
    ),
    T(
        "B_keyword_after_observation",
        "Multi-Hop",
        "string",
        "After the first step whose reason mentions '{value}', what was the observation {delta} step(s) later?",
        _after(_first_reason_mention, "observation"),
        _after_slots(_first_reason_mention, _reason_keywords),
        ("value", "keyword"),
    ),
    T(
        "B_keyword_after_reward",
        "Multi-Hop",
        "integer",
        "After the first step whose reason mentions '{value}', what was the cumulative reward {delta} step(s) later?",
        _after(_first_reason_mention, "reward"),
        _after_slots(_first_reason_mention, _reason_keywords),
        ("value", "keyword"),
    ),
    T("C_action_mode", "Inducing", "list", "What is the most frequent action executed?", c_action_mode, _none_slots),
    T(
        "C_distinct_locations",
        "Inducing",
        "integer",
        "From steps {L} to {R}, how many distinct locations were visited?",
        c_distinct_locations,
        _range_slots,
    ),
    T(
        "C_most_frequent_location",
        "Inducing",
        "list",
        "From steps {L} to {R}, what is the most frequently visited location?",
        c_most_frequent_location,
        _range_slots,
    ),
    T(
        "C_total_dwell",
        "Inducing",
        "list",
        "Which is the location with the longest duration of stay in total (within steps {L}-{R})?",
        c_total_dwell,
        _range_slots,
    ),
    T(
        "C_keyword_count_obs",
        "Inducing",
        "integer",
        "From steps {L} to {R}, how many times does '{keyword}' appear in observations?",
        c_keyword_count_obs,
        _range_keyword_slots,
    ),
    T(
        "C_keyword_count_reason",
        "Inducing",
        "integer",
        "From steps {L} to {R}, how many times does '{keyword}' appear in reasons?",
        c_keyword_count_reason,
        _reason_keyword_slots,
    ),
    T(
        "D_compare_distances",
        "Spatial",
        "string",
        "Which is closer (fewer moves to reach), '{A}' or '{B}', from your location at step {anchor}?",
        d_compare_distances,
        _compare_slots,
    ),
    T(
        "D_direction_count",
        "Spatial",
        "integer",
        "From steps {L} to {R}, how many times did you move {direction}?",
        d_direction_count,
        _direction_slots,
    ),
    T(
        "D_reachable_locations_count",
        "Spatial",
        "integer",
        "How many distinct locations are reachable from '{location}' within {k} moves?",
        d_reachable_locations_count,
        _reach_count_slots,
    ),
    T(
        "D_reachable_within",
        "Spatial",
        "string",
        "Is '{target}' reachable from '{source}' within {k} moves? Answer in 'yes' or 'no'.",
        d_reachable_within,
        _reach_within_slots,
    ),
    T(
        "D_sequence_moves",
        "Spatial",
        "string",
        "At step {step}, if you moved {sequence}, which location would you reach?",
        d_sequence_moves,
        _sequence_slots,
    ),
    T(
        "D_shortest_path",
        "Spatial",
        "integer",
        "What is the shortest path length (in moves) between your locations at steps {i} and {j}?",
        d_shortest_path,
        _path_slots,
    ),
    T(
        "E_gain_delay",
        "Temporal",
        "integer",
        "After first obtaining '{item}', how many steps later was '{item}' obtained again?",
        e_gain_delay,
        _item_slots,
    ),
    T(
        "E_item_before_leave",
        "Temporal",
        "string",
        "Before first leaving '{location}', did you ever obtain '{item}'? Answer in 'yes' or 'no'.",
        e_item_before_leave,
        _leave_slots,
        ("item", "item"),
    ),
    T(
        "E_item_order",
        "Temporal",
        "string",
        "Before first obtaining '{A}', had you ever obtained '{B}'? Answer in 'yes' or 'no'.",
        e_item_order,
        _item_pair_slots,
        ("B", "item"),
    ),
    T(
        "E_region_stay",
        "Temporal",
        "integer",
        "After first entering '{location}', for how many consecutive steps did you stay in '{location}'?",
        e_region_stay,
        _room_slots,
        ("location", "location"),
    ),
    T(
        "E_scene_order",
        "Temporal",
        "string",
        "Before first entering '{A}', had you ever been to '{B}'? Answer in 'yes' or 'no'.",
        e_scene_order,
        _room_pair_slots,
        ("A", "location"),
    ),
    T(
        "F_has_item",
        "Logical",
        "string",
        "At step {step}, did you have '{item}' in your inventory? Answer in 'yes' or 'no'.",
        f_has_item,
        _has_item_slots,
    ),
    T(
        "F_list_inventory",
        "Logical",
        "string",
        "After performing the action at step {step}, what are all the items you carry?",
        f_list_inventory,
        _step_slots,
    ),
    T(
        "F_max_inventory_step",
        "Logical",
        "integer",
        "After completing which step did the inventory contain the most items (the first, if tied)?",
        f_max_inventory_step,
        _none_slots,
    ),
    T(
        "F_location_most_item_gain",
        "Logical",
        "list",
        "At which location did you gain the most distinct items?",
        f_location_most_item_gain,
        _none_slots,
    ),
)
BY_ID = {t.id: t for t in TEMPLATES}
HORIZON_PREFIX = "Considering only steps 0 to {horizon}: "
_HORIZON = re.compile(r"^Considering only steps 0 to (\d+):\s*", re.IGNORECASE)


def match_question(question: str) -> tuple[Template, dict[str, Any], int | None] | None:
    """A question back to (template, slots, horizon): what the scripted answerer reads."""
    line = next((l.strip() for l in question.strip().splitlines() if l.strip()), "")
    horizon = None
    m = _HORIZON.match(line)
    if m:
        horizon, line = int(m.group(1)), line[m.end() :]
    for template in TEMPLATES:
        slots = template.parse(line)
        if slots is not None:
            return template, slots, horizon
    return None
