"""Model-free baseline episodes: a seeded random policy over admissible actions.

It is the floor every agent table should beat, and the foundation's end-to-end check: environment,
run directory and memory working together on one episode. The memory records each observation as an
episodic vertex plus the facts the environment itself reveals to the agent (location, inventory).
"""

from __future__ import annotations

import random
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ..config import run_dir
from ..envs import Observation, make
from ..memory import PLAYER, Triplet, WorldMemory
from ..runs import RunDir, new_run_id

INVENTORY = "inventory"


class RandomPolicy:
    """Uniform choice among the admissible actions, reproducible from its seed."""

    name = "random"

    def __init__(self, seed: int | None = 0) -> None:
        self._rng = random.Random(seed)

    def __call__(self, observation: Observation) -> str:
        actions = [a for a in observation.admissible_actions if a not in ("look", "inventory")]
        if not actions:
            actions = list(observation.admissible_actions) or ["look"]
        return self._rng.choice(actions)


def observed_triplets(observation: Observation) -> list[Triplet]:
    """Facts an observation states outright through its parsed fields (never the oracle)."""
    triplets: list[Triplet] = []
    if observation.location:
        triplets.append((PLAYER, "in", observation.location))
    for item in observation.inventory or ():
        triplets.append((item, "in", INVENTORY))
    return triplets


@dataclass(frozen=True)
class EpisodeSummary:
    run_id: str
    env: str
    policy: str
    score: float
    max_score: float
    won: bool
    steps: int
    facts: int
    seconds: float

    def to_dict(self) -> dict[str, Any]:
        return dict(self.__dict__)


def play_baseline(
    env_spec: str,
    *,
    seed: int | None = None,
    max_steps: int = 50,
    run_root: str | Path | None = None,  # default: the run directory setting (config.run_dir)
    run_id: str | None = None,
    env_options: dict[str, Any] | None = None,
    on_step: Callable[[int, str, Observation, WorldMemory], None] | None = None,
) -> EpisodeSummary:
    """Play one episode with :class:`RandomPolicy`, persisting every step as it happens."""
    if max_steps < 1:
        raise ValueError(f"max steps must be at least 1, got {max_steps}")
    started = time.perf_counter()
    options = dict(env_options or {})
    if seed is not None:
        options.setdefault("seed", seed)
    env = make(env_spec, **options)  # fails before anything is written when the spec is bad
    run_id = run_id or new_run_id(env_spec)
    policy = RandomPolicy(seed)
    run = RunDir.create(run_dir(run_root), run_id, {"run_id": run_id, "env": env_spec, "seed": seed, "policy": policy.name, "max_steps": max_steps})
    try:
        memory = WorldMemory(run.memory_path)
        observation = env.reset()
        memory.observe(0, observation.text, observed_triplets(observation))
        step = 0
        while step < max_steps and not observation.done:
            step += 1
            action = policy(observation.for_agent())
            observation = env.step(action)
            memory.observe(step, observation.text, observed_triplets(observation), action=action)
            run.append_step(
                {"step": step, "action": action, "observation": observation.text, "score": observation.score,
                 "max_score": observation.max_score, "done": observation.done, "won": observation.won}
            )
            if on_step:
                on_step(step, action, observation, memory)
        summary = EpisodeSummary(run_id, env_spec, policy.name, observation.score, observation.max_score,
                                 observation.won, step, len(memory), round(time.perf_counter() - started, 3))
        run.write_meta({**run.meta(), "result": summary.to_dict()})
        memory.close()
        return summary
    finally:
        env.close()
