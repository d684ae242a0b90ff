"""What the papers measure about an agent's process besides its score, from a finished run's files.

- Steps per replan (DAVIS table 2): game steps per plan made; None when the agent never planned.
- Graph growth and update rate (AriGraph figure 5): how many facts the KG held at each step, how many
  were ever recorded, and the share of them later closed (outdated by a newer fact).
"""

from __future__ import annotations

from collections import Counter
from typing import Any

from ..memory.world import MEMORY_FILE
from ..models.structured import OUTCOMES
from ..runs import RunDir
from .fidelity import read_kg


def steps_per_replan(steps: int, replies_by_node: dict[str, dict[str, Any]]) -> float | None:
    """Game steps per plan made. Plans are counted by the planner's reply outcomes, one per planner run,
    not by its model calls: a reply asked again is one plan that cost two calls."""
    # one per planner run
    plans = sum(int((replies_by_node.get("planner") or {}).get(outcome) or 0) for outcome in OUTCOMES)
    return round(steps / plans, 3) if plans else None


def graph_growth(run: RunDir) -> dict[str, Any]:
    """``facts_by_step`` ([step, facts held]), ``updates_by_step`` ([step, facts closed at that step]: AriGraph's
    update rate during play), ``recorded`` (facts ever), ``closed`` and ``update_rate`` (the share of facts
    ever closed), of a run already checked and copied (``agent.integrity.checked_copies``)."""
    if not (run.memory_path / MEMORY_FILE).is_file():
        return {"facts_by_step": [], "updates_by_step": [], "recorded": 0, "closed": 0, "update_rate": None}
    kg, steps = read_kg(run.memory_path)
    facts = kg.all_facts
    by_step = [[step, sum(1 for f in facts if f.held_at(step))] for step in sorted(steps)]
    closings = Counter(f.valid_to for f in facts if f.valid_to is not None)
    closed = sum(closings.values())
    return {
        "facts_by_step": by_step,
        "updates_by_step": [[step, closings.get(step, 0)] for step in sorted(steps)],
        "recorded": len(facts),
        "closed": closed,
        "update_rate": round(closed / len(facts), 4) if facts else None,
    }
