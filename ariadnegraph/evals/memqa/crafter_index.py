"""Crafter's timeline for EMemBench's visual-game questions (table 15), from the oracle a Crafter run logs.

Per step (after its action): the position, the four vitals, the count of each item, the terrain
underfoot, the terrain of the view, the achievements earned and what hurt the player
(``envs.crafter_env`` writes them). The *seen map* at step t is the terrain of every cell some view up
to t showed, the latest sighting winning: what the player could know of the world then. EMemBench
builds its map from the whole world and the seen area; ours holds only what the logged views show.
"""

from __future__ import annotations

from collections import deque
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from ...envs.crafter_env import ITEMS, MATERIALS, VITALS, WALKABLE, decode_view
from .index import StepState, Timeline, mentions, norm

Cell = tuple[int, int]
MOVES: dict[str, Cell] = {"left": (-1, 0), "right": (1, 0), "up": (0, -1), "down": (0, 1)}


def item_name(key: str) -> str:
    """Crafter's ``wood_pickaxe`` as the questions write it: ``wood pickaxe``."""
    return key.replace("_", " ")


@dataclass(frozen=True)
class CrafterState:
    """One step's ground truth (after its action)."""

    pos: Cell
    vitals: Mapping[str, int]
    counts: Mapping[str, int]  # item name (spaces) -> how many held
    terrain: str
    view: Mapping[Cell, str]  # world cell -> terrain, the cells this step's view showed
    events: tuple[str, ...]  # achievements earned at this step ("collect wood")
    attack: str  # what hurt the player at this step: "zombie", "arrow", "lava" or ""


def crafter_state(record: Mapping[str, Any]) -> CrafterState | None:
    """A Crafter oracle line to a state (None for a line that lacks the view: an older log)."""
    if "view" not in record or "x" not in record:
        return None
    pos = (int(record["x"]), int(record["y"]))
    return CrafterState(
        pos,
        {k: int(record.get(k, 0)) for k in VITALS},
        {item_name(k): int(record.get(f"inv_{k}", 0)) for k in ITEMS},
        str(record.get("terrain") or ""),
        decode_view(str(record["view"]), pos),
        tuple(item_name(e) for e in str(record.get("events") or "").split(",") if e),
        str(record.get("attack") or ""),
    )


def displacement(dx: int, dy: int) -> str:
    """'X step(s) left/right and Y step(s) up/down' (EMemBench's displacement answers); '0' for none."""

    def part(n: int, neg: str, pos: str) -> str:
        return f"{abs(n)} step{'s' if abs(n) != 1 else ''} {neg if n < 0 else pos}"

    parts = ([part(dx, "left", "right")] if dx else []) + ([part(dy, "up", "down")] if dy else [])
    return " and ".join(parts) or "0"


class CrafterTimeline(Timeline):
    """A :class:`Timeline` with Crafter's per-step state (steps without one are unknown)."""

    def __init__(self, steps: Iterable[StepState], states: Mapping[int, CrafterState]) -> None:
        super().__init__(steps)
        self.states = {t: s for t, s in states.items() if t in self.by_step}

    def upto(self, horizon: int | None) -> "CrafterTimeline":
        if horizon is None:
            return self
        return CrafterTimeline((s for t, s in self.by_step.items() if t <= horizon), self.states)

    def state(self, step: int) -> CrafterState | None:
        return self.states.get(step)

    def known(self, first: int, last: int) -> bool:
        return first <= last and all(t in self.states for t in range(first, last + 1))

    def seen_map(self, step: int) -> dict[Cell, str]:
        """Every cell a view up to ``step`` showed, with its latest terrain."""
        cells: dict[Cell, str] = {}
        for t in self.order:
            if t <= step and t in self.states:
                cells.update(self.states[t].view)
        return cells

    def nearest(self, step: int, terrain: str) -> tuple[int, list[Cell]] | None:
        """BFS from the player's cell at ``step`` over the seen map (walkable cells; the target cells may be
        entered): the fewest moves to a ``terrain`` cell and every such cell; None when none is reachable."""
        state = self.states.get(step)
        if state is None:
            return None
        grid = self.seen_map(step)
        start = state.pos
        dist = {start: 0}
        queue = deque([start])
        best: int | None = None
        found: list[Cell] = []
        while queue:
            cell = queue.popleft()
            d = dist[cell]
            if best is not None and d > best:
                break
            if grid.get(cell) == terrain and cell != start or (cell == start and state.terrain == terrain):
                best = d
                found.append(cell)
                continue
            for dx, dy in MOVES.values():
                nxt = (cell[0] + dx, cell[1] + dy)
                if nxt not in dist and (grid.get(nxt) in WALKABLE or grid.get(nxt) == terrain):
                    dist[nxt] = d + 1
                    queue.append(nxt)
        return (best, sorted(found)) if best is not None else None

    def manhattan_nearest(self, step: int, terrain: str) -> int | None:
        """Distance (|dx| + |dy|) from the player at ``step`` to the nearest seen ``terrain`` cell."""
        state = self.states.get(step)
        if state is None:
            return None
        cells = [c for c, name in self.seen_map(step).items() if name == terrain]
        return min((abs(c[0] - state.pos[0]) + abs(c[1] - state.pos[1]) for c in cells), default=None)

    # -- what occurs (for slots and false premises) ------------------------------------------------
    def seen_terrains(self) -> list[str]:
        return sorted({name for s in self.states.values() for name in [*s.view.values(), s.terrain] if name})

    def held_items(self) -> list[str]:
        return sorted({k for s in self.states.values() for k, v in s.counts.items() if v > 0})

    def taken_actions(self) -> list[str]:
        return sorted({norm(self.at(t).action) for t in self.order if t > 0 and self.at(t).action})

    def event_steps(self) -> dict[str, list[int]]:
        found: dict[str, list[int]] = {}
        for t in self.order:
            if t in self.states:
                for event in self.states[t].events:
                    found.setdefault(event, []).append(t)
        return found

    def reason_keywords(self) -> list[str]:
        """Game names (items, terrains, creatures) some logged reason mentions."""
        return sorted({k for k in keyword_pool() if self.reason_steps(k)})

    def absent(self, kind: str) -> list[str]:
        """Values of ``kind`` valid in Crafter that never occur up to this timeline's last step."""
        if kind == "resource":
            return sorted(set(item_name(k) for k in ITEMS) - set(self.held_items()))
        if kind == "terrain":
            return sorted(set(MATERIALS) - set(self.seen_terrains()))
        if kind == "action":
            from ...envs.crafter_env import ACTIONS

            return sorted(set(ACTIONS) - set(self.taken_actions()))
        if kind == "keyword":
            return sorted(
                k for k in keyword_pool() if not any(mentions(self.at(t).reason or "", k) for t in self.order)
            )
        raise ValueError(f"unknown kind of value: {kind}")


def keyword_pool() -> Sequence[str]:
    """Words a Crafter reason may name: items, terrains and creatures."""
    return sorted({*(item_name(k) for k in ITEMS), *MATERIALS, "cow", "zombie", "skeleton", "plant"})


def crafter_vocabulary() -> tuple[tuple[str, ...], tuple[str, ...]]:
    """(items, terrains) Crafter holds."""
    return tuple(item_name(k) for k in ITEMS), MATERIALS


def crafter_timeline(steps: Sequence[StepState], oracle: Mapping[int, Mapping[str, Any]]) -> CrafterTimeline:
    states = {t: s for t, record in oracle.items() if (s := crafter_state(record)) is not None}
    return CrafterTimeline(steps, states)
