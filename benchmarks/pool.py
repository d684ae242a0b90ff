"""Issue 62's generalization pool: games no earlier benchmark here played, frozen in a commit before the first change
to how the agent decides. A pool game's first play is its figure: a failure is studied on a dev game of the same kind
(another index, seed or variation), never patched on the pool game, and a pool game never moves to dev.

Drawn by ``random.Random(POOL_SEED)`` in the order below and written out (``POOL``), so reading it starts no JVM;
``tests/unit/test_benchmark_pool.py`` draws it again.
- TextWorldExpress: two test indices of 1-999 for each of four settings whose goal needs knowledge (index 0 of every
  setting is TALES's, played before).
- ScienceWorld: one task of each of its ten topics and one test variation of it, none an earlier suite or benchmark
  drew (``USED_VARIATIONS``).
- TextWorld quests whose goal names only their last action (``custom:1-3``, tw-make custom --only-last-action) and the
  STMA cooking levels 1-4, each at a seed of its own no earlier benchmark used.

Each later round of changes is judged on a pool of its own, drawn and committed before it (``SECOND_POOL``,
``THIRD_POOL``, ``FOURTH_POOL``, ``FIFTH_POOL``): TWX and ScienceWorld games no earlier pool, dev set, suite or
benchmark played. A ScienceWorld topic whose test variations the earlier draws used up is left out of a later pool.
"""

from __future__ import annotations

import random

POOL_SEED = 62
POOL_STEPS = 50
# The second pool: games neither pool, dev set nor earlier benchmark played, drawn before the second round of changes
# (after the first pool's plays), of the kinds where the model decides: TWX's four settings and ScienceWorld's topics.
# The TextWorld quests and cooking levels are left out: the controller wins them with or without a model, and
# ``--model none`` on the first pool shows whether a change moved what it plays there.
SECOND_POOL_SEED = 6202
THIRD_POOL_SEED = 6203  # the third, of the same kinds, drawn before the third round
FOURTH_POOL_SEED = 6204  # the fourth, before the fourth (17 games: identify-life-stages has no test variation left)
FIFTH_POOL_SEED = 6205  # the fifth, before the fifth (17 games, for the same reason)
TWX_SETTINGS = ("textworldcommonsense", "arithmetic", "sorting", "peckingorder")
TWX_DRAWS = 2

# Each ScienceWorld task's test variations (the JVM's count; evals/suites.py lists the same numbers by task).
SCIENCEWORLD_TEST_SIZES: dict[str, tuple[str, int]] = {
    "1-1": ("boil", 9),
    "1-2": ("melt", 9),
    "1-3": ("freeze", 9),
    "1-4": ("change-the-state-of-matter-of", 9),
    "2-1": ("use-thermometer", 135),
    "2-2": ("measure-melting-point-known-substance", 109),
    "2-3": ("measure-melting-point-unknown-substance", 75),
    "3-1": ("power-component", 5),
    "3-2": ("power-component-renewable-vs-nonrenewable-energy", 5),
    "3-3": ("test-conductivity", 225),
    "3-4": ("test-conductivity-of-unknown-substances", 150),
    "4-1": ("find-living-thing", 75),
    "4-2": ("find-non-living-thing", 75),
    "4-3": ("find-plant", 75),
    "4-4": ("find-animal", 75),
    "5-1": ("grow-plant", 33),
    "5-2": ("grow-fruit", 33),
    "6-1": ("chemistry-mix", 8),
    "6-2": ("chemistry-mix-paint-secondary-color", 9),
    "6-3": ("chemistry-mix-paint-tertiary-color", 9),
    "7-1": ("lifespan-longest-lived", 32),
    "7-2": ("lifespan-shortest-lived", 32),
    "7-3": ("lifespan-longest-lived-then-shortest-lived", 32),
    "8-1": ("identify-life-stages-1", 5),
    "8-2": ("identify-life-stages-2", 4),
    "9-1": ("inclined-plane-determine-angle", 42),
    "9-2": ("inclined-plane-friction-named-surfaces", 348),
    "9-3": ("inclined-plane-friction-unnamed-surfaces", 42),
    "10-1": ("mendelian-genetics-known-plant", 30),
    "10-2": ("mendelian-genetics-unknown-plant", 120),
}
# Test variations an earlier suite or benchmark played: the scienceworld suite's draws (evals/suites.py) and issue
# 36's held-out and dev games (benchmarks/real_model.py), which include every variation a flaw moved to dev.
USED_VARIATIONS: dict[str, frozenset[int]] = {
    "1-1": frozenset({1, 6, 7}),
    "1-2": frozenset(range(9)),
    "1-3": frozenset({0, 1, 7}),
    "1-4": frozenset({6, 7, 8}),
    "2-1": frozenset({50, 67, 131}),
    "2-2": frozenset({69, 73, 91}),
    "2-3": frozenset({0, 10, 16, 31, 36, 49, 64}),
    "3-1": frozenset({0, 1, 2}),
    "3-2": frozenset({0, 3, 4}),
    "3-3": frozenset({20, 68, 93, 110, 143, 165, 167, 186, 203}),
    "3-4": frozenset({20, 78, 96}),
    "4-1": frozenset({9, 27, 45, 50, 52, 62, 69, 73}),
    "4-2": frozenset({13, 56, 69}),
    "4-3": frozenset({16, 71, 73}),
    "4-4": frozenset({2, 27, 33}),
    "5-1": frozenset({10, 11, 15}),
    "5-2": frozenset({5, 20, 21}),
    "6-1": frozenset({0, 3, 5}),
    "6-2": frozenset({1, 2, 3, 6, 7, 8}),
    "6-3": frozenset({0, 6, 8}),
    "7-1": frozenset({4, 8, 17, 23, 25, 27, 30}),
    "7-2": frozenset({0, 13, 14}),
    "7-3": frozenset({15, 25, 28}),
    "8-1": frozenset({1, 2, 3}),
    "8-2": frozenset({0, 1, 3}),
    "9-1": frozenset({34, 35, 38}),
    "9-2": frozenset({127, 225, 323}),
    "9-3": frozenset({10, 17, 30}),
    "10-1": frozenset({5, 9, 26}),
    "10-2": frozenset({91, 110, 119}),
}


def draw_pool() -> tuple[str, ...]:
    """The pool as ``benchmarks/real_model.py`` names games (``SPEC@SEED``, ``SPEC#VARIATION``)."""
    rng = random.Random(POOL_SEED)
    games = [
        f"twx:{setting}@{index}" for setting in TWX_SETTINGS for index in sorted(rng.sample(range(1, 1000), TWX_DRAWS))
    ]
    for topic in range(1, 11):
        task = rng.choice(sorted(t for t in SCIENCEWORLD_TEST_SIZES if t.split("-")[0] == str(topic)))
        name, size = SCIENCEWORLD_TEST_SIZES[task]
        variation = rng.choice([v for v in range(size) if v not in USED_VARIATIONS[task]])
        games.append(f"scienceworld:{name}#{variation}")
    games += [f"custom:{level}@62{level}01" for level in (1, 2, 3)]
    games += [f"cooking:{level}@62{level}01" for level in (1, 2, 3, 4)]
    return tuple(games)


def draw_second_pool(seed: int = SECOND_POOL_SEED, before: tuple[str, ...] = ()) -> tuple[str, ...]:
    """The second pool (``SECOND_POOL_SEED``; or another ``seed``, none of the games ``before`` either): TWX and
    ScienceWorld games as :func:`draw_pool` draws them, none of the first pool's, nor a dev game, nor a variation an
    earlier suite or benchmark played."""
    rng = random.Random(seed)
    earlier = (*POOL, *DEV_POOL, *before)
    taken = {int(game.rpartition("@")[2]) for game in earlier if game.startswith("twx:") and "/" not in game}
    games = [
        f"twx:{setting}@{index}"
        for setting in TWX_SETTINGS
        for index in sorted(rng.sample([i for i in range(1, 1000) if i not in taken], TWX_DRAWS))
    ]
    first = {game.partition(":")[2] for game in (*POOL, *before) if game.startswith("scienceworld:")}
    for topic in range(1, 11):
        left = {
            task: [v for v in range(size) if v not in USED_VARIATIONS[task] and f"{name}#{v}" not in first]
            for task, (name, size) in SCIENCEWORLD_TEST_SIZES.items()
            if task.split("-")[0] == str(topic)
        }
        task = rng.choice(sorted(left))
        if not left[task]:  # its test variations the earlier pools used up: another task of the topic, if one has any
            if not (untouched := sorted(t for t, variations in left.items() if variations)):
                continue
            task = rng.choice(untouched)
        games.append(f"scienceworld:{SCIENCEWORLD_TEST_SIZES[task][0]}#{rng.choice(left[task])}")
    return tuple(games)


# draw_pool(), written out on 2026-12-07 before the first change of issue 62 to how the agent decides.
POOL: tuple[str, ...] = (
    "twx:textworldcommonsense@590",
    "twx:textworldcommonsense@951",
    "twx:arithmetic@67",
    "twx:arithmetic@178",
    "twx:sorting@835",
    "twx:sorting@994",
    "twx:peckingorder@244",
    "twx:peckingorder@914",
    "scienceworld:change-the-state-of-matter-of#2",
    "scienceworld:measure-melting-point-unknown-substance#51",
    "scienceworld:power-component-renewable-vs-nonrenewable-energy#1",
    "scienceworld:find-non-living-thing#0",
    "scienceworld:grow-fruit#23",
    "scienceworld:chemistry-mix#1",
    "scienceworld:lifespan-longest-lived#18",
    "scienceworld:identify-life-stages-2#2",
    "scienceworld:inclined-plane-friction-named-surfaces#304",
    "scienceworld:mendelian-genetics-known-plant#24",
    "custom:1@62101",
    "custom:2@62201",
    "custom:3@62301",
    "cooking:1@62101",
    "cooking:2@62201",
    "cooking:3@62301",
    "cooking:4@62401",
)
# Where design work for issue 62 is tried: the same kinds of game, never the pool's. TWX's dev split, the pool's
# ScienceWorld tasks at dev variations, and other seeds of the custom quests and cooking levels.
DEV_POOL: tuple[str, ...] = (
    *(f"twx:{setting}@{index}/dev" for setting in TWX_SETTINGS for index in (1, 2)),
    *(f"{game.partition('#')[0]}#0/dev" for game in POOL if game.startswith("scienceworld:")),
    *(f"custom:{level}@62{level}02" for level in (1, 2, 3)),
    *(f"cooking:{level}@62{level}02" for level in (1, 2, 3, 4)),
)
# draw_second_pool(), written out on 2026-12-07 before the second round of issue 62's changes to how the agent decides
# (after the first pool's plays at db68b44).
SECOND_POOL: tuple[str, ...] = (
    "twx:textworldcommonsense@593",
    "twx:textworldcommonsense@940",
    "twx:arithmetic@164",
    "twx:arithmetic@187",
    "twx:sorting@93",
    "twx:sorting@410",
    "twx:peckingorder@263",
    "twx:peckingorder@578",
    "scienceworld:boil#0",
    "scienceworld:use-thermometer#126",
    "scienceworld:power-component#4",
    "scienceworld:find-living-thing#4",
    "scienceworld:grow-fruit#2",
    "scienceworld:chemistry-mix#7",
    "scienceworld:lifespan-longest-lived-then-shortest-lived#23",
    "scienceworld:identify-life-stages-1#0",
    "scienceworld:inclined-plane-friction-unnamed-surfaces#15",
    "scienceworld:mendelian-genetics-unknown-plant#35",
)
# draw_second_pool(THIRD_POOL_SEED, SECOND_POOL), written out on 2026-12-07 after the second pool's changes landed and
# before the third round of changes to how the agent decides.
THIRD_POOL: tuple[str, ...] = (
    "twx:textworldcommonsense@262",
    "twx:textworldcommonsense@846",
    "twx:arithmetic@350",
    "twx:arithmetic@923",
    "twx:sorting@127",
    "twx:sorting@156",
    "twx:peckingorder@555",
    "twx:peckingorder@623",
    "scienceworld:change-the-state-of-matter-of#5",
    "scienceworld:use-thermometer#81",
    "scienceworld:power-component-renewable-vs-nonrenewable-energy#2",
    "scienceworld:find-living-thing#68",
    "scienceworld:grow-fruit#4",
    "scienceworld:chemistry-mix-paint-secondary-color#0",
    "scienceworld:lifespan-shortest-lived#22",
    "scienceworld:identify-life-stages-1#4",
    "scienceworld:inclined-plane-determine-angle#25",
    "scienceworld:mendelian-genetics-known-plant#6",
)
# draw_second_pool(FOURTH_POOL_SEED, SECOND_POOL + THIRD_POOL), written out on 2026-12-07 while the third pool was
# played at the third round's design, before the fourth round of changes to how the agent decides.
FOURTH_POOL: tuple[str, ...] = (
    "twx:textworldcommonsense@82",
    "twx:textworldcommonsense@235",
    "twx:arithmetic@371",
    "twx:arithmetic@601",
    "twx:sorting@768",
    "twx:sorting@982",
    "twx:peckingorder@54",
    "twx:peckingorder@88",
    "scienceworld:boil#8",
    "scienceworld:use-thermometer#64",
    "scienceworld:power-component#3",
    "scienceworld:find-living-thing#18",
    "scienceworld:grow-fruit#7",
    "scienceworld:chemistry-mix-paint-secondary-color#4",
    "scienceworld:lifespan-longest-lived#31",
    "scienceworld:inclined-plane-friction-unnamed-surfaces#40",
    "scienceworld:mendelian-genetics-unknown-plant#42",
)
# draw_second_pool(FIFTH_POOL_SEED, SECOND_POOL + THIRD_POOL + FOURTH_POOL), written out on 2026-12-07 while the
# fourth pool was played at the fourth round's design, before the fifth round of changes to how the agent decides.
FIFTH_POOL: tuple[str, ...] = (
    "twx:textworldcommonsense@390",
    "twx:textworldcommonsense@699",
    "twx:arithmetic@195",
    "twx:arithmetic@817",
    "twx:sorting@635",
    "twx:sorting@702",
    "twx:peckingorder@278",
    "twx:peckingorder@694",
    "scienceworld:change-the-state-of-matter-of#1",
    "scienceworld:measure-melting-point-unknown-substance#25",
    "scienceworld:test-conductivity-of-unknown-substances#107",
    "scienceworld:find-living-thing#1",
    "scienceworld:grow-plant#21",
    "scienceworld:chemistry-mix-paint-tertiary-color#7",
    "scienceworld:lifespan-shortest-lived#12",
    "scienceworld:inclined-plane-friction-unnamed-surfaces#27",
    "scienceworld:mendelian-genetics-unknown-plant#15",
)
