"""Generated games (tw-make): STMA cooking levels win by their walkthrough, and the cache is reused.

Each cooking level is generated once per session into a temporary ARIADNE_CACHE_DIR (two at a time:
tw-make is a single-threaded ~5 s compile).
"""

from __future__ import annotations

import os
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest

from ariadnegraph.config import CACHE_DIR_ENV
from ariadnegraph.envs import EnvError, EnvSpecError, generation, make
from ariadnegraph.envs.generation import (
    DEFAULT_SEED,
    cached_game_path,
    ensure_game,
    generate_game,
    tw_make_args,
)

pytestmark = pytest.mark.slow
STMA_MAX_SCORES = {1: 4, 2: 7, 3: 10, 4: 13}  # STMA appendix A.1, table 3


@pytest.fixture(scope="session")
def cooking_cache(tmp_path_factory) -> Path:
    cache = tmp_path_factory.mktemp("ariadne-cache")
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv(CACHE_DIR_ENV, str(cache))
        with ThreadPoolExecutor(max_workers=2) as pool:
            list(pool.map(lambda level: ensure_game("cooking", level), STMA_MAX_SCORES))
    return cache


@pytest.fixture
def cache(cooking_cache, monkeypatch) -> Path:
    monkeypatch.setenv(CACHE_DIR_ENV, str(cooking_cache))
    return cooking_cache


@pytest.mark.parametrize("level", sorted(STMA_MAX_SCORES))
def test_cooking_levels_win_by_their_walkthrough(cache, level):
    with make(f"cooking:{level}") as env:
        assert env.path == cache / "games" / "cooking" / f"level{level}_seed{DEFAULT_SEED}.z8"
        assert env.max_steps == 50
        assert env.task
        assert env.goal
        assert env.spec == f"cooking:{level}"
        obs = env.reset()
        assert obs.max_score == STMA_MAX_SCORES[level]
        assert obs.text.endswith(env.task)
        assert obs.location
        plan = obs.oracle.walkthrough
        assert 0 < len(plan) <= env.max_steps
        for command in plan:
            obs = env.step(command)
        assert (obs.won, obs.done, obs.score) == (True, True, STMA_MAX_SCORES[level])


def test_second_make_reuses_the_cached_game(cache, monkeypatch):
    path = cached_game_path("cooking", 2, DEFAULT_SEED)
    stamps = (path.stat().st_mtime_ns, path.with_suffix(".json").stat().st_mtime_ns)

    def must_not_run(*args, **kwargs):
        raise AssertionError("tw-make ran for a cached game")

    monkeypatch.setattr(generation, "_run_tw_make", must_not_run)
    env = make("cooking:2", seed=DEFAULT_SEED)
    assert env.path == path
    assert env.seed == DEFAULT_SEED
    assert (path.stat().st_mtime_ns, path.with_suffix(".json").stat().st_mtime_ns) == stamps
    assert not list(path.parent.glob(".tmp-*"))


def test_tw_make_arguments_follow_stma_appendix_a1(tmp_path):
    out = tmp_path / "x.z8"
    common = ["--open", "--cook", "--cut", "--seed", "5", "--output", str(out), "-f", "--silent"]
    assert tw_make_args("cooking", 1, 5, out) == ["tw-cooking", "--recipe", "1", "--take", "0", "--go", "6", *common]
    assert tw_make_args("cooking", 2, 5, out) == ["tw-cooking", "--recipe", "2", "--take", "1", "--go", "9", *common]
    assert tw_make_args("cooking", 3, 5, out) == ["tw-cooking", "--recipe", "3", "--take", "2", "--go", "9", *common]
    assert tw_make_args("cooking", 4, 5, out) == ["tw-cooking", "--recipe", "4", "--take", "3", "--go", "12", *common]
    assert tw_make_args("coin", 7, 1, out)[:3] == ["tw-coin_collector", "--level", "7"]
    assert tw_make_args("treasure", 7, 1, out)[:3] == ["tw-treasure_hunter", "--level", "7"]


def fake_tw_make(args, timeout, what):
    output = Path(args[args.index("--output") + 1])
    output.with_suffix(".json").write_text("{}")
    output.write_bytes(b"z8")


def test_a_half_written_game_is_never_trusted(tmp_path, monkeypatch):
    monkeypatch.setenv(CACHE_DIR_ENV, str(tmp_path))
    target = cached_game_path("cooking", 3, 99)
    target.parent.mkdir(parents=True)
    target.write_bytes(b"half")  # a .z8 without its .json: a generation killed mid-way
    calls = []
    monkeypatch.setattr(generation, "_run_tw_make", lambda *a: calls.append(a) or fake_tw_make(*a))
    assert ensure_game("cooking", 3, 99) == target
    assert len(calls) == 1
    assert target.read_bytes() == b"z8"
    assert target.with_suffix(".json").is_file()
    assert ensure_game("cooking", 3, 99) == target
    assert len(calls) == 1
    assert not list(target.parent.glob(".tmp-*"))


def test_a_failed_generation_leaves_nothing_behind(tmp_path, monkeypatch):
    monkeypatch.setenv(CACHE_DIR_ENV, str(tmp_path))

    def dies_half_way(args, timeout, what):
        Path(args[args.index("--output") + 1]).write_bytes(b"partial")
        raise EnvError(f"tw-make failed for {what}: killed")

    monkeypatch.setattr(generation, "_run_tw_make", dies_half_way)
    with pytest.raises(EnvError, match="cooking level 1 seed 4"):
        ensure_game("cooking", 1, 4)
    folder = cached_game_path("cooking", 1, 4).parent
    assert list(folder.iterdir()) == []


@pytest.mark.parametrize(("spec", "options"), [("cooking:0", {}), ("cooking:2", {"seed": -1}), ("coin:0", {}),
                                               ("treasure:abc", {}), ("cooking:2", {"seed": "x"})])
def test_bad_levels_and_seeds_fail_before_generating(tmp_path, monkeypatch, spec, options):
    monkeypatch.setenv(CACHE_DIR_ENV, str(tmp_path))
    monkeypatch.setattr(generation, "_run_tw_make", fake_tw_make)
    with pytest.raises(EnvSpecError) as info:
        make(spec, **options)
    assert "\n" not in str(info.value)
    assert not (tmp_path / "games").exists()


@pytest.mark.parametrize(("kind", "level"), [("treasure", 3), ("coin", 4), ("custom", 2)])
def test_treasure_coin_and_custom_games_generate_and_win(tmp_path, monkeypatch, kind, level):
    monkeypatch.setenv(CACHE_DIR_ENV, str(tmp_path))
    with make(f"{kind}:{level}", seed=2) as env:
        assert env.path.name == f"level{level}_seed2.z8"
        assert env.max_steps >= 100
        obs = env.reset()
        assert env.goal
        assert env.goal in obs.text
        assert env.task is None
        walkthrough = obs.oracle.walkthrough
        for command in walkthrough:
            obs = env.step(command)
        assert obs.won
        assert obs.score == obs.max_score == 1
    if kind == "custom":  # a quest whose goal names only its last action: the first ones are the player's to find
        assert len(walkthrough) == generation.CUSTOM_LEVELS[level][2]


@pytest.mark.parametrize(("spec", "said"), [("custom:0", "level"), ("custom:4", "level")])
def test_a_custom_quest_level_out_of_range_is_refused_before_generating(tmp_path, monkeypatch, spec, said):
    monkeypatch.setenv(CACHE_DIR_ENV, str(tmp_path))
    with pytest.raises(EnvSpecError, match=said):
        make(spec)
    assert not (tmp_path / "games").exists()


def test_generate_game_copies_into_out_dir(cache, tmp_path):
    copy = generate_game("cooking", 1, out_dir=tmp_path / "out")
    assert copy == tmp_path / "out" / f"level1_seed{DEFAULT_SEED}.z8"
    assert copy.is_file()
    assert copy.with_suffix(".json").is_file()
    assert os.path.getsize(copy) == os.path.getsize(cached_game_path("cooking", 1, DEFAULT_SEED))
