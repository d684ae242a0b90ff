#!/usr/bin/env python
"""What a step costs as the episode grows: checkpoint bytes and time a step at steps 10, 100, 1,000 (and 10,000).

Plays long episodes with the scripted double (``ariadnegraph.play.play``, the real graph, its SQLite checkpointer in
the run's folder), timing each step as it ends, then reads ``checkpoints.sqlite`` back
(``agent.checkpoints.bytes_by_step``): a step's bytes are its checkpoints' rows, the writes stored under them and the
channel values they stored. The time a step is wall time with no model latency (the scripted double answers in
code): the framework's work and the game's own step. Each mark's time is the mean over the 10 steps ending at it.

Crafter: the double's player starves at about step 160, so its rows stop there. ``arigraph:clean``, which the double
never finishes, runs the whole episode. Flat columns mean a step costs the same at step 10,000 as at step 10.

    python benchmarks/checkpoint_size.py                          # crafter and arigraph:clean, 1,000 steps (~2 min)
    python benchmarks/checkpoint_size.py --envs arigraph:clean --max-steps 10000 --marks 10 100 1000 10000

Prints one Markdown table.
"""

from __future__ import annotations

import argparse
import sqlite3
import statistics
import tempfile
import time
from pathlib import Path
from typing import Any

from ariadnegraph.agent.checkpoints import bytes_by_step
from ariadnegraph.agent.context import AgentContext
from ariadnegraph.models import model_label
from ariadnegraph.play import Episode, play
from ariadnegraph.runs import RunDir

WINDOW = 10  # steps each mark's time a step is averaged over


def settled_size(path: Path) -> int:
    """The checkpoints file's bytes once its write-ahead log is folded in: what the run leaves on disk, keys, indexes
    and SQLite's pages included (a step's data bytes leave those out)."""
    connection = sqlite3.connect(path)
    try:
        connection.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    finally:
        connection.close()
    return path.stat().st_size


def measure(env: str, seed: int, max_steps: int, preset: str, marks: list[int]) -> list[str]:
    """One episode's rows of the table."""
    ended: dict[int, float] = {}

    def on_step(update: dict[str, Any]) -> None:
        ended[int(update.get("step", 0))] = time.perf_counter()

    with tempfile.TemporaryDirectory(prefix="ariadne-ckpt-") as root:
        started = time.perf_counter()
        context = AgentContext(run_dir=root, preset=preset, model="scripted")
        result = play(Episode(env, seed=seed, max_steps=max_steps), context=context, on_step=on_step)
        seconds = time.perf_counter() - started
        run = RunDir.open(root, result["run_id"])
        sizes = bytes_by_step(run.checkpoints_path, run.run_id)
        file_size = settled_size(run.checkpoints_path)
    rows = []
    for mark in marks:
        found = sizes.get(mark)
        if not found or mark - WINDOW not in ended:
            rows.append(f"| {env} | {preset} | {mark} | — (the episode ended at step {result['steps']}) | | | |")
            continue
        per_step = (ended[mark] - ended[mark - WINDOW]) / WINDOW
        window = [sum(sizes.get(step, [])) for step in range(mark - WINDOW + 1, mark + 1)]
        rows.append(
            f"| {env} | {preset} | {mark} | {len(found)} | {statistics.mean(window):,.0f} | "
            f"{per_step * 1000:,.0f} ms | {file_size / 1e6:,.1f} MB after {result['steps']} steps, "
            f"{file_size / max(result['steps'], 1) / 1000:,.0f} KB a step ({seconds:.0f} s) |"
        )
    return rows


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--envs", nargs="+", default=["crafter", "arigraph:clean"])
    parser.add_argument("--presets", nargs="+", default=["ariadne", "ariadne_full"])
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--max-steps", type=int, default=1000)
    parser.add_argument("--marks", type=int, nargs="+", default=[10, 100, 1000])
    args = parser.parse_args()
    print(f"model {model_label('scripted')}, seed {args.seed}, up to {args.max_steps} steps\n")
    print(
        "| game | preset | step | checkpoints at the step | checkpoint bytes a step | time a step "
        "| checkpoints.sqlite |"
    )
    print("|---|---|---:|---:|---:|---:|---|")
    for env in args.envs:
        for preset in args.presets:
            print("\n".join(measure(env, args.seed, args.max_steps, preset, args.marks)), flush=True)


if __name__ == "__main__":
    main()
