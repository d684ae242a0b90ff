"""Memory fidelity of the scripted extractor on walkthrough plays: precision, recall and coverage of
the KG against the game's true facts, per game and per relation family.

Each game's walkthrough is played; every observation goes through the relation retriever's own
prompt to the scripted model's extraction role and into a fresh memory, exactly as memory_update
stores it (``ariadnegraph.evals.fidelity.walkthrough_fidelity``). Figures are micro-averaged over
the episode's steps; the closing lines sum the counts of every play of a spec. Targets (issue 5): precision
>= 0.9 and recall >= 0.8 on arigraph:cook and the level-2 cooking games.

    python benchmarks/fidelity.py [--games arigraph:cook cooking:2 ...] [--seeds 1-8]
"""

from __future__ import annotations

import argparse
import time

from ariadnegraph.evals.fidelity import FAMILIES, EpisodeFidelity, walkthrough_fidelity

DEFAULT_GAMES = [
    "arigraph:cook",
    "arigraph:cook_hard",
    "arigraph:hunt",
    "cooking:1",
    "cooking:2",
    "cooking:3",
    "cooking:4",
]


def _seeds(text: str) -> list[int]:
    first, _, last = text.partition("-")
    return list(range(int(first), int(last or first) + 1))


def _cell(value: float | None) -> str:
    return "  -  " if value is None else f"{value:.3f}"


def _counts(result: EpisodeFidelity) -> tuple[int, int, int]:
    return (
        sum(p.true_positives for p in result.points),
        sum(p.false_positives for p in result.points),
        sum(p.false_negatives for p in result.points),
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--games", nargs="+", default=DEFAULT_GAMES, help="game specs; generated ones get every seed")
    parser.add_argument("--seeds", default="1-8", help="seeds of generated games (cooking:L), e.g. 1-8")
    args = parser.parse_args()
    plays = [
        (spec, seed)
        for spec in args.games
        for seed in (_seeds(args.seeds) if not spec.startswith(("arigraph:", "file:")) else [None])
    ]
    header = f"{'game':<22} {'steps':>5} {'precision':>9} {'recall':>7} {'coverage':>8}  " + "  ".join(
        f"{name[:11]:>11} P/R" for name in FAMILIES
    )
    print(header)
    print("-" * len(header))
    per_spec: dict[str, list[int]] = {}
    for spec, seed in plays:
        started = time.perf_counter()
        result = walkthrough_fidelity(spec, **({"seed": seed} if seed is not None else {}))
        tp, fp, fn = _counts(result)
        totals = per_spec.setdefault(spec, [0, 0, 0, 0])
        for i, value in enumerate((tp, fp, fn, len(result.points))):
            totals[i] += value
        name = spec if seed is None else f"{spec} seed {seed}"
        families = "  ".join(
            f"{_cell(result.by_relation[f]['precision'])}/{_cell(result.by_relation[f]['recall'])}" for f in FAMILIES
        )
        print(
            f"{name:<22} {len(result.points):>5} {_cell(result.precision):>9} {_cell(result.recall):>7} "
            f"{_cell(result.coverage):>8}  {families}   ({time.perf_counter() - started:.1f} s)",
            flush=True,
        )
    print()
    print("micro-averages over every step of every play of a spec:")
    for spec, (tp, fp, fn, steps) in per_spec.items():
        precision = tp / (tp + fp) if tp + fp else None
        recall = tp / (tp + fn) if tp + fn else None
        print(f"{spec:<22} {steps:>5} steps  precision {_cell(precision)}  recall {_cell(recall)}")


if __name__ == "__main__":
    main()
