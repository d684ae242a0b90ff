"""Experience-conditioned memory QA on a suite of scripted episodes: plays cooking:2 and cooking:3
(seeds 1-3, 40 steps) and arigraph:hunt (60 steps) offline, then prints EMemBench's table 3 for the
in-context, full-history and memory answerers, split by evidence age (in the last 10 turns or older).

Questions are sampled with a seed per run id, so the episodes get fixed run ids (``memqa-<game>``):
the same code and seed print the same table. With ``--run-dir``, episodes already played there are
reused, not played again.

    python benchmarks/memqa.py [--run-dir DIR] [--per-type K] [--seed S] [--horizon N]
"""

from __future__ import annotations

import argparse
import re
import tempfile
import time
from pathlib import Path

from ariadnegraph.agent.context import AgentContext
from ariadnegraph.evals.memqa.evaluate import evaluate
from ariadnegraph.evals.memqa.report import counts, summarize, table
from ariadnegraph.models import model_label
from ariadnegraph.play import Episode, play

SUITE = (
    [("cooking:2", s, 40) for s in (1, 2, 3)]
    + [("cooking:3", s, 40) for s in (1, 2, 3)]
    + [("arigraph:hunt", None, 60)]
)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--run-dir", default=None, help="where to play the episodes (default: a temporary folder)")
    parser.add_argument("--per-type", type=int, default=5)
    parser.add_argument("--seed", type=int, default=42)
    parser.add_argument("--horizon", type=int, default=None)
    args = parser.parse_args()
    run_dir = args.run_dir or tempfile.mkdtemp(prefix="memqa-")
    run_ids = []
    for env, seed, steps in SUITE:
        started = time.perf_counter()
        run_id = re.sub(r"[^A-Za-z0-9]+", "-", f"memqa-{env}-s{seed}")
        if Path(run_dir, run_id, "run.json").is_file():
            print(f"reused {env} seed {seed}: {run_id}")
            run_ids.append(run_id)
            continue
        try:
            result = play(
                Episode(env, seed=seed, max_steps=steps), context=AgentContext(run_dir=run_dir), run_id=run_id
            )
        except Exception as exc:  # a game missing offline (arigraph:hunt without its files) is skipped, not fatal
            print(f"skipped {env}: {type(exc).__name__}: {exc}")
            continue
        run_ids.append(result["run_id"])
        print(
            f"played {env} seed {seed}: {result['steps']} steps, score {result['score']:g}/{result['max_score']:g} "
            f"({time.perf_counter() - started:.0f} s) -> {result['run_id']}"
        )
    started = time.perf_counter()
    rows = evaluate(run_dir, run_ids, per_type=args.per_type, seed=args.seed, horizon=args.horizon)
    summary = summarize(rows)
    print(
        f"\n{len(run_ids)} episodes, {len(rows) // 3} questions per answerer, model {model_label('scripted')} "
        f"(QA {time.perf_counter() - started:.0f} s); accuracy % per ability, overall ACC and not-answerable F1\n"
    )
    print(table(summary))
    print(counts(summary))


if __name__ == "__main__":
    main()
