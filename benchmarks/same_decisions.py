#!/usr/bin/env python
"""Whether a change left the agent's decisions alone: the same commands, observations, model calls and tokens.

A refactor that changes no decision (issue 40: the past as an index, the checkpoints' storage) must play every game
the same way. ``--play DIR`` plays a fixed set of episodes with the scripted double, for each of several presets, into
DIR with the ``ariadnegraph`` on the path (run it once with the code before, once after: ``PYTHONPATH=<worktree>``);
``--compare BEFORE AFTER`` pairs the runs of two such folders, or of two ``benchmarks/real_model.py`` outputs, by
game, seed, variation, preset and model, and compares them line by line: each step's command, observation and score,
and each model call's caller, prompt, reply and tokens (not its latency). Prints one row per pair and exits 1 on any
difference.

    PYTHONPATH=/path/to/before python benchmarks/same_decisions.py --play /tmp/before
    python benchmarks/same_decisions.py --play /tmp/after
    python benchmarks/same_decisions.py --compare /tmp/before /tmp/after
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Any

GAMES = [  # (env, seed, steps): a cooking game a level, AriGraph's clean and hunt, Crafter, a TWX game
    ("cooking:1", 1, 50),
    ("cooking:2", 2, 50),
    ("cooking:3", 3, 50),
    ("cooking:4", 4, 50),
    ("arigraph:clean", None, 60),
    ("arigraph:hunt", None, 60),
    ("crafter", 1, 60),
    ("twx:coincollector", 1, 40),
]
PRESETS = ["ariadne", "ariadne_full", "react", "stma", "arigraph", "davis", "reflexion"]
STEP_KEYS = ("step", "action", "observation", "score", "done", "won", "location", "inventory", "reason")
CALL_KEYS = ("node", "step", "model", "prompt", "reply", "usage", "outcome", "error")


def play_all(out: Path, presets: list[str]) -> None:
    from ariadnegraph.agent.context import AgentContext
    from ariadnegraph.play import Episode, play

    for preset in presets:
        for env, seed, steps in GAMES:
            result = play(
                Episode(env, seed=seed, max_steps=steps),
                context=AgentContext(run_dir=str(out), preset=preset, model="scripted"),
            )
            print(f"{preset} {env} seed {seed}: {result['steps']} steps, score {result.get('score')}", flush=True)


def runs_of(root: Path) -> dict[tuple[Any, ...], Path]:
    """Each run folder under ``root`` (at any depth), by what it played."""
    found = {}
    for meta_path in sorted(root.rglob("run.json")):
        meta = json.loads(meta_path.read_text())
        context = meta.get("context") or {}
        key = (meta.get("env"), meta.get("seed"), meta.get("variation"), context.get("preset"), context.get("model"))
        found[key] = meta_path.parent
    return found


def lines(path: Path, keys: tuple[str, ...]) -> list[dict[str, Any]]:
    if not path.is_file():
        return []
    return [{k: record.get(k) for k in keys} for record in map(json.loads, path.read_text().splitlines())]


def first_difference(before: list[dict[str, Any]], after: list[dict[str, Any]]) -> str | None:
    for n, (a, b) in enumerate(zip(before, after)):
        if a != b:
            keys = [k for k in a if a.get(k) != b.get(k)]
            return f"line {n + 1} differs in {', '.join(keys)}"
    if len(before) != len(after):
        return f"{len(before)} lines before, {len(after)} after"
    return None


def compare(before_root: Path, after_root: Path) -> int:
    before, after = runs_of(before_root), runs_of(after_root)
    print("| game | seed | preset | model | steps | calls | tokens (prompt+completion) | same |")
    print("|---|---:|---|---|---:|---:|---:|---|")
    differ = 0
    for key in sorted(set(before) | set(after), key=str):
        env, seed, _, preset, model = key
        if key not in before or key not in after:
            print(f"| {env} | {seed} | {preset} | {model} | | | | only {'before' if key in before else 'after'} |")
            differ += 1
            continue
        steps = [lines(run / "trajectory.jsonl", STEP_KEYS) for run in (before[key], after[key])]
        calls = [
            [c for c in lines(run / "calls.jsonl", CALL_KEYS) if c.get("prompt") is not None]
            for run in (before[key], after[key])
        ]
        tokens = [
            sum(
                (c.get("usage") or {}).get("prompt_tokens", 0) + (c.get("usage") or {}).get("completion_tokens", 0)
                for c in side
            )
            for side in calls
        ]
        problem = first_difference(*steps)
        if problem is not None:
            problem = f"trajectory: {problem}"
        elif (problem := first_difference(*calls)) is not None:
            problem = f"calls: {problem}"
        if problem is None and tokens[0] != tokens[1]:
            problem = f"tokens {tokens[0]} before, {tokens[1]} after"
        differ += problem is not None
        print(
            f"| {env} | {seed} | {preset} | {model} | {len(steps[1]) - 1} | {len(calls[1])} | {tokens[1]:,} | "
            f"{'yes' if problem is None else 'NO: ' + problem} |"
        )
    print(f"\n{differ} of {len(set(before) | set(after))} differ")
    return 1 if differ else 0


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--play", type=Path, metavar="DIR")
    parser.add_argument("--presets", nargs="+", default=PRESETS)
    parser.add_argument("--compare", type=Path, nargs=2, metavar=("BEFORE", "AFTER"))
    args = parser.parse_args()
    if args.play:
        play_all(args.play, args.presets)
    if args.compare:
        sys.exit(compare(*args.compare))


if __name__ == "__main__":
    main()
