"""TextWorld adapter on the real AriGraph games (offline), plus hangs and crashes in the game process."""

from __future__ import annotations

import faulthandler
import os
import signal
import time
from collections import deque

import pytest

from ariadnegraph.envs import (
    EnvCrashed,
    EnvError,
    EnvSpecError,
    EnvTimeout,
    InvalidCommand,
    Observation,
    TextEnv,
    list_games,
    make,
)
from ariadnegraph.envs.cleaning import CleaningScorer
from ariadnegraph.envs.process import GameProcess
from ariadnegraph.envs.registry import RL_COOKING_GAMES, arigraph_game, load_manifest
from ariadnegraph.envs.textworld_env import TextWorldEnv
from tests.games import arigraph_games_missing

MANIFEST = {} if arigraph_games_missing() else load_manifest()  # a clone without the games: those tests are skipped
ARIGRAPH = list(MANIFEST.get("game", {})) + list(RL_COOKING_GAMES)


# ---------------------------------------------------------------------------------------------
# Loading and winning the AriGraph games


@pytest.mark.parametrize("name", ARIGRAPH)
def test_every_arigraph_game_loads(name):
    with make(f"arigraph:{name}") as env:
        assert isinstance(env, TextEnv)
        obs = env.reset()
        game = arigraph_game(name)
        assert env.goal == game.goal
        assert env.task == game.task
        assert env.max_steps == game.max_steps
        assert obs.text.endswith(game.task)
        assert "$$" not in obs.text
        assert obs.location
        assert f"-= {obs.location} =-" in obs.text
        assert obs.admissible_actions
        assert list(obs.admissible_actions) == sorted(obs.admissible_actions)
        assert obs.inventory == ()
        assert obs.score == 0
        assert not obs.done
        expected_max = 22 if name == "clean" else None
        assert 0 < obs.max_score <= 30
        assert (expected_max is None or obs.max_score == expected_max)
        assert ("at", "P", obs.oracle.extra["location"]) in obs.oracle.facts


@pytest.mark.arigraph_games
def test_hunt_manifest_walkthrough_wins_7_of_7():
    with make("arigraph:hunt") as env:
        obs = env.reset()
        assert obs.location == "Room A"
        assert obs.max_score == 7
        for command in MANIFEST["game"]["hunt"]["walkthrough"]:
            assert not obs.done
            obs = env.step(command)
        assert (obs.score, obs.won, obs.done, obs.lost) == (7, True, True, False)
        assert "treasure" in obs.inventory
        assert obs.admissible_actions == ()


def test_cook_policy_from_reset_wins_11_of_11():
    with make("arigraph:cook") as env:
        obs = env.reset()
        plan = obs.oracle.walkthrough
        assert plan
        assert obs.max_score == 11
        for command in plan:
            obs = env.step(command)
        assert (obs.score, obs.max_score, obs.won, obs.done) == (11, 11, True, True)
        assert obs.moves > 0
        assert obs.last_action == "eat meal"


# ---------------------------------------------------------------------------------------------
# The cleaning game: tidy-up route computed from the oracle facts (in this test only)

DIRECTIONS = {"north_of": "north", "south_of": "south", "east_of": "east", "west_of": "west"}


def room_of(facts, thing):
    where = {f[1]: f[2] for f in facts if len(f) == 3 and f[0] in ("at", "in", "on")}
    rooms = {f[2] for f in facts if f[0] == "at"}
    for _ in range(5):
        thing = where.get(thing)
        if thing in rooms or thing is None:
            return thing
    return None


def route(facts, start, goal):
    exits = {}
    for f in facts:
        if f[0] in DIRECTIONS:  # north_of(A, B): A lies north of B, so from B "go north" reaches A
            exits.setdefault(f[2], []).append((DIRECTIONS[f[0]], f[1]))
    previous = {start: None}
    queue = deque([start])
    while queue:
        room = queue.popleft()
        for direction, nxt in exits.get(room, ()):
            if nxt not in previous:
                previous[nxt] = (room, direction)
                queue.append(nxt)
    path, room = [], goal
    while previous[room] is not None:
        room, direction = previous[room]
        path.append(f"go {direction}")
    return path[::-1]


def walk(env, obs, room):
    for command in route(obs.oracle.facts, obs.oracle.extra["location"], room):
        obs = env.step(command)
    assert obs.oracle.extra["location"] == room
    assert obs.location == room
    return obs


def put_back(env, obs, item, target):
    obs = walk(env, obs, room_of(obs.oracle.facts, target))
    if ("closed", target) in obs.oracle.facts:
        obs = env.step(f"open {target}")
    put = [a for a in obs.admissible_actions if a in (f"put {item} on {target}", f"insert {item} into {target}")]
    assert put, (item, obs.admissible_actions)
    return env.step(put[0])


def tidy(env, obs, item, target):
    obs = walk(env, obs, room_of(obs.oracle.facts, item))
    take = [a for a in obs.admissible_actions if a == f"take {item}" or a.startswith(f"take {item} from ")]
    assert take, (item, obs.admissible_actions)
    before = obs.score
    obs = env.step(take[0])
    assert obs.score == before + 1
    assert item in obs.inventory
    obs = put_back(env, obs, item, target)
    assert obs.score == before + 2
    return obs


@pytest.mark.arigraph_games
def test_clean_scores_22_after_tidying_and_loses_a_point_when_a_tidied_item_moves():
    targets = MANIFEST["cleaning"]["targets"]
    with make("arigraph:clean") as env:
        obs = env.reset()
        misplaced = obs.oracle.extra["cleaning"]["misplaced_at_reset"]
        assert sorted(misplaced) == sorted(targets)  # in clean_3x3_mess_2 every item starts misplaced
        assert (obs.score, obs.max_score) == (0, 22)
        *first, last = misplaced
        for item in first:
            obs = tidy(env, obs, item, targets[item])
        assert obs.score == 20
        assert not obs.done
        undo = first[-1]
        obs = env.step(f"take {undo} from {targets[undo]}")  # we stand next to its target
        assert obs.score == 19  # moved away from its target: -1, and no second pick-up bonus
        obs = put_back(env, obs, undo, targets[undo])
        assert obs.score == 20
        obs = tidy(env, obs, last, targets[last])
        assert (obs.score, obs.won, obs.done) == (22, True, True)
        assert obs.oracle.extra["steps"] <= env.max_steps


def test_cleaning_rule_on_hand_made_facts():
    scorer = CleaningScorer({"cup": "shelf", "book": "bookcase", "ghost": "attic"})
    start = {("on", "cup", "table"), ("on", "book", "bookcase"), ("at", "shelf", "Hall")}
    scorer.reset(start)
    assert scorer.misplaced == ("cup",)
    assert scorer.max_score == 2
    assert scorer.update({("in", "cup", "I"), ("on", "book", "bookcase")}) == 1  # first pick-up
    assert scorer.update({("on", "cup", "table"), ("on", "book", "bookcase")}) == 1
    assert scorer.update({("in", "cup", "I"), ("on", "book", "bookcase")}) == 1  # second pick-up: no bonus
    assert scorer.update({("on", "cup", "shelf"), ("in", "book", "I")}) == 1  # +1 placed, -1 book moved away
    assert scorer.update({("on", "cup", "shelf"), ("on", "book", "bookcase")}) == 2
    assert scorer.won


# ---------------------------------------------------------------------------------------------
# Observation details, commands, lifecycle


def test_location_and_inventory_come_from_the_text():
    with make("arigraph:hunt") as env:
        env.reset()
        obs = env.step("take Key 1")
        assert obs.location == "Room A"
        assert obs.inventory == ("Key 1",)
        assert "Room A" not in obs.text  # the status bar was stripped
        obs = env.step("go west")
        assert obs.location == "Room B"
        assert obs.text.startswith("-= Room B =-")
        obs = env.step("go west")  # blocked
        assert obs.location == "Room B"
        assert obs.for_agent().oracle.facts == ()
        assert obs.oracle.facts


def test_compound_commands_never_reach_the_game():
    with make("arigraph:hunt") as env:
        env.reset()
        with pytest.raises(InvalidCommand, match="one command at a time"):
            env.step("take Key 1 then go west")
        with pytest.raises(InvalidCommand):
            env.step("restart")
        obs = env.step("look")
        assert obs.location == "Room A"
        assert obs.inventory == ()
        assert obs.oracle.extra["steps"] == 1


def test_lifecycle_reset_restarts_and_done_blocks_steps():
    env = make("arigraph:hunt", max_steps=2)
    with pytest.raises(EnvError, match="reset"):
        env.step("look")
    first = env.reset()
    env.step("take Key 1")
    obs = env.step("go west")
    assert obs.done
    assert not obs.won
    assert obs.oracle.extra["truncated"]
    assert obs.admissible_actions == ()
    with pytest.raises(EnvError, match="episode is over"):
        env.step("look")
    again = env.reset()
    assert again.text == first.text
    assert again.score == 0
    assert again.inventory == ()
    env.close()
    env.close()
    with pytest.raises(EnvError):
        env.step("look")
    assert env.reset().location == "Room A"  # a closed env can start again
    env.close()


def test_file_spec_plays_any_textworld_game():
    path = arigraph_game("cook_1_1_cut").path
    with make(f"file:{path}", step_timeout=5) as env:
        obs = env.reset()
        assert env.max_steps == 100
        assert env.goal.startswith("You are hungry!")
        assert env.task is None
        for command in obs.oracle.walkthrough:
            obs = env.step(command)
        assert obs.won
        assert obs.score == obs.max_score == 4


@pytest.mark.parametrize(
    "spec",
    ["cooking:9", "file:/nope.z8", "treasure:0", "nosuch:x", "arigraph:nope", "coin:301", "cooking:x", "hunt", "file:",
     "treasure:31"],
)
def test_bad_specs_fail_in_one_line(spec):
    with pytest.raises(EnvSpecError) as info:
        make(spec)
    assert "\n" not in str(info.value)
    assert str(info.value)


def test_bad_spec_messages():
    with pytest.raises(EnvSpecError, match=r"^cooking level must be 1-4, got 9$"):
        make("cooking:9")
    with pytest.raises(EnvSpecError, match=r"^game file not found: /nope.z8$"):
        make("file:/nope.z8")
    with pytest.raises(EnvSpecError, match="arigraph:, cooking:, treasure:, coin:, custom:, file:, scienceworld:"):
        make("nosuch:x")
    with pytest.raises(EnvSpecError, match="unknown option"):
        make("arigraph:hunt", step_timout=3)
    with pytest.raises(EnvSpecError, match="step_timeout"):
        make("arigraph:hunt", step_timeout=0)
    with pytest.raises(EnvSpecError, match="max_steps"):
        make("arigraph:hunt", max_steps=0)
    with pytest.raises(EnvSpecError, match="start_method"):
        make("arigraph:hunt", start_method="teleport")


def test_scienceworld_specs_are_dispatched_lazily(monkeypatch):
    import ariadnegraph.envs.scienceworld_env as sw

    calls = []
    monkeypatch.setattr(sw, "make_scienceworld", lambda task, **options: calls.append((task, options)) or "env")
    assert make("scienceworld:boil", variation=2) == "env"
    assert calls == [("boil", {"variation": 2})]


@pytest.mark.arigraph_games
def test_list_games_names_every_game_and_generator():
    games = list_games()
    specs = [g.spec for g in games]
    assert [f"arigraph:{n}" for n in ARIGRAPH] == [s for s in specs if s.startswith("arigraph:")]
    for spec in ("cooking:LEVEL", "treasure:LEVEL", "coin:LEVEL", "file:PATH", "scienceworld:boil"):
        assert spec in specs
    assert sum(s.startswith("scienceworld:") for s in specs) == 30
    assert all(g.description and "\n" not in g.description for g in games)
    assert {g.kind for g in games} == {"game", "generator", "loader"}


# ---------------------------------------------------------------------------------------------
# Hangs and crashes: fake games hosted in the child process


class EchoGame:
    def reset(self):
        return "ready"

    def step(self, command):
        return f"echo {command}"


class HangingGame(EchoGame):
    def step(self, command):
        time.sleep(3600)


class ExitingGame(EchoGame):
    def step(self, command):
        os._exit(1)


class SegfaultGame(EchoGame):
    def step(self, command):
        faulthandler.disable()  # pytest's handler, inherited by the fork, would print a traceback
        os.kill(os.getpid(), signal.SIGSEGV)


class RaisingGame(EchoGame):
    def step(self, command):
        raise ValueError("bad\nthing")


class BrokenFactory:
    def __init__(self):
        raise RuntimeError("no such game")


def test_game_process_forwards_calls():
    process = GameProcess(EchoGame)
    assert process.call("reset", timeout=5) == "ready"
    assert process.call("step", "look", timeout=5) == "echo look"
    process.close()
    assert not process.alive


def test_hanging_step_times_out_quickly_and_stops_the_game():
    process = GameProcess(HangingGame)
    started = time.monotonic()
    with pytest.raises(EnvTimeout, match=r"^step 'xyz' did not answer within 0.5s; game stopped$"):
        process.call("step", "xyz", timeout=0.5, what="step 'xyz'")
    assert time.monotonic() - started < 3
    assert not process.alive


@pytest.mark.parametrize(("factory", "reason"), [(ExitingGame, "exit status 1"), (SegfaultGame, "SIGSEGV")])
def test_dying_game_surfaces_as_crash(factory, reason):
    process = GameProcess(factory)
    started = time.monotonic()
    with pytest.raises(EnvCrashed, match=reason) as info:
        process.call("step", "look", timeout=30)
    assert time.monotonic() - started < 5
    assert "\n" not in str(info.value)
    assert not process.alive


def test_exceptions_in_the_game_surface_as_one_line_crash():
    process = GameProcess(RaisingGame)
    with pytest.raises(EnvCrashed, match="ValueError: bad thing; game stopped"):
        process.call("step", "look", timeout=5)
    with pytest.raises(EnvCrashed, match="RuntimeError: no such game"):
        GameProcess(BrokenFactory)


@pytest.mark.parametrize("method", ["fork", "spawn"])
def test_start_methods(method):
    process = GameProcess(EchoGame, start_method=method)
    assert process.call("step", "x", timeout=30) == "echo x"
    process.close()


class FakeTextWorld:
    """Answers like TextWorldGame; "hang" never returns."""

    def reset(self):
        return {"feedback": "-= Hall =-\nA hall.", "score": 0, "max_score": 1, "won": False, "lost": False,
                "done": False, "admissible": ("hang", "look"), "facts": (("at", "P", "Hall"),), "policy": (),
                "inventory": "You are carrying nothing.", "description": "", "moves": 0, "objective": "",
                "walkthrough": ()}

    def step(self, command):
        if command == "hang":
            time.sleep(3600)
        return {**self.reset(), "feedback": "Nothing happens."}


def test_env_step_timeout_then_reset_recovers(tmp_path):
    env = TextWorldEnv(tmp_path / "fake.z8", game_factory=FakeTextWorld, step_timeout=0.5)
    assert env.reset().location == "Hall"
    assert env.step("look").location == "Hall"
    started = time.monotonic()
    with pytest.raises(EnvTimeout, match=r"^step 'hang' did not answer within 0.5s; game stopped$"):
        env.step("hang")
    assert time.monotonic() - started < 3
    with pytest.raises(EnvError, match="reset"):
        env.step("look")
    assert isinstance(env.reset(), Observation)
    env.close()


def test_killed_game_process_surfaces_as_crash():
    with make("arigraph:hunt") as env:
        env.reset()
        os.kill(env._process.pid, signal.SIGKILL)
        with pytest.raises(EnvCrashed, match="SIGKILL"):
            env.step("look")
        assert env.reset().location == "Room A"
