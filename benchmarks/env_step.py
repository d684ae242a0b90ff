"""Env step cost: raw ``textworld.start`` vs our adapter (child process + Observation), same infos.

Replays each game's walkthrough several times with both in lockstep (raw step, then adapter step on
the same command) so background load hits both alike, and prints p50/p95 per step and the ratio
(target: adapter within 1.2x).

    python benchmarks/env_step.py [--episodes 8] [--games arigraph:cook cooking:2]
"""

from __future__ import annotations

import argparse
import statistics
import time

import textworld

from ariadnegraph.envs import make
from ariadnegraph.envs.textworld_env import TextWorldEnv, requested_infos


def percentile(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))]


def timed(step, command: str) -> float:
    start = time.perf_counter()
    step(command)
    return time.perf_counter() - start


def lockstep_episode(
    raw, env: TextWorldEnv, commands: tuple[str, ...], raw_times: list[float], our_times: list[float]
) -> None:
    raw.reset()
    env.reset()
    for command in commands:
        raw_times.append(timed(raw.step, command))
        our_times.append(timed(env.step, command))


def bench(spec: str, episodes: int) -> dict[str, float | str | int]:
    env = make(spec, max_steps=None)
    assert isinstance(env, TextWorldEnv)
    commands = env.reset().oracle.walkthrough
    raw = textworld.start(str(env.path), request_infos=requested_infos())
    raw_times: list[float] = []
    our_times: list[float] = []
    lockstep_episode(raw, env, commands, [], [])  # warm-up
    for _ in range(episodes):
        lockstep_episode(raw, env, commands, raw_times, our_times)
    raw.close()
    env.close()
    row: dict[str, float | str | int] = {"game": spec, "steps": len(raw_times)}
    for name, values in (("raw", raw_times), ("ours", our_times)):
        row[f"{name}_p50"] = 1000 * statistics.median(values)
        row[f"{name}_p95"] = 1000 * percentile(values, 0.95)
    row["ratio_p50"] = float(row["ours_p50"]) / float(row["raw_p50"])
    row["ratio_p95"] = float(row["ours_p95"]) / float(row["raw_p95"])
    return row


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--episodes", type=int, default=8)
    parser.add_argument("--games", nargs="+", default=["arigraph:cook", "cooking:2"])
    args = parser.parse_args()
    rows = [bench(spec, args.episodes) for spec in args.games]
    header = (
        f"{'game':<16} {'steps':>5} {'raw p50':>8} {'raw p95':>8} {'ours p50':>9} {'ours p95':>9} "
        f"{'x p50':>6} {'x p95':>6}"
    )
    print(header)
    print("-" * len(header))
    for r in rows:
        print(
            f"{r['game']:<16} {r['steps']:>5} {r['raw_p50']:>6.2f}ms {r['raw_p95']:>6.2f}ms "
            f"{r['ours_p50']:>7.2f}ms {r['ours_p95']:>7.2f}ms {r['ratio_p50']:>6.2f} {r['ratio_p95']:>6.2f}"
        )


if __name__ == "__main__":
    main()
