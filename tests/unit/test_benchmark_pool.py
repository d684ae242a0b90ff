"""Issue 62's generalization pool (benchmarks/pool.py) is what its seed draws, and shares no game with its dev set or
with any earlier benchmark's or suite's games."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

from ariadnegraph.evals.suites import SCIENCEWORLD_TEST_DRAWS

sys.path.insert(0, str(Path(__file__).parents[2] / "benchmarks"))  # the scripts import their siblings by name
from pool import (  # noqa: E402
    DEV_POOL,
    FIFTH_POOL,
    FIFTH_POOL_SEED,
    FOURTH_POOL,
    FOURTH_POOL_SEED,
    POOL,
    SCIENCEWORLD_TEST_SIZES,
    SECOND_POOL,
    THIRD_POOL,
    THIRD_POOL_SEED,
    USED_VARIATIONS,
    draw_pool,
    draw_second_pool,
)
from real_model import DEV, DEV_36, HELD_OUT, HELD_OUT_36  # noqa: E402


def test_the_pool_is_what_its_seed_draws():
    assert draw_pool() == POOL
    assert len(POOL) == len(set(POOL)) == 25


def test_no_pool_game_was_played_by_an_earlier_benchmark_or_is_a_dev_game():
    earlier = {*HELD_OUT, *DEV, *(g for _, games in (*HELD_OUT_36.values(), *DEV_36.values()) for g in games)}
    assert not set(POOL) & earlier
    assert not set(POOL) & set(DEV_POOL)
    names = {name: task for task, (name, _) in SCIENCEWORLD_TEST_SIZES.items()}
    for game in POOL:
        if game.startswith("scienceworld:"):
            name, _, variation = game.partition(":")[2].partition("#")
            task = names[name]
            assert int(variation) not in USED_VARIATIONS[task]
            assert set(SCIENCEWORLD_TEST_DRAWS[task]) <= USED_VARIATIONS[task]  # the suite's draws are counted as used
        if game.startswith("twx:"):
            assert not game.endswith("@0")  # TALES's index


@pytest.mark.parametrize(
    ("pool", "drawn", "before", "size"),
    [
        (SECOND_POOL, draw_second_pool(), set(), 18),
        (THIRD_POOL, draw_second_pool(THIRD_POOL_SEED, SECOND_POOL), SECOND_POOL, 18),
        # identify-life-stages (topic 8) has no test variation the earlier draws left: its topic is left out
        (FOURTH_POOL, draw_second_pool(FOURTH_POOL_SEED, SECOND_POOL + THIRD_POOL), SECOND_POOL + THIRD_POOL, 17),
        (
            FIFTH_POOL,
            draw_second_pool(FIFTH_POOL_SEED, SECOND_POOL + THIRD_POOL + FOURTH_POOL),
            SECOND_POOL + THIRD_POOL + FOURTH_POOL,
            17,
        ),
    ],
)
def test_the_later_pools_are_what_their_seeds_draw_and_share_no_game_with_any_earlier_set(pool, drawn, before, size):
    assert drawn == pool
    assert len(pool) == len(set(pool)) == size
    earlier = {*HELD_OUT, *DEV, *(g for _, games in (*HELD_OUT_36.values(), *DEV_36.values()) for g in games)}
    assert not set(pool) & (earlier | set(POOL) | set(DEV_POOL) | set(before))
    names = {name: task for task, (name, _) in SCIENCEWORLD_TEST_SIZES.items()}
    for game in pool:
        if game.startswith("scienceworld:"):
            name, _, variation = game.partition(":")[2].partition("#")
            assert int(variation) not in USED_VARIATIONS[names[name]]
        else:
            assert not game.endswith("@0")  # TALES's index
            assert "/" not in game  # the dev split
