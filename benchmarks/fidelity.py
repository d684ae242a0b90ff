"""Memory fidelity: precision, recall and coverage of memory against the game's true facts, per game and per
relation family. Two modes:

- **walkthrough** (default): each game's walkthrough is played; every observation goes through the relation
  retriever's own prompt to the scripted model's extraction role and into a fresh memory, exactly as
  memory_update stores it (``ariadnegraph.evals.fidelity.walkthrough_fidelity``). Targets (issue 5): precision
  >= 0.9 and recall >= 0.8 on arigraph:cook and the level-2 cooking games.
- **played** (``--played``): the ``ariadne`` preset plays each game with the scripted model (object memory: each
  game family's parser reads what the agent perceives into memory; no language model is needed for that), and
  ``ariadne fidelity`` measures the run (``ariadnegraph.evals.fidelity.episode_fidelity``). One row per game, then
  one table per game family (TextWorld cooking, TextWorld's other games, each TextWorldExpress game, ScienceWorld),
  pooled over its episodes' steps. Games: issue 36's dev seeds and splits (never its held-out ones, except
  AriGraph's hunt and clean, which have no others).

Figures are micro-averaged over steps (the counts of every step summed); a family's line sums the counts of
every play of it.

    python benchmarks/fidelity.py [--games arigraph:cook cooking:2 ...] [--seeds 1-8]
    python benchmarks/fidelity.py --played [--max-steps 30] [--run-dir DIR]
"""

from __future__ import annotations

import argparse
import tempfile
import time
from typing import Any

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
# --played: (spec, env options) per game; cooking and treasure seeds are issue 36's dev seeds (37LNN), TWX and
# ScienceWorld play their dev splits.
PLAYED_GAMES: list[tuple[str, dict[str, Any]]] = [
    *((f"cooking:{level}", {"seed": int(f"37{level}{i:02d}")}) for level in (1, 2, 3, 4) for i in (1, 2)),
    ("arigraph:hunt", {}),
    ("arigraph:clean", {}),
    ("treasure:2", {"seed": 3701}),
    ("treasure:3", {"seed": 3702}),
    ("coin:3", {"seed": 3701}),
    ("coin:5", {"seed": 3702}),
    ("twx:cookingworld", {"seed": 0, "split": "dev"}),
    ("twx:coincollector", {"seed": 0, "split": "dev"}),
    ("twx:textworldcommonsense", {"seed": 0, "split": "dev"}),
    ("scienceworld:melt", {"variation": 0, "split": "dev"}),
    ("scienceworld:find-living-thing", {"variation": 0, "split": "dev"}),
    ("scienceworld:chemistry-mix-paint-secondary-color", {"variation": 0, "split": "dev"}),
]
COUNTED = ("tp", "fp", "fn", "truth")


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


def _ratios(counts: dict[str, int]) -> tuple[float | None, float | None, float | None]:
    """Precision, recall and coverage of summed counts (as ``evals.fidelity`` defines them)."""
    tp, fp, fn, truth = (counts.get(k, 0) for k in COUNTED)
    return (
        tp / (tp + fp) if tp + fp else None,
        tp / (tp + fn) if tp + fn else None,
        tp / truth if truth else None,
    )


def walkthroughs(games: list[str], seeds: str) -> None:
    plays = [
        (spec, seed)
        for spec in games
        for seed in (_seeds(seeds) if not spec.startswith(("arigraph:", "file:")) else [None])
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


def _played_line(name: str, episodes: int, steps: int, counts: dict[str, dict[str, int]]) -> str:
    figures = "  ".join(_cell(v) for v in _ratios(counts.get("all", {})))
    families = "  ".join("/".join(_cell(v) for v in _ratios(counts.get(f, {}))) for f in FAMILIES)
    return f"{name:<44} {episodes:>3} {steps:>5}  {figures}  {families}"


def played(games: list[tuple[str, dict[str, Any]]], max_steps: int, run_dir: str | None) -> None:
    from ariadnegraph.agent.context import AgentContext
    from ariadnegraph.envs.families import family_of
    from ariadnegraph.evals.fidelity import episode_fidelity
    from ariadnegraph.play import Episode, play

    header = f"{'game / family':<44} {'eps':>3} {'steps':>5}  {'prec ':>5}  {'recall':>5}  {'cover':>5}  " + "  ".join(
        f"{name[:17]:^17}" for name in FAMILIES
    )
    print(f"ariadne preset, scripted model, {max_steps} steps at most; per relation family: precision/recall/coverage")
    print(header)
    print("-" * len(header))
    pooled: dict[str, dict[str, Any]] = {}
    started_all = time.perf_counter()
    with tempfile.TemporaryDirectory() as scratch:
        where = run_dir or scratch
        for spec, options in games:
            name = spec + "".join(f" {key}={value}" for key, value in options.items() if key != "split")
            started = time.perf_counter()
            try:
                run = play(
                    Episode(spec, max_steps=max_steps, **options),
                    context=AgentContext(run_dir=where, preset="ariadne", model="scripted"),
                )
                result = episode_fidelity(where, run["run_id"])
            except Exception as exc:  # noqa: BLE001 - one game that cannot be played must not lose the table
                print(f"{name:<44} failed: {type(exc).__name__}: {' '.join(str(exc).split())[:200]}", flush=True)
                continue
            if not result.counts:
                print(f"{name:<44} no true facts to compare with", flush=True)
                continue
            steps = len(result.points)
            print(f"{_played_line(name, 1, steps, result.counts)}  ({time.perf_counter() - started:.0f} s)", flush=True)
            family = pooled.setdefault(family_of(spec).name, {"episodes": 0, "steps": 0, "counts": {}})
            family["episodes"] += 1
            family["steps"] += steps
            for relation, counts in result.counts.items():
                into = family["counts"].setdefault(relation, dict.fromkeys(COUNTED, 0))
                for key in COUNTED:
                    into[key] += counts[key]
    print()
    print("per game family (counts of every step of every episode summed):")
    print(header)
    print("-" * len(header))
    for family_name, family in pooled.items():
        print(_played_line(family_name, family["episodes"], family["steps"], family["counts"]))
    print(f"\n{len(games)} games in {time.perf_counter() - started_all:.0f} s")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--games", nargs="+", default=DEFAULT_GAMES, help="walkthrough mode: game specs")
    parser.add_argument("--seeds", default="1-8", help="walkthrough mode: seeds of generated games (cooking:L)")
    parser.add_argument("--played", action="store_true", help="play the ariadne preset on each family's games")
    parser.add_argument("--max-steps", type=int, default=30, help="played mode: commands per episode")
    parser.add_argument("--run-dir", help="played mode: keep the runs there (default: a temporary directory)")
    args = parser.parse_args()
    if args.played:
        played(PLAYED_GAMES, args.max_steps, args.run_dir)
    else:
        walkthroughs(args.games, args.seeds)


if __name__ == "__main__":
    main()
