"""How each text-game question of EMemBench's table 14 is answered from a :class:`Timeline` (its ``solve``), and the
slot values it can be asked with (its ``slots``), by ability: single-hop, multi-hop, inducing, spatial, temporal,
logical."""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Callable, Iterable

from .index import Timeline, mentions, norm
from .questions import (
    ORDINALS,
    Answer,
    Solved,
    Vocabulary,
    acted_steps,
    inventory_text,
    is_known,
    most_common,
    pick_ordinal,
    step_ranges,
    timeline_items,
    timeline_keywords,
    timeline_reason_keywords,
    timeline_rooms,
)


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


ENTER_LEAVE = {
    "first arrive at": ("arrivals", 0),
    "first leave": ("departures", 0),
    "last arrive at": ("arrivals", -1),
}


def a_enter_leave(tl: Timeline, event: str, location: str) -> Solved:
    if event not in ENTER_LEAVE:
        return None
    kind, index = ENTER_LEAVE[event]
    steps = getattr(tl, kind).get(norm(location), [])
    return (steps[index], (steps[index],)) if steps else None


def a_keyword_occurrence(tl: Timeline, ordinal: str, keyword: str) -> Solved:
    t = pick_ordinal(tl.reason_steps(keyword), ordinal)
    return (t, (t,)) if t is not None else None


def step_slots(tl: Timeline, vocab: Vocabulary) -> Iterable[dict]:
    return ({"step": t} for t in acted_steps(tl))


def gain_slots(tl: Timeline, vocab: Vocabulary) -> Iterable[dict]:
    return ({"ordinal": o, "item": tl.name(i)} for i in timeline_items(tl) for o in ("first", "last"))


def enter_slots(tl: Timeline, vocab: Vocabulary) -> Iterable[dict]:
    return ({"event": e, "location": tl.name(r)} for r in timeline_rooms(tl) for e in ENTER_LEAVE)


def keyword_slots(tl: Timeline, vocab: Vocabulary) -> Iterable[dict]:
    return ({"ordinal": o, "keyword": k} for k in timeline_reason_keywords(tl, vocab) for o in ORDINALS)


# -- Multi-Hop -----------------------------------------------------------------------------------
def field_at(tl: Timeline, step: int, what: str) -> Answer | None:
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


def after(anchor_of: Callable[[Timeline, str], int | None], what: str) -> Callable[..., Solved]:
    def solve(tl: Timeline, value: str, delta: int) -> Solved:
        anchor = anchor_of(tl, value)
        if anchor is None or delta < 1:
            return None
        answer = field_at(tl, anchor + delta, what)
        return (answer, (anchor, anchor + delta)) if answer is not None else None

    return solve


def first_gain(tl: Timeline, item: str) -> int | None:
    steps = tl.gains.get(norm(item))
    return steps[0] if steps else None


def first_reason_mention(tl: Timeline, keyword: str) -> int | None:
    steps = tl.reason_steps(keyword)
    return steps[0] if steps else None


def after_slots(anchor_of: Callable[[Timeline, str], int | None], values: Callable[[Timeline, Vocabulary], list[str]]):
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


def visits(tl: Timeline, left: int, right: int) -> list[str]:
    """Locations in order of visits within left..right (a stay counts once)."""
    seq: list[str] = []
    for t in range(left, right + 1):
        loc = norm(tl.location(t))
        if not seq or seq[-1] != loc:
            seq.append(loc)
    return seq


def c_distinct_locations(tl: Timeline, L: int, R: int) -> Solved:
    if not is_known(tl, L, R, "location"):
        return None
    return len(set(visits(tl, L, R))), tuple(range(L, R + 1))


def c_most_frequent_location(tl: Timeline, L: int, R: int) -> Solved:
    if not is_known(tl, L, R, "location"):
        return None
    answer = most_common(Counter(visits(tl, L, R)), tl.name)  # never None: every step's location is known
    return (answer, tuple(range(L, R + 1))) if answer is not None else None


def c_total_dwell(tl: Timeline, L: int, R: int) -> Solved:
    if not is_known(tl, L, R, "location"):
        return None
    # never None: every step's location is known
    answer = most_common(Counter(norm(tl.location(t)) for t in range(L, R + 1)), tl.name)
    return (answer, tuple(range(L, R + 1))) if answer is not None else None


def c_keyword_count_obs(tl: Timeline, L: int, R: int, keyword: str) -> Solved:
    if not is_known(tl, L, R):
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
    if not is_known(tl, L, R) or not any(tl.at(t).reason for t in range(L, R + 1)):
        return None
    pattern = rf"(?<![\w-]){re.escape(keyword.lower())}(?![\w-])"
    count: int = sum(len(re.findall(pattern, (tl.at(t).reason or "").lower())) for t in range(L, R + 1))
    return count, tuple(range(L, R + 1))


def reason_slots(tl: Timeline, vocab: Vocabulary) -> Iterable[dict]:
    return ({"step": t} for t in acted_steps(tl) if tl.at(t).reason)


def valid_slots(tl: Timeline, vocab: Vocabulary) -> Iterable[dict]:
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


def reason_keyword_slots(tl: Timeline, vocab: Vocabulary) -> Iterable[dict]:
    keywords = timeline_reason_keywords(tl, vocab)
    for a, b in step_ranges(tl):
        for k in keywords:
            if any(mentions(tl.at(t).reason or "", k) for t in range(a, b + 1) if t in tl):
                yield {"L": a, "R": b, "keyword": k}


def range_slots(tl: Timeline, vocab: Vocabulary) -> Iterable[dict]:
    return ({"L": a, "R": b} for a, b in step_ranges(tl))


def range_keyword_slots(tl: Timeline, vocab: Vocabulary) -> Iterable[dict]:
    keywords = timeline_keywords(tl, vocab)
    for a, b in step_ranges(tl):
        for k in keywords:
            if any(mentions(tl.at(t).observation, k) for t in range(a, b + 1) if t in tl):
                yield {"L": a, "R": b, "keyword": k}


def none_slots(tl: Timeline, vocab: Vocabulary) -> Iterable[dict]:
    return [{}]


# -- Spatial -------------------------------------------------------------------------------------
def map_evidence(tl: Timeline, *steps: int) -> tuple[int, ...]:
    return tuple(sorted({*steps, *(m[0] for m in tl.moves)}))


def d_compare_distances(tl: Timeline, A: str, B: str, anchor: int) -> Solved:
    here = tl.location(anchor)
    if not here or norm(A) == norm(B):
        return None
    dist = tl.distances(here)
    a, b = dist.get(norm(A)), dist.get(norm(B))
    if a is None or b is None or a == b:
        return None
    return (A if a < b else B), map_evidence(tl, anchor)


def d_direction_count(tl: Timeline, L: int, R: int, direction: str) -> Solved:
    if not is_known(tl, L, R, "location"):
        return None
    return sum(1 for t, _, d, _ in tl.moves if L <= t <= R and d == norm(direction)), tuple(range(L, R + 1))


def d_reachable_locations_count(tl: Timeline, location: str, k: int) -> Solved:
    dist = tl.distances(location)
    if not dist:
        return None
    return sum(1 for room, d in dist.items() if 0 < d <= k), map_evidence(tl)


def d_reachable_within(tl: Timeline, target: str, source: str, k: int) -> Solved:
    dist = tl.distances(source)
    if not dist or norm(target) not in tl.neighbours or norm(target) == norm(source):
        return None
    d = dist.get(norm(target))
    return ("yes" if d is not None and d <= k else "no"), map_evidence(tl)


def d_sequence_moves(tl: Timeline, step: int, sequence: str) -> Solved:
    room = tl.location(step)
    if not room:
        return None
    room = norm(room)
    for direction in sequence.split(", then "):
        room = tl.exits.get(room, {}).get(norm(direction))
        if room is None:
            return None
    return tl.name(room), map_evidence(tl, step)


def d_shortest_path(tl: Timeline, i: int, j: int) -> Solved:
    a, b = tl.location(i), tl.location(j)
    if not a or not b or i == j:
        return None
    d = tl.distances(a).get(norm(b))
    return (d, map_evidence(tl, i, j)) if d is not None else None


def pairs_of_rooms(tl: Timeline) -> list[tuple[str, str]]:
    rooms = sorted(tl.neighbours)
    return [(a, b) for a in rooms for b in rooms if a < b]


def compare_slots(tl: Timeline, vocab: Vocabulary) -> Iterable[dict]:
    for t in acted_steps(tl)[::3]:
        for a, b in pairs_of_rooms(tl):
            yield {"A": tl.name(a), "B": tl.name(b), "anchor": t}


def direction_slots(tl: Timeline, vocab: Vocabulary) -> Iterable[dict]:
    directions = sorted({m[2] for m in tl.moves})
    return ({"L": a, "R": b, "direction": d} for a, b in step_ranges(tl) for d in directions)


def reach_count_slots(tl: Timeline, vocab: Vocabulary) -> Iterable[dict]:
    return ({"location": tl.name(r), "k": k} for r in sorted(tl.neighbours) for k in (1, 2, 3))


def reach_within_slots(tl: Timeline, vocab: Vocabulary) -> Iterable[dict]:
    return ({"target": tl.name(b), "source": tl.name(a), "k": k} for a, b in pairs_of_rooms(tl) for k in (1, 2))


def sequence_slots(tl: Timeline, vocab: Vocabulary) -> Iterable[dict]:
    for t in acted_steps(tl):
        room = norm(tl.location(t))
        first = tl.exits.get(room, {})
        for d1, r1 in sorted(first.items()):
            yield {"step": t, "sequence": d1}
            for d2 in sorted(tl.exits.get(r1, {})):
                yield {"step": t, "sequence": f"{d1}, then {d2}"}


def path_slots(tl: Timeline, vocab: Vocabulary) -> Iterable[dict]:
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
    if not leaves or not is_known(tl, arrivals[0], leaves[0], "location"):
        return None
    return leaves[0] - arrivals[0], tuple(range(arrivals[0], leaves[0] + 1))


def e_scene_order(tl: Timeline, A: str, B: str) -> Solved:
    a, b = tl.arrivals.get(norm(A), []), tl.arrivals.get(norm(B), [])
    if not a or not b or norm(A) == norm(B):
        return None
    return ("yes" if b[0] < a[0] else "no"), (a[0], b[0])


def item_slots(tl: Timeline, vocab: Vocabulary) -> Iterable[dict]:
    return ({"item": tl.name(i)} for i in timeline_items(tl))


def leave_slots(tl: Timeline, vocab: Vocabulary) -> Iterable[dict]:
    return ({"location": tl.name(r), "item": tl.name(i)} for r in sorted(tl.departures) for i in timeline_items(tl))


def item_pair_slots(tl: Timeline, vocab: Vocabulary) -> Iterable[dict]:
    return ({"A": tl.name(a), "B": tl.name(b)} for a in timeline_items(tl) for b in timeline_items(tl) if a != b)


def room_slots(tl: Timeline, vocab: Vocabulary) -> Iterable[dict]:
    return ({"location": tl.name(r)} for r in timeline_rooms(tl))


def room_pair_slots(tl: Timeline, vocab: Vocabulary) -> Iterable[dict]:
    return ({"A": tl.name(a), "B": tl.name(b)} for a in timeline_rooms(tl) for b in timeline_rooms(tl) if a != b)


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


def has_item_slots(tl: Timeline, vocab: Vocabulary) -> Iterable[dict]:
    held = sorted({norm(i) for t in tl.order for i in tl.inventory(t) or ()})
    return ({"step": t, "item": tl.name(i)} for t in acted_steps(tl)[::2] for i in held)
