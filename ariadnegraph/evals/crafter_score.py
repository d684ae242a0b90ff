"""Crafter's two figures, as the Crafter paper (Hafner, 2021) defines them and AgentKit's table 1 reports.

- **Score**: over a set of episodes, s_i is the success rate (in percent) of achievement i, the share of
  episodes that unlocked it at least once; S = exp(mean_i ln(1 + s_i)) - 1, the mean over all 22
  achievements. It rewards unlocking many achievements now and then over a few every time.
- **Reward** of one episode: +1 for each achievement the first time it is unlocked in the episode, and
  +0.1 for each health point gained, -0.1 for each lost. The health terms telescope, so the episode's
  reward is (achievements unlocked) + (last health - first health) / 10. The env records the crafter
  package's own reward (``oracle.extra['reward']``); :func:`episode_reward` is the same sum from the
  achievements and health, for a record that lacks it.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Sequence

HEALTH_REWARD = 0.1  # per health point gained or lost
START_HEALTH = 9  # the player's health when an episode starts (crafter data.yaml: health initial 9)


def achievement_names() -> list[str]:
    """Crafter's 22 achievements, from the installed package."""
    from ..envs.crafter_manual import crafter_data

    return list(crafter_data()["achievements"])


def success_rates(episodes: Sequence[Iterable[str]], achievements: Sequence[str]) -> dict[str, float]:
    """Per achievement: the percent of episodes that unlocked it."""
    unlocked = [set(e) for e in episodes]
    if not unlocked:
        raise ValueError("Crafter's score needs at least one episode")
    unknown = sorted(set().union(*unlocked) - set(achievements))
    if unknown:
        raise ValueError(f"not Crafter achievements: {', '.join(unknown)}")
    return {a: 100.0 * sum(a in e for e in unlocked) / len(unlocked) for a in achievements}


def crafter_score(episodes: Sequence[Iterable[str]], achievements: Sequence[str] | None = None) -> float:
    """The Crafter score in percent (0-100) of a set of episodes, each given as the achievements it unlocked."""
    names = list(achievements) if achievements is not None else achievement_names()
    rates = success_rates(episodes, names)
    return math.exp(sum(math.log(1.0 + s) for s in rates.values()) / len(rates)) - 1.0


def episode_reward(unlocked: Iterable[str], health: Sequence[float], start_health: float = START_HEALTH) -> float:
    """One episode's reward from what it unlocked and its health after each step (the health before the
    first step is ``start_health``)."""
    last = health[-1] if health else start_health
    return float(len(set(unlocked))) + HEALTH_REWARD * (last - start_health)
