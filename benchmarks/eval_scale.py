"""Eval throughput on this machine: episodes per minute with the local process pool (1 and 2 workers) and
with Ray tasks on a local Ray (2 CPUs), on the same scripted episodes (so the agent's own work, not a
model's latency, is what is measured).

    python benchmarks/eval_scale.py [--levels 1,2] [--games 2]

Each configuration plays every episode afresh into its own temporary folder; the time includes starting
the workers (the pool's spawned processes, or Ray itself).
"""

from __future__ import annotations

import argparse
import tempfile
import time
from pathlib import Path

from ariadnegraph.evals.plan import EvalRequest
from ariadnegraph.evals.planning import plan_eval
from ariadnegraph.evals.runner import run_eval
from ariadnegraph.models import model_label

CONFIGS = [("local", 1), ("local", 2), ("ray", 2)]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--levels", default="1,2")
    parser.add_argument("--games", type=int, default=2)
    parser.add_argument("--presets", default="react,ariadne")
    args = parser.parse_args()
    rows = []
    for backend, workers in CONFIGS:
        with tempfile.TemporaryDirectory(prefix="eval-scale-") as out:
            plan = plan_eval(
                EvalRequest(
                    suite="stma-cooking",
                    presets=args.presets.split(","),
                    out=Path(out),
                    workers=workers,
                    backend=backend,
                    groups=args.levels.split(","),
                    per_group=args.games,
                )
            )
            started = time.perf_counter()
            records = run_eval(plan, progress=False)
            wall = time.perf_counter() - started
        steps = sum(r["steps"] for r in records)
        rows.append((backend, workers, len(records), steps, wall))
    print(
        f"stma-cooking levels {args.levels}, {args.games} games per level, presets {args.presets}, model "
        f"{model_label('scripted')}\n"
    )
    print(
        f"{'backend':<8} {'workers':>7} {'episodes':>8} {'steps':>6} {'wall s':>8} {'episodes/min':>13} {'steps/s':>8}"
    )
    for backend, workers, episodes, steps, wall in rows:
        print(
            f"{backend:<8} {workers:>7} {episodes:>8} {steps:>6} {wall:>8.1f} {60 * episodes / wall:>13.1f} "
            f"{steps / wall:>8.2f}"
        )


if __name__ == "__main__":
    main()
