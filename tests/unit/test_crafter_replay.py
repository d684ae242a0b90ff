"""A Crafter game is the same game in any process: its seed and commands decide it, not where its objects sit in
memory (envs/crafter_env._ChunkObjects). Crafter keeps each map chunk's creatures in a set, which iterates in an order
of addresses, and draws from that order which one to despawn; a resumed run replays its commands in a new game
process, forked from an agent whose memory differs from run to run, and checks each answer against the recorded one."""

from __future__ import annotations

import collections
import random
from types import SimpleNamespace

import pytest

crafter_engine = pytest.importorskip("crafter.engine")

from ariadnegraph.envs.crafter_env import _CrafterGame  # noqa: E402


class OtherAddresses(set):
    """A set that iterates in another order than the built-in one, as other memory addresses would make it."""

    def __iter__(self):
        items = list(set.__iter__(self))
        random.Random(len(items)).shuffle(items)
        return iter(items)


def played(steps: int) -> list[dict]:
    game = _CrafterGame(seed=3)
    answers = [game.reset()]
    rng = random.Random(0)
    for _ in range(steps):
        answers.append(game.step(rng.choice([0, 1, 2, 3, 4, 5])))  # noop, the four moves, do
    return answers


def test_the_same_commands_give_the_same_game_whatever_order_memory_gives_crafters_sets(monkeypatch):
    first = played(1500)
    other = SimpleNamespace(defaultdict=lambda kind: collections.defaultdict(OtherAddresses if kind is set else kind))
    monkeypatch.setattr(crafter_engine, "collections", other)
    second = played(1500)
    assert len(second) == len(first)
    assert second == first
