"""The evaluation suites: each reproduces one paper's protocol (games, step limits, attempts) and names
the table layout its results are printed in. This module is the one place those protocols live.

A suite builds a list of :class:`Game` (what to play) grouped the way the paper's table groups them
(a level, a game, a ScienceWorld task); the runner crosses it with presets and attempts.
"""

from __future__ import annotations

import random
from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace

STMA_LEVELS = (1, 2, 3, 4)
STMA_GAMES_PER_LEVEL = 8  # "eight randomly generated scenarios" per level (STMA section 5.2)
STMA_MAX_STEPS = 50  # "All tasks enforce a 50-turn limit" (STMA appendix A.1)

ARIGRAPH_GAMES = ("hunt", "hunt_hard", "hunt_hardest", "cook", "cook_hard", "cook_hardest", "clean")
# Treasure Hunt Hardest (AriGraph §4.1, appendix F: 36 rooms, 7 keys, distractor items in every room) is not among the
# authors' published game files. Played instead: TextWorld's own treasure hunter at its hardest mode (tw-make
# tw-treasure_hunter, levels 21-30: 20 rooms, locked doors and containers, 20 distractor containers and supporters),
# generated with a fixed seed and cached like the other generated games. Level 30 (quest of 20 commands); seed 2, as
# tw-make found no such quest for seed 1 within 10 minutes. It differs: 20 rooms, not 36; 3 keys (keycards) lying
# about, not 7 in a chain of lockers with notes; the objective text spells out the winning path; the goal is one
# object to take (taking the wrong one loses); it scores only the win (max score 1). Tables label it as generated.
ARIGRAPH_GENERATED: dict[str, tuple[str, int]] = {"hunt_hardest": ("treasure:30", 2)}
ARIGRAPH_GENERATED_STEPS = 150  # the manifest's step budget of the other non-cooking games
ARIGRAPH_ATTEMPTS = 5  # "Every LLM based agent had five attempts to solve each game" (AriGraph 5.1)
ARIGRAPH_TOP = 3  # "We estimate performance as average of three best runs"

# AriGraph appendix F: four levels, "3 randomly generated environments for each task difficulty".
# Only two cook_3_6_* files exist; cook_rl_baseline has the same settings (3 ingredients, 6 rooms).
GATA_LEVELS: dict[int, tuple[str, ...]] = {
    1: ("cook_1_1_cut", "cook_1_1_cut_1", "cook_1_1_cut_2"),  # 1 ingredient, 1 room, cutting
    2: ("cook_1_1_full", "cook_1_1_full_1", "cook_1_1_full_2"),  # 1 ingredient, 1 room, cutting + cooking
    3: ("cook_1_9", "cook_1_9_1", "cook_1_9_2"),  # 1 ingredient, 9 rooms, no processing
    4: ("cook_3_6_1", "cook_3_6_2", "cook_rl_baseline"),  # 3 ingredients, 6 rooms, cutting + cooking
}

SCIENCEWORLD_VARIATIONS = 3  # "three randomly sampled test variations" (DAVIS appendix B)
# Those three per task, as indices into its test list: sorted(random.Random(f"davis:{name}").sample(range(n), 3)),
# n the size of the task's test list (the JVM knows it: tests/integration/test_scienceworld_env.py draws them again).
# Written out so that planning a suite starts no JVM.
SCIENCEWORLD_TEST_DRAWS: dict[str, tuple[int, ...]] = {
    "1-1": (1, 6, 7),  # boil: 9 test variations
    "1-2": (0, 6, 8),  # melt: 9
    "1-3": (0, 1, 7),  # freeze: 9
    "1-4": (6, 7, 8),  # change-the-state-of-matter-of: 9
    "2-1": (50, 67, 131),  # use-thermometer: 135
    "2-2": (69, 73, 91),  # measure-melting-point-known-substance: 109
    "2-3": (16, 31, 49),  # measure-melting-point-unknown-substance: 75
    "3-1": (0, 1, 2),  # power-component: 5
    "3-2": (0, 3, 4),  # power-component-renewable-vs-nonrenewable-energy: 5
    "3-3": (20, 165, 203),  # test-conductivity: 225
    "3-4": (20, 78, 96),  # test-conductivity-of-unknown-substances: 150
    "4-1": (27, 45, 50),  # find-living-thing: 75
    "4-2": (13, 56, 69),  # find-non-living-thing: 75
    "4-3": (16, 71, 73),  # find-plant: 75
    "4-4": (2, 27, 33),  # find-animal: 75
    "5-1": (10, 11, 15),  # grow-plant: 33
    "5-2": (5, 20, 21),  # grow-fruit: 33
    "6-1": (0, 3, 5),  # chemistry-mix: 8
    "6-2": (3, 6, 8),  # chemistry-mix-paint-secondary-color: 9
    "6-3": (0, 6, 8),  # chemistry-mix-paint-tertiary-color: 9
    "7-1": (23, 25, 30),  # lifespan-longest-lived: 32
    "7-2": (0, 13, 14),  # lifespan-shortest-lived: 32
    "7-3": (15, 25, 28),  # lifespan-longest-lived-then-shortest-lived: 32
    "8-1": (1, 2, 3),  # identify-life-stages-1: 5
    "8-2": (0, 1, 3),  # identify-life-stages-2: 4
    "9-1": (34, 35, 38),  # inclined-plane-determine-angle: 42
    "9-2": (127, 225, 323),  # inclined-plane-friction-named-surfaces: 348
    "9-3": (10, 17, 30),  # inclined-plane-friction-unnamed-surfaces: 42
    "10-1": (5, 9, 26),  # mendelian-genetics-known-plant: 30
    "10-2": (91, 110, 119),  # mendelian-genetics-unknown-plant: 120
}
# DAVIS's ablations (section 4.3, table 4) play six tasks: 1-2, 2-3, 6-1, 3-3, 7-1 and 4-1 by its numbering, whose
# "6-1" (mixing a secondary paint colour) is ScienceWorld's 6-2:
# `ariadne eval scienceworld --levels 1-2,2-3,6-2,3-3,7-1,4-1` plays them.
DAVIS_ABLATION_TASKS = ("1-2", "2-3", "6-2", "3-3", "7-1", "4-1")


def scienceworld_draw(name: str, test_variations: int, k: int = SCIENCEWORLD_VARIATIONS) -> tuple[int, ...]:
    """The ``k`` test variations DAVIS's protocol plays of a task with that many: drawn at random, once, by name."""
    return tuple(sorted(random.Random(f"davis:{name}").sample(range(test_variations), k)))


SCIENCEWORLD_MAX_STEPS = 80  # "a maximum of 80 steps per task" (DAVIS appendix B)
# DAVIS table 6: the nine subjects and their tasks, in table 7's order.
SCIENCEWORLD_SUBJECTS: dict[str, tuple[str, ...]] = {
    "Matter": ("1-1", "1-2", "1-3", "1-4"),
    "Thermodynamics": ("2-1", "2-2", "2-3"),
    "Electricity": ("3-1", "3-2", "3-3", "3-4"),
    "Biology": ("4-1", "4-2", "4-3", "4-4"),
    "Botany": ("5-1", "5-2"),
    "Chemistry": ("6-1", "6-2", "6-3"),
    "Lifespan and Life Stages": ("7-1", "7-2", "7-3", "8-1", "8-2"),
    "Physics": ("9-1", "9-2", "9-3"),
    "Genetics": ("10-1", "10-2"),
}


# TALES (Cui et al. 2025), TWX column: its 16 TextWorldExpress settings (envs.twx_env.TWX_SETTINGS), each
# played once on the test split's first seed ("--game-seed" unset: index 0) for "--nb-steps" 100; scored by
# the best normalised score reached ("highscore / max_score" in its benchmark.py).
TALES_TWX_SEEDS = 1  # episodes per setting (test-split seed indices 0..N-1)
TALES_MAX_STEPS = 100


# BALROG-style progression suites. NetHack: the NetHack Challenge (any role), AriGraph's three runs
# (section 5.2); the step budget is ours (BALROG plays until the game ends). Crafter: AgentKit's three
# trials (table 1) of Crafter's full 10,000-step episode.
NETHACK_SEEDS = 3
NETHACK_MAX_STEPS = 500
CRAFTER_SEEDS = 3
CRAFTER_MAX_STEPS = 10_000

# EMemBench's play protocol (§3.3 "Reproducibility"; app. A.6): episodes capped at 200 steps; text games on seed 42,
# Crafter on seeds 1, 42, 43, 100, 123; the episodes are then questioned (`ariadne memqa --play emembench`). No
# Jericho game is played (the paper's 15): TextWorld's three generated families stand in, each at a hard level that
# tw-make builds on seed 42 (the seed picks the generated world): parser games compiled to the Z-machine and played
# through Jericho's interpreter as Jericho's are, with rooms, objects, containers, doors and a score to question.
EMEMBENCH_MAX_STEPS = 200
EMEMBENCH_TEXT_SEED = 42
EMEMBENCH_TEXT_GAMES: dict[str, str] = {
    "cooking": "cooking:4",  # STMA's hardest cooking level: 12 rooms, a recipe to read, cut, cook and eat
    "treasure": "treasure:30",  # treasure hunter, hardest mode: 20 rooms, locked doors and keys, distractors
    "coin": "coin:50",  # coin collector: a 50-room maze, the coin at its end
}
EMEMBENCH_CRAFTER_SEEDS = (1, 42, 43, 100, 123)


class SuiteError(ValueError):
    """A suite name or a subset selection that does not exist."""


@dataclass(frozen=True)
class Game:
    """One game to play: ``group`` is the paper table's column or row it counts towards."""

    env: str
    group: str
    max_steps: int
    seed: int | None = None
    variation: int | None = None
    label: str = ""


@dataclass(frozen=True)
class Suite:
    name: str
    description: str
    paper: str
    layout: str  # which table layout layouts.py prints: stma, arigraph, gata, scienceworld
    groups: Callable[[], dict[str, list[Game]]]  # group name -> its games, in the paper's order
    attempts: int = 1
    needs: str = "offline"

    def games(
        self,
        *,
        groups: Sequence[str] | None = None,
        per_group: int | None = None,
        limit: int | None = None,
        max_steps: int | None = None,
    ) -> list[Game]:
        """The suite's games, optionally a subset: some groups, the first ``per_group`` of each, the
        first ``limit`` in all; ``max_steps`` replaces the paper's step limits."""
        table = self.groups()
        if groups:
            unknown = [g for g in groups if g not in table]
            if unknown:
                raise SuiteError(
                    f"suite {self.name} has no level/group {', '.join(unknown)} (choose {', '.join(table)})"
                )
            table = {g: table[g] for g in table if g in groups}
        for name, value in (("games", per_group), ("limit", limit), ("max steps", max_steps)):
            if value is not None and value < 1:
                raise SuiteError(f"{name} must be at least 1, got {value}")
        games = [game for group in table.values() for game in group[:per_group]]
        games = games[:limit]
        return [replace(g, max_steps=max_steps) for g in games] if max_steps else games


def _stma_groups() -> dict[str, list[Game]]:
    return {
        str(level): [
            Game(f"cooking:{level}", str(level), STMA_MAX_STEPS, seed=seed, label=f"level {level} seed {seed}")
            for seed in range(1, STMA_GAMES_PER_LEVEL + 1)
        ]
        for level in STMA_LEVELS
    }


def _arigraph_groups() -> dict[str, list[Game]]:
    from ..envs.registry import arigraph_game  # resolves files and the manifest's step limits

    groups: dict[str, list[Game]] = {}
    for name in ARIGRAPH_GAMES:
        if name in ARIGRAPH_GENERATED:
            env, seed = ARIGRAPH_GENERATED[name]
            groups[name] = [
                Game(env, name, ARIGRAPH_GENERATED_STEPS, seed=seed, label=f"{name} (generated: {env} seed {seed})")
            ]
        else:
            groups[name] = [Game(f"arigraph:{name}", name, arigraph_game(name).max_steps, label=name)]
    return groups


def _gata_groups() -> dict[str, list[Game]]:
    from ..envs.registry import arigraph_game

    return {
        str(level): [Game(f"arigraph:{name}", str(level), arigraph_game(name).max_steps, label=name) for name in names]
        for level, names in GATA_LEVELS.items()
    }


def scienceworld_subject(task_id: str) -> str:
    return next(subject for subject, tasks in SCIENCEWORLD_SUBJECTS.items() if task_id in tasks)


def _scienceworld_groups() -> dict[str, list[Game]]:
    from ..envs.scienceworld_env import scienceworld_tasks  # static list, no JVM

    return {
        task_id: [
            Game(
                f"scienceworld:{name}", task_id, SCIENCEWORLD_MAX_STEPS, variation=v, label=f"{task_id} {name} var {v}"
            )
            for v in SCIENCEWORLD_TEST_DRAWS[task_id]
        ]
        for task_id, name in scienceworld_tasks()
    }


def _tales_twx_groups() -> dict[str, list[Game]]:
    from ..envs.twx_env import TWX_SETTINGS  # a static table, no JVM

    return {
        name: [
            Game(f"twx:{name}", name, TALES_MAX_STEPS, seed=seed, label=f"{name} test seed {seed}")
            for seed in range(TALES_TWX_SEEDS)
        ]
        for name in TWX_SETTINGS
    }


def _nethack_groups() -> dict[str, list[Game]]:
    return {
        "challenge": [
            Game("nethack:challenge", "challenge", NETHACK_MAX_STEPS, seed=seed, label=f"challenge seed {seed}")
            for seed in range(NETHACK_SEEDS)
        ]
    }


def _crafter_groups() -> dict[str, list[Game]]:
    return {
        "crafter": [
            Game("crafter", "crafter", CRAFTER_MAX_STEPS, seed=seed, label=f"crafter seed {seed}")
            for seed in range(CRAFTER_SEEDS)
        ]
    }


def _emembench_groups() -> dict[str, list[Game]]:
    text = {
        group: [
            Game(env, group, EMEMBENCH_MAX_STEPS, seed=EMEMBENCH_TEXT_SEED, label=f"{env} seed {EMEMBENCH_TEXT_SEED}")
        ]
        for group, env in EMEMBENCH_TEXT_GAMES.items()
    }
    crafter = [
        Game("crafter", "crafter", EMEMBENCH_MAX_STEPS, seed=seed, label=f"crafter seed {seed}")
        for seed in EMEMBENCH_CRAFTER_SEEDS
    ]
    return {**text, "crafter": crafter}


SUITES: dict[str, Suite] = {
    s.name: s
    for s in (
        Suite(
            "stma-cooking",
            "STMA cooking: levels 1-4 x 8 generated games, 50 steps; success rate and average score",
            "STMA (Lei et al. 2025) section 5, appendix A, tables 1-2, figure 4",
            "stma",
            _stma_groups,
        ),
        Suite(
            "arigraph",
            "AriGraph games: hunt, hunt_hard, hunt_hardest (generated: TextWorld's treasure hunter, hardest "
            "mode), cook, cook_hard, cook_hardest, clean with the manifest's step limits; 5 attempts, normalised score "
            "(mean of the 3 best)",
            "AriGraph (Anokhin et al. 2024) sections 4-5, table 4, figure 3",
            "arigraph",
            _arigraph_groups,
            attempts=ARIGRAPH_ATTEMPTS,
            needs="AriGraph games",
        ),
        Suite(
            "gata-cooking",
            "AriGraph's RL comparison: the four GATA cooking levels, 3 games each, 60 steps",
            "AriGraph (Anokhin et al. 2024) appendix F, figure 4",
            "gata",
            _gata_groups,
            needs="AriGraph games",
        ),
        Suite(
            "scienceworld",
            "ScienceWorld: 30 tasks x 3 test variations, 80 steps, easy simplification; per task and per subject",
            "DAVIS (Pham-Dinh et al. 2025) section 4, appendix A-B, table 7",
            "scienceworld",
            _scienceworld_groups,
            needs="Java 17",
        ),
        Suite(
            "tales-twx",
            "TALES's TextWorldExpress column: its TWX settings on test-split seeds, its step budget; best "
            "normalised score reached, wins, invalid actions",
            "TALES (Microsoft 2025), TextWorldExpress results",
            "tales",
            _tales_twx_groups,
            needs="Java 17",
        ),
        Suite(
            "nethack",
            "NetHack Challenge (NLE), 3 seeds, 500 steps; BALROG progression, in-game score, deepest level",
            "AriGraph (Anokhin et al. 2024) section 5.2, table 1; BALROG (Paglieri et al. 2024) progression",
            "progression",
            _nethack_groups,
        ),
        Suite(
            "crafter",
            "Crafter as text, 3 seeds, 10,000 steps; progression (achievements unlocked of 22)",
            "AgentKit (Wu et al. 2024) section 4.1, table 1; BALROG (Paglieri et al. 2024) progression",
            "progression",
            _crafter_groups,
        ),
        Suite(
            "emembench",
            "EMemBench's episodes: TextWorld's cooking, treasure and coin games on seed 42 (for its Jericho games) and "
            "Crafter on seeds 1, 42, 43, 100, 123, 200 steps each; question them with `ariadne memqa --play emembench`",
            "EMemBench (anonymous ACL submission) section 3.3, appendix A.6",
            "emembench",
            _emembench_groups,
        ),
    )
}


def suites_playing(env: str, *, seed: int | None = None, variation: int | None = None) -> list[str]:
    """The suites that evaluate on this game (their games are on the default split, test): gold trajectories
    read into a memory must not come from them, or the memory would hold the answers to the test. A game is
    compared by what it is (:func:`~ariadnegraph.envs.identity.game_marks`), so ``file:`` a suite's game file, a copy
    or a link is that game."""
    from ..envs.identity import game_marks

    wanted = game_marks(env, seed=seed, variation=variation)
    found = []
    for suite in SUITES.values():
        try:
            games = suite.games()
        except Exception:  # a suite whose games are not here (AriGraph's files) plays none of them here either
            continue
        if any(wanted & game_marks(g.env, seed=g.seed, variation=g.variation) for g in games):
            found.append(suite.name)
    return found


def get_suite(name: str) -> Suite:
    try:
        return SUITES[name]
    except KeyError:
        raise SuiteError(f"unknown suite '{name}' (choose {', '.join(SUITES)})") from None


def normalised(score: float, max_score: float) -> float:
    """Score over the maximum, within [0, 1] (0 when the game reports no maximum)."""
    return min(max(score / max_score, 0.0), 1.0) if max_score > 0 else 0.0
