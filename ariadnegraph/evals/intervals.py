"""95% intervals for a table cell: Wilson's score interval for a success rate, a percentile bootstrap for a mean
score (seeded, so a table is the same each time it is written). A cell of one episode has no interval."""

from __future__ import annotations

import math
import random
import statistics
from collections.abc import Sequence

Z95 = 1.959964  # the standard normal's 97.5th percentile
RESAMPLES = 2000
SEED = 0


def wilson(successes: int, n: int, z: float = Z95) -> tuple[float, float]:
    """Wilson's 95% interval for ``successes`` of ``n`` (it stays inside [0, 1] and is not empty at 0 or n)."""
    if n <= 0:
        raise ValueError("an interval needs at least one episode")
    p = successes / n
    centre = (p + z * z / (2 * n)) / (1 + z * z / n)
    half = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / (1 + z * z / n)
    return max(0.0, centre - half), min(1.0, centre + half)


def bootstrap_mean(values: Sequence[float], resamples: int = RESAMPLES, seed: int = SEED) -> tuple[float, float]:
    """The 2.5th and 97.5th percentiles of the mean over ``resamples`` resamples of ``values`` with replacement."""
    if not values:
        raise ValueError("an interval needs at least one episode")
    draw = random.Random(seed)
    means = sorted(statistics.fmean(draw.choices(values, k=len(values))) for _ in range(resamples))
    return means[int(0.025 * resamples)], means[min(resamples - 1, int(0.975 * resamples))]
