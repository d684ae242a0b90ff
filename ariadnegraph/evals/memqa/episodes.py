"""Loading a run as an :class:`~.index.Episode`: the text families' timeline, or Crafter's (table 15),
chosen by the run's environment."""

from __future__ import annotations

from pathlib import Path

from ...runs import RunDir
from .crafter_index import crafter_timeline, crafter_vocabulary
from .index import Episode, StepState, Timeline, game_vocabulary, inventory_from, location_from


def load_episode(run_dir: str | Path, run_id: str) -> Episode:
    """The ground truth of a run: trajectory + oracle signals per step."""
    run = RunDir.open(run_dir, run_id)
    oracle = {r["step"]: r for r in run.oracle_steps()}
    steps = []
    for record in run.steps():
        o = oracle.get(record["step"], {})
        steps.append(
            StepState(
                record["step"],
                record.get("action"),
                record.get("observation") or "",
                record.get("score"),
                location_from(o, record.get("observation") or ""),
                inventory_from(o) if o else None,
                record.get("reason") or None,
                tuple(record["valid"]) if isinstance(record.get("valid"), list) else None,
            )
        )
    env = str(run.meta().get("env", ""))
    if env.split(":", 1)[0] == "crafter":  # table 15's signals come from Crafter's own oracle lines
        return Episode(run_id, env, crafter_timeline(steps, oracle), *crafter_vocabulary())
    items, locations = game_vocabulary(list(oracle.values()))
    return Episode(run_id, env, Timeline(steps), tuple(items), tuple(locations))
