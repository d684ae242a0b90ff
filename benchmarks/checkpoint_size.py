#!/usr/bin/env python
"""How a run's LangGraph checkpoints grow with the episode: bytes per step at steps 10, 100 and 1,000.

Plays long episodes with the scripted double (``ariadnegraph.play.play``, the real graph and its SQLite
checkpointer in the run's folder), then reads ``checkpoints.sqlite`` back: every checkpoint row is
decoded to find the game step its state was at, and its bytes (the checkpoint blob, its metadata and
the pending writes stored under it) are summed per step. Crafter first (the double's player starves
at about step 160, so its rows stop there), then ``arigraph:clean``, which the double never finishes:
its episode runs the whole 1,000 steps. A flat "bytes per step" column
means a checkpoint costs the same at step 1,000 as at step 10; what grows with the episode belongs in
the run's files (trajectory, memory), not in the state.

    python benchmarks/checkpoint_size.py                 # crafter and arigraph:clean, up to 1,000 steps (~1 minute)
    python benchmarks/checkpoint_size.py --envs crafter --max-steps 200 --marks 10 100 200

Prints one Markdown table; the numbers depend on the game, not on the machine.
"""

from __future__ import annotations

import argparse
import sqlite3
import statistics
import tempfile
import time
from collections import defaultdict
from pathlib import Path

from langgraph.checkpoint.serde.jsonplus import JsonPlusSerializer

from ariadnegraph.agent.context import AgentContext
from ariadnegraph.models import model_label
from ariadnegraph.play import play
from ariadnegraph.runs import RunDir


def bytes_by_step(checkpoints: Path) -> tuple[dict[int, list[int]], int]:
    """Game step -> the sizes of the checkpoints whose state is at that step; and the file's size."""
    serde = JsonPlusSerializer()
    db = sqlite3.connect(checkpoints)
    writes: dict[str, int] = defaultdict(int)
    for checkpoint_id, size in db.execute(
        "SELECT checkpoint_id, SUM(LENGTH(value)) FROM writes GROUP BY checkpoint_id"
    ):
        writes[checkpoint_id] = size or 0
    sizes: dict[int, list[int]] = defaultdict(list)
    for checkpoint_id, kind, blob, metadata in db.execute(
        "SELECT checkpoint_id, type, checkpoint, metadata FROM checkpoints"
    ):
        values = serde.loads_typed((kind, blob)).get("channel_values") or {}
        step = values.get("step")
        if isinstance(step, int):
            sizes[step].append(len(blob) + len(metadata or b"") + writes[checkpoint_id])
    db.close()
    return sizes, checkpoints.stat().st_size


def measure(env: str, seed: int, max_steps: int, preset: str, marks: list[int]) -> list[str]:
    """One episode's rows of the table."""
    with tempfile.TemporaryDirectory(prefix="ariadne-ckpt-") as root:
        started = time.perf_counter()
        result = play(env, seed=seed, max_steps=max_steps, context=AgentContext(run_dir=root, preset=preset))
        seconds = time.perf_counter() - started
        sizes, file_size = bytes_by_step(RunDir.open(root, result["run_id"]).checkpoints_path)
    rows = []
    for mark in marks:
        found = sizes.get(mark)
        if not found:
            rows.append(f"| {env} | {mark} | — (the episode ended at step {result['steps']}) | | | |")
            continue
        rows.append(
            f"| {env} | {mark} | {len(found)} | {sum(found):,} | {statistics.mean(found):,.0f} | "
            f"{file_size / 1e6:,.1f} MB after {result['steps']} steps ({seconds:.0f} s) |"
        )
    return rows


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--envs", nargs="+", default=["crafter", "arigraph:clean"])
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--max-steps", type=int, default=1000)
    parser.add_argument("--marks", type=int, nargs="+", default=[10, 100, 1000])
    parser.add_argument(
        "--preset", default="ariadne_full", help="default: every role on, so every role's state is in the checkpoints"
    )
    args = parser.parse_args()
    print(f"preset {args.preset}, model {model_label('scripted')}, seed {args.seed}, up to {args.max_steps} steps\n")
    print("| game | step | checkpoints written | bytes per step | mean bytes per checkpoint | checkpoints.sqlite |")
    print("|---|---:|---:|---:|---:|---|")
    for env in args.envs:
        print("\n".join(measure(env, args.seed, args.max_steps, args.preset, args.marks)), flush=True)


if __name__ == "__main__":
    main()
