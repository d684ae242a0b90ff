"""EMemBench's question templates for the visual game, Crafter (table 15), over a :class:`CrafterTimeline`.

Same contract as ``templates`` (table 14): a ``solve`` computes the answer and its evidence steps (None
when the answerability precondition fails) and a ``slots`` enumerator proposes values. Step t means
after the action of step t. Choices where table 15 leaves room:

- "From steps L to R": what happened in the actions of steps L..R (moves, runs, collections, events);
  quantities compare the state after step R with the state after step L-1 (C_resource_change,
  D_displacement).
- The seen map (``CrafterTimeline.seen_map``) stands in for EMemBench's world map: D_nearest_dir,
  D_nav_to_target (BFS over walkable seen cells, algorithm 2-3), D_min_dist / D_max_dist (distance
  |dx| + |dy| to the nearest seen cell) and D_predict_terrain read it as it was at the step asked.
- Events are the achievements earned ("collect wood", "place table", "eat cow"), each time one is.
- An attack is a step a zombie struck or an arrow hit (``envs.crafter_env`` tells them apart).
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Iterable
from typing import Any

from ...envs.crafter_env import VITALS, recipes
from .crafter_index import MOVES, CrafterTimeline, displacement, item_name
from .index import norm
from .questions import Solved, Template, Vocabulary, acted_steps, inventory_text, most_common, pick_ordinal, step_ranges
from .solvers import a_action

ORDINALS = {"first": 0, "second": 1, "third": 2, "last": -1}
CRAFTS = tuple(item_name(k) for k in recipes())
_DIRECTIONS = {v: k for k, v in MOVES.items()}


def _c(tl: Any) -> CrafterTimeline:
    return tl  # the Crafter templates only ever get a CrafterTimeline (generate picks them by timeline)


def _moved(tl: CrafterTimeline, t: int) -> str | None:
    """The direction the player moved at step t, or None when it stayed (or a side is unknown)."""
    a, b = tl.state(t - 1), tl.state(t)
    if a is None or b is None or a.pos == b.pos:
        return None
    return _DIRECTIONS.get((b.pos[0] - a.pos[0], b.pos[1] - a.pos[1]))


# -- step lists the occurrence templates pick from ---------------------------------------------------
def _action_steps(tl: CrafterTimeline, action: str) -> list[int]:
    return [t for t in acted_steps(tl) if norm(tl.at(t).action) == norm(action)]


def _terrain_steps(tl: CrafterTimeline, terrain: str) -> list[int]:
    return [t for t in tl.order if (s := tl.state(t)) is not None and s.terrain == norm(terrain)]


def _keyword_steps(tl: CrafterTimeline, keyword: str) -> list[int]:
    return tl.reason_steps(keyword)


_ANCHORS: dict[str, Callable[[CrafterTimeline, str], list[int]]] = {
    "action": _action_steps,
    "keyword": _keyword_steps,
    "terrain": _terrain_steps,
}


# -- Single-Hop ----------------------------------------------------------------------------------


def a_reason(tl: Any, step: int) -> Solved:
    s = tl.get(step)
    return (" ".join(s.reason.split()), (step,)) if s and step > 0 and s.reason else None


def a_stat(tl: Any, stat: str, step: int) -> Solved:
    s = _c(tl).state(step)
    return (s.vitals[stat], (step,)) if s and stat in s.vitals else None


def a_terrain(tl: Any, step: int) -> Solved:
    s = _c(tl).state(step)
    return (s.terrain, (step,)) if s and s.terrain else None


def a_inventory(tl: Any, resource: str, step: int) -> Solved:
    s = _c(tl).state(step)
    return (s.counts[norm(resource)], (step,)) if s and norm(resource) in s.counts else None


def _occurrence(kind: str) -> Callable[..., Solved]:
    def solve(tl: Any, ordinal: str, **value: str) -> Solved:
        t = pick_ordinal(_ANCHORS[kind](_c(tl), value[kind]), ordinal, ORDINALS)
        return (t, (t,)) if t is not None else None

    return solve


# -- Multi-Hop -----------------------------------------------------------------------------------
def _around(kind: str) -> Callable[..., Solved]:
    def solve(tl: Any, offset: int, side: str, ordinal: str, **value: str) -> Solved:
        anchor = pick_ordinal(_ANCHORS[kind](_c(tl), value[kind]), ordinal, ORDINALS)
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
    tl = _c(tl)
    if not tl.known(L - 1, R):
        return None
    answer = most_common(Counter(d for t in range(L, R + 1) if (d := _moved(tl, t))))
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
    tl = _c(tl)
    if not tl.known(L, R):
        return None
    return sum(1 for t in range(L, R + 1) for e in tl.states[t].events if e == f"collect {norm(resource)}"), tuple(
        range(L, R + 1)
    )


def c_resource_peak(tl: Any, resource: str) -> Solved:
    tl = _c(tl)
    counts = [(tl.states[t].counts.get(norm(resource), 0), t) for t in tl.order if t in tl.states]
    top = max((c for c, _ in counts), default=0)
    if top < 1:
        return None
    step = next(t for c, t in counts if c == top)
    return step, (step,)


def c_resource_change(tl: Any, L: int, R: int, resource: str) -> Solved:
    tl = _c(tl)
    a, b = tl.state(L - 1), tl.state(R)
    if a is None or b is None or norm(resource) not in b.counts:
        return None
    return b.counts[norm(resource)] - a.counts.get(norm(resource), 0), (L - 1, R)


def c_visible_count(tl: Any, L: int, R: int, terrain: str) -> Solved:
    tl = _c(tl)
    if not tl.known(L, R):
        return None
    return sum(1 for t in range(L, R + 1) if norm(terrain) in tl.states[t].view.values()), tuple(range(L, R + 1))


def c_adjacent_count(tl: Any, L: int, R: int, terrain: str) -> Solved:
    tl = _c(tl)
    if not tl.known(L, R):
        return None

    def adjacent(t: int) -> bool:
        s = tl.states[t]
        return any(s.view.get((s.pos[0] + dx, s.pos[1] + dy)) == norm(terrain) for dx, dy in MOVES.values())

    return sum(1 for t in range(L, R + 1) if adjacent(t)), tuple(range(L, R + 1))


def c_distinct_trees(tl: Any, L: int, R: int) -> Solved:
    tl = _c(tl)
    if not tl.known(L, R):
        return None
    return len({c for t in range(L, R + 1) for c, name in tl.states[t].view.items() if name == "tree"}), tuple(
        range(L, R + 1)
    )


# -- Spatial -------------------------------------------------------------------------------------
def d_displacement(tl: Any, L: int, R: int) -> Solved:
    tl = _c(tl)
    a, b = tl.state(L - 1), tl.state(R)
    if a is None or b is None or L > R:
        return None
    return displacement(b.pos[0] - a.pos[0], b.pos[1] - a.pos[1]), (L - 1, R)


def d_path_length(tl: Any, L: int, R: int) -> Solved:
    tl = _c(tl)
    if not tl.known(L - 1, R):
        return None
    return sum(1 for t in range(L, R + 1) if _moved(tl, t)), tuple(range(L, R + 1))


def d_predict_terrain(tl: Any, step: int, direction: str, K: int) -> Solved:
    tl = _c(tl)
    s = tl.state(step)
    if s is None or direction not in MOVES or K < 1:
        return None
    dx, dy = MOVES[direction]
    name = tl.seen_map(step).get((s.pos[0] + K * dx, s.pos[1] + K * dy))
    return (name, (step,)) if name else None


def _nearest_targets(tl: CrafterTimeline, step: int, terrain: str) -> tuple[int, list[tuple[int, int]]] | None:
    s = tl.state(step)
    found = tl.nearest(step, norm(terrain))
    if s is None or found is None:
        return None
    d, cells = found
    return d, [(c[0] - s.pos[0], c[1] - s.pos[1]) for c in cells]


def d_nearest_dir(tl: Any, step: int, terrain: str) -> Solved:
    found = _nearest_targets(_c(tl), step, terrain)
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
    found = _nearest_targets(_c(tl), step, terrain)
    if found is None:
        return None
    routes = sorted({displacement(dx, dy) for dx, dy in found[1]})
    return (routes[0] if len(routes) == 1 else routes), (step,)


def _extreme_dist(pick: Callable[[list[int]], int]) -> Callable[..., Solved]:
    def solve(tl: Any, L: int, R: int, terrain: str) -> Solved:
        tl = _c(tl)
        dist = {t: tl.manhattan_nearest(t, norm(terrain)) for t in range(L, R + 1)}
        if L > R or any(d is None for d in dist.values()):
            return None
        target = pick([d for d in dist.values() if d is not None])
        return next(t for t, d in dist.items() if d == target), tuple(range(L, R + 1))

    return solve


# -- Temporal ------------------------------------------------------------------------------------
def _first_event(tl: CrafterTimeline, event: str) -> int | None:
    steps = tl.event_steps().get(norm(event))
    return steps[0] if steps else None


def e_event_order(tl: Any, eventA: str, eventB: str) -> Solved:
    a, b = _first_event(_c(tl), eventA), _first_event(_c(tl), eventB)
    if a is None or b is None or a == b:
        return None
    return ("yes" if a < b else "no"), (a, b)


def e_event_interval(tl: Any, eventA: str, eventB: str) -> Solved:
    a = _first_event(_c(tl), eventA)
    if a is None or norm(eventA) == norm(eventB):
        return None
    later = [t for t in _c(tl).event_steps().get(norm(eventB), []) if t > a]
    return (later[0] - a, (a, later[0])) if later else None


def e_state_after_event(tl: Any, event: str, stat: str) -> Solved:
    t = _first_event(_c(tl), event)
    s = _c(tl).state(t) if t is not None else None
    return (s.vitals[stat], (t,)) if s is not None and t is not None and stat in s.vitals else None


# -- Logical -------------------------------------------------------------------------------------
def f_craft_feasibility(tl: Any, step: int, craft: str) -> Solved:
    s = _c(tl).state(step)
    needs = recipes().get(norm(craft).replace(" ", "_"))
    if s is None or needs is None:
        return None
    return ("yes" if all(s.counts.get(item_name(k), 0) >= n for k, n in needs.items()) else "no"), (step,)


def f_event_loc(tl: Any, event: str) -> Solved:
    steps = _c(tl).event_steps().get(norm(event))
    return (", ".join(str(t) for t in steps), tuple(steps)) if steps else None


def _attacks(tl: CrafterTimeline) -> list[int] | None:
    if not tl.known(tl.first, tl.last):
        return None
    return [t for t in tl.order if tl.states[t].attack in ("zombie", "arrow")]


def f_attack_count(tl: Any) -> Solved:
    steps = _attacks(_c(tl))
    return (len(steps), tuple(steps) or (_c(tl).last,)) if steps is not None else None


def f_first_attack_step(tl: Any) -> Solved:
    steps = _attacks(_c(tl))
    return (steps[0], (steps[0],)) if steps else None


def f_last_attack_step(tl: Any) -> Solved:
    steps = _attacks(_c(tl))
    return (steps[-1], (steps[-1],)) if steps else None


_STARVED = {"food": "hunger", "drink": "thirst", "energy": "fatigue"}


def f_death_reason(tl: Any) -> Solved:
    tl = _c(tl)
    s = tl.state(tl.last)
    if s is None or s.vitals.get("health", 1) > 0:
        return None
    if s.attack:
        return s.attack, (tl.last,)
    causes = sorted(word for vital, word in _STARVED.items() if s.vitals.get(vital, 1) == 0)
    return (causes[0] if len(causes) == 1 else causes, (tl.last,)) if causes else None


def f_inventory_contents(tl: Any, step: int) -> Solved:
    s = _c(tl).state(step)
    return (inventory_text([k for k, v in s.counts.items() if v > 0]), (step,)) if s else None


# -- slots ---------------------------------------------------------------------------------------


def _steps(tl: Any, vocab: Vocabulary) -> Iterable[dict]:
    return ({"step": t} for t in acted_steps(tl))


def _reason_step_slots(tl: Any, vocab: Vocabulary) -> Iterable[dict]:
    return ({"step": t} for t in acted_steps(tl) if tl.at(t).reason)


def _stat_slots(tl: Any, vocab: Vocabulary) -> Iterable[dict]:
    return ({"stat": v, "step": t} for t in acted_steps(tl)[::3] for v in VITALS)


def _resource_step_slots(tl: Any, vocab: Vocabulary) -> Iterable[dict]:
    return ({"resource": r, "step": t} for t in acted_steps(tl)[::3] for r in _c(tl).held_items())


def _values(tl: CrafterTimeline, kind: str) -> list[str]:
    return {
        "action": tl.taken_actions,
        "keyword": tl.reason_keywords,
        "terrain": lambda: sorted({s.terrain for s in tl.states.values() if s.terrain}),
    }[kind]()


def _occurrence_slots(kind: str) -> Callable[[Any, Vocabulary], Iterable[dict]]:
    def slots(tl: Any, vocab: Vocabulary) -> Iterable[dict]:
        return ({"ordinal": o, kind: v} for v in _values(_c(tl), kind) for o in ORDINALS)

    return slots


def _around_slots(kind: str) -> Callable[[Any, Vocabulary], Iterable[dict]]:
    def slots(tl: Any, vocab: Vocabulary) -> Iterable[dict]:
        return (
            {"offset": k, "side": side, "ordinal": o, kind: v}
            for v in _values(_c(tl), kind)
            for o in ("first", "last")
            for side in ("before", "after")
            for k in (1, 2)
        )

    return slots


def _range_slots(tl: Any, vocab: Vocabulary) -> Iterable[dict]:
    return ({"L": a, "R": b} for a, b in step_ranges(_c(tl)))


def _range_value_slots(
    name: str, values: Callable[[CrafterTimeline], list[str]]
) -> Callable[[Any, Vocabulary], Iterable[dict]]:
    def slots(tl: Any, vocab: Vocabulary) -> Iterable[dict]:
        return ({"L": a, "R": b, name: v} for a, b in step_ranges(_c(tl)) for v in values(_c(tl)))

    return slots


def _resource_slots(tl: Any, vocab: Vocabulary) -> Iterable[dict]:
    return ({"resource": r} for r in _c(tl).held_items())


def _step_terrain_slots(tl: Any, vocab: Vocabulary) -> Iterable[dict]:
    return ({"step": t, "terrain": v} for t in acted_steps(tl)[::3] for v in _c(tl).seen_terrains())


def _predict_slots(tl: Any, vocab: Vocabulary) -> Iterable[dict]:
    return ({"step": t, "direction": d, "K": k} for t in acted_steps(tl)[::3] for d in MOVES for k in (1, 2, 3))


def _event_pair_slots(tl: Any, vocab: Vocabulary) -> Iterable[dict]:
    events = sorted(_c(tl).event_steps())
    return ({"eventA": a, "eventB": b} for a in events for b in events if a != b)


def _event_stat_slots(tl: Any, vocab: Vocabulary) -> Iterable[dict]:
    return ({"event": e, "stat": v} for e in sorted(_c(tl).event_steps()) for v in VITALS)


def _event_slots(tl: Any, vocab: Vocabulary) -> Iterable[dict]:
    return ({"event": e} for e in sorted(_c(tl).event_steps()))


def _craft_slots(tl: Any, vocab: Vocabulary) -> Iterable[dict]:
    return ({"step": t, "craft": c} for t in acted_steps(tl)[::3] for c in CRAFTS)


def _none(tl: Any, vocab: Vocabulary) -> Iterable[dict]:
    return [{}]


T = Template
CRAFTER_TEMPLATES: tuple[Template, ...] = (
    T("A_action", "Single-Hop", "string", "What is the action at step {step}?", a_action, _steps),
    T("A_reason", "Single-Hop", "string", "What was the reasoning at step {step}?", a_reason, _reason_step_slots),
    T("A_stat", "Single-Hop", "integer", "What was your {stat} value at step {step}?", a_stat, _stat_slots),
    T("A_terrain", "Single-Hop", "string", "What terrain was under you at step {step}?", a_terrain, _steps),
    T(
        "A_inventory",
        "Single-Hop",
        "integer",
        "How many {resource} did you have at step {step}?",
        a_inventory,
        _resource_step_slots,
    ),
    T(
        "A_occ_action",
        "Single-Hop",
        "integer",
        "Which step is the {ordinal} step whose action is '{action}'?",
        _occurrence("action"),
        _occurrence_slots("action"),
        ("action", "action"),
    ),
    T(
        "A_occ_keyword",
        "Single-Hop",
        "integer",
        "Which step is the {ordinal} step whose reason mentions '{keyword}'?",
        _occurrence("keyword"),
        _occurrence_slots("keyword"),
        ("keyword", "keyword"),
    ),
    T(
        "A_occ_terrain",
        "Single-Hop",
        "integer",
        "Which step is the {ordinal} step which you stood on {terrain} terrain?",
        _occurrence("terrain"),
        _occurrence_slots("terrain"),
        ("terrain", "terrain"),
    ),
    T(
        "B_action",
        "Multi-Hop",
        "string",
        "What is the action {offset} step(s) {side} the {ordinal} step whose action is '{action}'?",
        _around("action"),
        _around_slots("action"),
        ("action", "action"),
    ),
    T(
        "B_keyword",
        "Multi-Hop",
        "string",
        "What is the action {offset} step(s) {side} the {ordinal} step whose reason mentions '{keyword}'?",
        _around("keyword"),
        _around_slots("keyword"),
        ("keyword", "keyword"),
    ),
    T(
        "B_terrain",
        "Multi-Hop",
        "string",
        "What is the action {offset} step(s) {side} the {ordinal} step which you stood on {terrain} terrain?",
        _around("terrain"),
        _around_slots("terrain"),
        ("terrain", "terrain"),
    ),
    T(
        "C_keyword_count",
        "Inducing",
        "integer",
        "From steps {L} to {R}, how many steps have reasons that mention '{keyword}'?",
        c_keyword_count,
        _range_value_slots("keyword", lambda tl: tl.reason_keywords()),
    ),
    T(
        "C_most_move",
        "Inducing",
        "list",
        "From steps {L} to {R}, what was the most common movement direction?",
        c_most_move,
        _range_slots,
    ),
    T(
        "C_longest_run",
        "Inducing",
        "integer",
        "From steps {L} to {R}, what was the longest consecutive run of {action}?",
        c_longest_run,
        _range_value_slots("action", lambda tl: tl.taken_actions()),
    ),
    T(
        "C_collect_res",
        "Inducing",
        "integer",
        "From steps {L} to {R}, how many times did you successfully collect {resource}?",
        c_collect_res,
        _range_value_slots("resource", lambda tl: tl.held_items()),
    ),
    T(
        "C_resource_peak",
        "Inducing",
        "integer",
        "After completing which step does {resource} reach its maximum quantity (at least 1)?",
        c_resource_peak,
        _resource_slots,
        ("resource", "resource"),
    ),
    T(
        "C_resource_change",
        "Inducing",
        "integer",
        "From steps {L} to {R}, what was the change in {resource} quantity?",
        c_resource_change,
        _range_value_slots("resource", lambda tl: tl.held_items()),
    ),
    T(
        "C_visible_count",
        "Inducing",
        "integer",
        "From steps {L} to {R}, in how many steps could you see any {terrain} in the frame?",
        c_visible_count,
        _range_value_slots("terrain", lambda tl: tl.seen_terrains()),
    ),
    T(
        "C_adjacent_count",
        "Inducing",
        "integer",
        "From steps {L} to {R}, in how many steps were you adjacent to any {terrain}?",
        c_adjacent_count,
        _range_value_slots("terrain", lambda tl: tl.seen_terrains()),
    ),
    T(
        "C_distinct_trees",
        "Inducing",
        "integer",
        "From steps {L} to {R}, how many distinct trees did you see in total?",
        c_distinct_trees,
        _range_slots,
    ),
    T(
        "D_displacement",
        "Spatial",
        "string",
        "From steps {L} to {R}, what was the total displacement of you? "
        "Answer in 'X step(s) left/right and Y step(s) up/down'.",
        d_displacement,
        _range_slots,
    ),
    T(
        "D_path_length",
        "Spatial",
        "integer",
        "From steps {L} to {R}, how many movement steps did you successfully take?",
        d_path_length,
        _range_slots,
    ),
    T(
        "D_predict_terrain",
        "Spatial",
        "string",
        "At step {step}, if you walked {direction} {K} step(s), what terrain would be underfoot?",
        d_predict_terrain,
        _predict_slots,
    ),
    T(
        "D_nearest_dir",
        "Spatial",
        "list",
        "At step {step}, in which direction is the nearest {terrain} relative to you?",
        d_nearest_dir,
        _step_terrain_slots,
        ("terrain", "terrain"),
    ),
    T(
        "D_nav_to_target",
        "Spatial",
        "list",
        "At step {step}, how should you move to reach the nearest {terrain}? "
        "Answer in displacement format (or '0' if already on target).",
        d_nav_to_target,
        _step_terrain_slots,
        ("terrain", "terrain"),
    ),
    T(
        "D_min_dist",
        "Spatial",
        "integer",
        "From steps {L} to {R}, at which step were you closest to the nearest {terrain}? (If ties, answer the first.)",
        _extreme_dist(min),
        _range_value_slots("terrain", lambda tl: tl.seen_terrains()),
    ),
    T(
        "D_max_dist",
        "Spatial",
        "integer",
        "From steps {L} to {R}, at which step were you furthest from the nearest {terrain}? "
        "(If ties, answer the first.)",
        _extreme_dist(max),
        _range_value_slots("terrain", lambda tl: tl.seen_terrains()),
    ),
    T(
        "E_event_order",
        "Temporal",
        "string",
        "Did {eventA} happen before {eventB}? Answer in 'yes' or 'no'.",
        e_event_order,
        _event_pair_slots,
    ),
    T(
        "E_event_interval",
        "Temporal",
        "integer",
        "After {eventA}, after how many steps did {eventB} occur?",
        e_event_interval,
        _event_pair_slots,
    ),
    T(
        "E_state_after_event",
        "Temporal",
        "integer",
        "Immediately after {event}, what was your {stat} value?",
        e_state_after_event,
        _event_stat_slots,
    ),
    T(
        "F_craft_feasibility",
        "Logical",
        "string",
        "At step {step}, are the collected resources enough to craft {craft}? Answer in 'yes' or 'no'.",
        f_craft_feasibility,
        _craft_slots,
    ),
    T(
        "F_event_loc",
        "Logical",
        "string",
        "At which step(s) did you {event}? (Answer as a list of step numbers.)",
        f_event_loc,
        _event_slots,
    ),
    T("F_attack_count", "Logical", "integer", "How many times were you attacked?", f_attack_count, _none),
    T(
        "F_death_reason",
        "Logical",
        "list",
        "What was the cause of your death at the end of the episode?",
        f_death_reason,
        _none,
    ),
    T(
        "F_first_attack_step",
        "Logical",
        "integer",
        "At which step were you attacked for the first time?",
        f_first_attack_step,
        _none,
    ),
    T(
        "F_last_attack_step",
        "Logical",
        "integer",
        "At which step were you attacked for the last time?",
        f_last_attack_step,
        _none,
    ),
    T(
        "F_inventory_contents",
        "Logical",
        "string",
        "At step {step}, what are all the items you carry?",
        f_inventory_contents,
        _steps,
    ),
)
CRAFTER_BY_ID = {t.id: t for t in CRAFTER_TEMPLATES}
