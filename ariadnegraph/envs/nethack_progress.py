"""BALROG's NetHack progression: how far a game got, 0-100 %, from the deepest dungeon level and the
highest experience level reached (each milestone's value is the share of human games that ended
before it, estimated by BALROG from NetHack data; the larger of the two counts).

The milestone values are data from BALROG (balrog-ai/BALROG, balrog/environments/nle/achievements.json
at commit af7d1f1), rounded to six decimals; the formula follows its progress.py.
"""

from __future__ import annotations

# Dlvl:1 .. Dlvl:50
DUNGEON_LEVEL = (
    0.0,
    0.015392,
    0.01754,
    0.021221,
    0.026482,
    0.035429,
    0.048461,
    0.069581,
    0.097709,
    0.125586,
    0.161268,
    0.206129,
    0.256604,
    0.292472,
    0.308812,
    0.324907,
    0.340079,
    0.352646,
    0.365488,
    0.378957,
    0.392937,
    0.408323,
    0.425836,
    0.445181,
    0.466376,
    0.506761,
    0.554357,
    0.601565,
    0.646505,
    0.691311,
    0.710109,
    0.717646,
    0.723212,
    0.728441,
    0.732776,
    0.736853,
    0.742146,
    0.747132,
    0.753731,
    0.76104,
    0.767408,
    0.772534,
    0.777163,
    0.781257,
    0.785899,
    0.789026,
    0.792972,
    0.796741,
    0.801847,
    0.806796,
)
# Xp:1 .. Xp:30
EXPERIENCE_LEVEL = (
    0.0,
    0.018478,
    0.020812,
    0.02416,
    0.029109,
    0.036888,
    0.050758,
    0.074536,
    0.11705,
    0.1791,
    0.254804,
    0.332649,
    0.414426,
    0.494039,
    0.577882,
    0.626122,
    0.656282,
    0.681022,
    0.701533,
    0.717449,
    0.728698,
    0.7371,
    0.744345,
    0.751345,
    0.758554,
    0.764215,
    0.770338,
    0.775981,
    0.778335,
    0.780456,
)


def _milestone(table: tuple[float, ...], level: int) -> float:
    return table[level - 1] if 1 <= level <= len(table) else 0.0


def progression(depth: int, experience_level: int) -> float:
    """Progression in percent for a game that reached ``depth`` and ``experience_level`` (both 1-based)."""
    return 100.0 * max(_milestone(DUNGEON_LEVEL, depth), _milestone(EXPERIENCE_LEVEL, experience_level))
