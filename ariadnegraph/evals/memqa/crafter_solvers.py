"""How each Crafter question of EMemBench (table 15) is answered from a :class:`CrafterTimeline` (its ``solve``),
and the slot values it can be asked with (its ``slots``), by ability."""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Iterable
from typing import Any

from ...envs.crafter_env import VITALS, recipes
from .crafter_index import MOVES, CrafterTimeline, displacement, item_name
from .index import norm
from .questions import Solved, Vocabulary, acted_steps, inventory_text, most_common, pick_ordinal, step_ranges
from .solvers import a_action

ORDINALS = {"first": 0, "second": 1, "third": 2, "last": -1}


CRAFTS = tuple(item_name(k) for k in recipes())


DIRECTIONS = {v: k for k, v in MOVES.items()}


def c(tl: Any) -> CrafterTimeline:
    return tl  # the Crafter templates only ever get a CrafterTimeline (generate picks them by timeline)


def moved(tl: CrafterTimeline, t: int) -> str | None:
    """The direction the player moved at step t, or None when it stayed (or a side is unknown)."""
    a, b = tl.state(t - 1), tl.state(t)
    if a is None or b is None or a.pos == b.pos:
        return None
    return DIRECTIONS.get((b.pos[0] - a.pos[0], b.pos[1] - a.pos[1]))


# -- step lists the occurrence templates pick from ---------------------------------------------------
def action_steps(tl: CrafterTimeline, action: str) -> list[int]:
    return [t for t in acted_steps(tl) if norm(tl.at(t).action) == norm(action)]


def terrain_steps(tl: CrafterTimeline, terrain: str) -> list[int]:
    return [t for t in tl.order if (s := tl.state(t)) is not None and s.terrain == norm(terrain)]


def keyword_steps(tl: CrafterTimeline, keyword: str) -> list[int]:
    return tl.reason_steps(keyword)


_ANCHORS: dict[str, Callable[[CrafterTimeline, str], list[int]]] = {
    "action": action_steps,
    "keyword": keyword_steps,
    "terrain": terrain_steps,
}


def a_reason(tl: Any, step: int) -> Solved:
    s = tl.get(step)
    return (" ".join(s.reason.split()), (step,)) if s and step > 0 and s.reason else None


def a_stat(tl: Any, stat: str, step: int) -> Solved:
    s = c(tl).state(step)
    return (s.vitals[stat], (step,)) if s and stat in s.vitals else None


def a_terrain(tl: Any, step: int) -> Solved:
    s = c(tl).state(step)
    return (s.terrain, (step,)) if s and s.terrain else None


def a_inventory(tl: Any, resource: str, step: int) -> Solved:
    s = c(tl).state(step)
    return (s.counts[norm(resource)], (step,)) if s and norm(resource) in s.counts else None


def occurrence(kind: str) -> Callable[..., Solved]:
    def solve(tl: Any, ordinal: str, **value: str) -> Solved:
        t = pick_ordinal(_ANCHORS[kind](c(tl), value[kind]), ordinal, ORDINALS)
        return (t, (t,)) if t is not None else None

    return solve


# -- Multi-Hop -----------------------------------------------------------------------------------
def around(kind: str) -> Callable[..., Solved]:
    def solve(tl: Any, offset: int, side: str, ordinal: str, **value: str) -> Solved:
        anchor = pick_ordinal(_ANCHORS[kind](c(tl), value[kind]), ordinal, ORDINALS)
        if anchor is None or offset < 1 or side not in ("before", "after"):
            return None
        t = anchor + offset if side == "after" else anchor - offset
        answer = a_action(tl, t)
        return (answer[0], (anchor, t)) if answer else None

    return solve


# -- Inducing ------------------------------------------------------------------------------------
def c_keyword_count(tl: Any, L: int, R: int, keyword: str) -> Solved:
    if not all(t in tl for t in range(L, R + 1)) or not any(tl.at(t).reason for t in range(L, R + 1)):
        return None
    return sum(1 for t in range(L, R + 1) if t in tl.reason_steps(keyword)), tuple(range(L, R + 1))


def c_most_move(tl: Any, L: int, R: int) -> Solved:
    tl = c(tl)
    if not tl.known(L - 1, R):
        return None
    answer = most_common(Counter(d for t in range(L, R + 1) if (d := moved(tl, t))))
    return (answer, tuple(range(L, R + 1))) if answer is not None else None


def c_longest_run(tl: Any, L: int, R: int, action: str) -> Solved:
    if not all(t in tl for t in range(L, R + 1)):
        return None
    best = run = 0
    for t in range(L, R + 1):
        run = run + 1 if norm(tl.at(t).action) == norm(action) else 0
        best = max(best, run)
    return (best, tuple(range(L, R + 1))) if best else None


def c_collect_res(tl: Any, L: int, R: int, resource: str) -> Solved:
    tl = c(tl)
    if not tl.known(L, R):
        return None
    return sum(1 for t in range(L, R + 1) for e in tl.states[t].events if e == f"collect {norm(resource)}"), tuple(
        range(L, R + 1)
    )


def c_resource_peak(tl: Any, resource: str) -> Solved:
    tl = c(tl)
    counts = [(tl.states[t].counts.get(norm(resource), 0), t) for t in tl.order if t in tl.states]
    top = max((c for c, _ in counts), default=0)
    if top < 1:
        return None
    step = next(t for c, t in counts if c == top)
    return step, (step,)


def c_resource_change(tl: Any, L: int, R: int, resource: str) -> Solved:
    tl = c(tl)
    a, b = tl.state(L - 1), tl.state(R)
    if a is None or b is None or norm(resource) not in b.counts:
        return None
    return b.counts[norm(resource)] - a.counts.get(norm(resource), 0), (L - 1, R)


def c_visible_count(tl: Any, L: int, R: int, terrain: str) -> Solved:
    tl = c(tl)
    if not tl.known(L, R):
        return None
    return sum(1 for t in range(L, R + 1) if norm(terrain) in tl.states[t].view.values()), tuple(range(L, R + 1))


def c_adjacent_count(tl: Any, L: int, R: int, terrain: str) -> Solved:
    tl = c(tl)
    if not tl.known(L, R):
        return None

    def adjacent(t: int) -> bool:
        s = tl.states[t]
        return any(s.view.get((s.pos[0] + dx, s.pos[1] + dy)) == norm(terrain) for dx, dy in MOVES.values())

    return sum(1 for t in range(L, R + 1) if adjacent(t)), tuple(range(L, R + 1))


def c_distinct_trees(tl: Any, L: int, R: int) -> Solved:
    tl = c(tl)
    if not tl.known(L, R):
        return None
    return len({c for t in range(L, R + 1) for c, name in tl.states[t].view.items() if name == "tree"}), tuple(
        range(L, R + 1)
    )


# -- Spatial -------------------------------------------------------------------------------------
def d_displacement(tl: Any, L: int, R: int) -> Solved:
    tl = c(tl)
    a, b = tl.state(L - 1), tl.state(R)
    if a is None or b is None or L > R:
        return None
    return displacement(b.pos[0] - a.pos[0], b.pos[1] - a.pos[1]), (L - 1, R)


def d_path_length(tl: Any, L: int, R: int) -> Solved:
    tl = c(tl)
    if not tl.known(L - 1, R):
        return None
    return sum(1 for t in range(L, R + 1) if moved(tl, t)), tuple(range(L, R + 1))


def d_predict_terrain(tl: Any, step: int, direction: str, K: int) -> Solved:
    tl = c(tl)
    s = tl.state(step)
    if s is None or direction not in MOVES or K < 1:
        return None
    dx, dy = MOVES[direction]
    name = tl.seen_map(step).get((s.pos[0] + K * dx, s.pos[1] + K * dy))
    return (name, (step,)) if name else None


def nearest_targets(tl: CrafterTimeline, step: int, terrain: str) -> tuple[int, list[tuple[int, int]]] | None:
    s = tl.state(step)
    found = tl.nearest(step, norm(terrain))
    if s is None or found is None:
        return None
    d, cells = found
    return d, [(c[0] - s.pos[0], c[1] - s.pos[1]) for c in cells]


def d_nearest_dir(tl: Any, step: int, terrain: str) -> Solved:
    found = nearest_targets(c(tl), step, terrain)
    if found is None or found[0] == 0:
        return None
    directions: set[str] = set()
    for dx, dy in found[1]:  # the axis it lies farther along; both when even
        if abs(dx) >= abs(dy) and dx:
            directions.add("right" if dx > 0 else "left")
        if abs(dy) >= abs(dx) and dy:
            directions.add("down" if dy > 0 else "up")
    answer = sorted(directions)
    return (answer[0] if len(answer) == 1 else answer), (step,)


def d_nav_to_target(tl: Any, step: int, terrain: str) -> Solved:
    found = nearest_targets(c(tl), step, terrain)
    if found is None:
        return None
    routes = sorted({displacement(dx, dy) for dx, dy in found[1]})
    return (routes[0] if len(routes) == 1 else routes), (step,)


def extreme_dist(pick: Callable[[list[int]], int]) -> Callable[..., Solved]:
    def solve(tl: Any, L: int, R: int, terrain: str) -> Solved:
        tl = c(tl)
        dist = {t: tl.manhattan_nearest(t, norm(terrain)) for t in range(L, R + 1)}
        if L > R or any(d is None for d in dist.values()):
            return None
        target = pick([d for d in dist.values() if d is not None])
        return next(t for t, d in dist.items() if d == target), tuple(range(L, R + 1))

    return solve


# -- Temporal ------------------------------------------------------------------------------------
def first_event(tl: CrafterTimeline, event: str) -> int | None:
    steps = tl.event_steps().get(norm(event))
    return steps[0] if steps else None


def e_event_order(tl: Any, eventA: str, eventB: str) -> Solved:
    a, b = first_event(c(tl), eventA), first_event(c(tl), eventB)
    if a is None or b is None or a == b:
        return None
    return ("yes" if a < b else "no"), (a, b)


def e_event_interval(tl: Any, eventA: str, eventB: str) -> Solved:
    a = first_event(c(tl), eventA)
    if a is None or norm(eventA) == norm(eventB):
        return None
    later = [t for t in c(tl).event_steps().get(norm(eventB), []) if t > a]
    return (later[0] - a, (a, later[0])) if later else None


def e_state_after_event(tl: Any, event: str, stat: str) -> Solved:
    t = first_event(c(tl), event)
    s = c(tl).state(t) if t is not None else None
    return (s.vitals[stat], (t,)) if s is not None and t is not None and stat in s.vitals else None


# -- Logical -------------------------------------------------------------------------------------
def f_craft_feasibility(tl: Any, step: int, craft: str) -> Solved:
    s = c(tl).state(step)
    needs = recipes().get(norm(craft).replace(" ", "_"))
    if s is None or needs is None:
        return None
    return ("yes" if all(s.counts.get(item_name(k), 0) >= n for k, n in needs.items()) else "no"), (step,)


def f_event_loc(tl: Any, event: str) -> Solved:
    steps = c(tl).event_steps().get(norm(event))
    return (", ".join(str(t) for t in steps), tuple(steps)) if steps else None


def attacks(tl: CrafterTimeline) -> list[int] | None:
    if not tl.known(tl.first, tl.last):
        return None
    return [t for t in tl.order if tl.states[t].attack in ("zombie", "arrow")]


def f_attack_count(tl: Any) -> Solved:
    steps = attacks(c(tl))
    return (len(steps), tuple(steps) or (c(tl).last,)) if steps is not None else None


def f_first_attack_step(tl: Any) -> Solved:
    steps = attacks(c(tl))
    return (steps[0], (steps[0],)) if steps else None


def f_last_attack_step(tl: Any) -> Solved:
    steps = attacks(c(tl))
    return (steps[-1], (steps[-1],)) if steps else None


STARVED = {"food": "hunger", "drink": "thirst", "energy": "fatigue"}


def f_death_reason(tl: Any) -> Solved:
    tl = c(tl)
    s = tl.state(tl.last)
    if s is None or s.vitals.get("health", 1) > 0:
        return None
    if s.attack:
        return s.attack, (tl.last,)
    causes = sorted(word for vital, word in STARVED.items() if s.vitals.get(vital, 1) == 0)
    return (causes[0] if len(causes) == 1 else causes, (tl.last,)) if causes else None


def f_inventory_contents(tl: Any, step: int) -> Solved:
    s = c(tl).state(step)
    return (inventory_text([k for k, v in s.counts.items() if v > 0]), (step,)) if s else None


def steps(tl: Any, vocab: Vocabulary) -> Iterable[dict]:
    return ({"step": t} for t in acted_steps(tl))


def reason_step_slots(tl: Any, vocab: Vocabulary) -> Iterable[dict]:
    return ({"step": t} for t in acted_steps(tl) if tl.at(t).reason)


def stat_slots(tl: Any, vocab: Vocabulary) -> Iterable[dict]:
    return ({"stat": v, "step": t} for t in acted_steps(tl)[::3] for v in VITALS)


def resource_step_slots(tl: Any, vocab: Vocabulary) -> Iterable[dict]:
    return ({"resource": r, "step": t} for t in acted_steps(tl)[::3] for r in c(tl).held_items())


def values(tl: CrafterTimeline, kind: str) -> list[str]:
    return {
        "action": tl.taken_actions,
        "keyword": tl.reason_keywords,
        "terrain": lambda: sorted({s.terrain for s in tl.states.values() if s.terrain}),
    }[kind]()


def occurrence_slots(kind: str) -> Callable[[Any, Vocabulary], Iterable[dict]]:
    def slots(tl: Any, vocab: Vocabulary) -> Iterable[dict]:
        return ({"ordinal": o, kind: v} for v in values(c(tl), kind) for o in ORDINALS)

    return slots


def around_slots(kind: str) -> Callable[[Any, Vocabulary], Iterable[dict]]:
    def slots(tl: Any, vocab: Vocabulary) -> Iterable[dict]:
        return (
            {"offset": k, "side": side, "ordinal": o, kind: v}
            for v in values(c(tl), kind)
            for o in ("first", "last")
            for side in ("before", "after")
            for k in (1, 2)
        )

    return slots


def range_slots(tl: Any, vocab: Vocabulary) -> Iterable[dict]:
    return ({"L": a, "R": b} for a, b in step_ranges(c(tl)))


def range_value_slots(
    name: str, values: Callable[[CrafterTimeline], list[str]]
) -> Callable[[Any, Vocabulary], Iterable[dict]]:
    def slots(tl: Any, vocab: Vocabulary) -> Iterable[dict]:
        return ({"L": a, "R": b, name: v} for a, b in step_ranges(c(tl)) for v in values(c(tl)))

    return slots


def resource_slots(tl: Any, vocab: Vocabulary) -> Iterable[dict]:
    return ({"resource": r} for r in c(tl).held_items())


def step_terrain_slots(tl: Any, vocab: Vocabulary) -> Iterable[dict]:
    return ({"step": t, "terrain": v} for t in acted_steps(tl)[::3] for v in c(tl).seen_terrains())


def predict_slots(tl: Any, vocab: Vocabulary) -> Iterable[dict]:
    return ({"step": t, "direction": d, "K": k} for t in acted_steps(tl)[::3] for d in MOVES for k in (1, 2, 3))


def event_pair_slots(tl: Any, vocab: Vocabulary) -> Iterable[dict]:
    events = sorted(c(tl).event_steps())
    return ({"eventA": a, "eventB": b} for a in events for b in events if a != b)


def event_stat_slots(tl: Any, vocab: Vocabulary) -> Iterable[dict]:
    return ({"event": e, "stat": v} for e in sorted(c(tl).event_steps()) for v in VITALS)


def event_slots(tl: Any, vocab: Vocabulary) -> Iterable[dict]:
    return ({"event": e} for e in sorted(c(tl).event_steps()))


def craft_slots(tl: Any, vocab: Vocabulary) -> Iterable[dict]:
    return ({"step": t, "craft": c} for t in acted_steps(tl)[::3] for c in CRAFTS)


def none(tl: Any, vocab: Vocabulary) -> Iterable[dict]:
    return [{}]
