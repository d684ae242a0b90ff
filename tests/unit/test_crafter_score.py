"""Crafter's score and reward (evals/crafter_score.py) against hand computations, the env's recorded reward
against the crafter package's own, and the Crafter table printing both beside AgentKit's table 1."""

from __future__ import annotations

import pytest

from ariadnegraph.evals.crafter_score import achievement_names, crafter_score, episode_reward, success_rates


def test_the_score_of_recorded_achievement_lists_is_the_geometric_mean_of_success_rates_by_hand():
    episodes = [["collect_wood", "place_table"], ["collect_wood", "collect_wood"], []]
    names = achievement_names()
    assert len(names) == 22
    rates = success_rates(episodes, names)
    assert rates["collect_wood"] == pytest.approx(200 / 3)
    assert rates["place_table"] == pytest.approx(100 / 3)
    assert sum(rates.values()) == pytest.approx(100.0)  # the other 20 achievements: 0 %
    # By hand: ln(1 + 66.667) = 4.21459, ln(1 + 33.333) = 3.53612, twenty ln(1 + 0) = 0;
    # mean over 22 = 7.75071 / 22 = 0.352305; exp(0.352305) - 1 = 0.42234 (%).
    assert crafter_score(episodes) == pytest.approx(0.42234, abs=1e-5)
    assert crafter_score([names]) == pytest.approx(100.0)  # every achievement in every episode
    assert crafter_score([[]]) == 0.0
    # one episode unlocking one achievement: exp(ln(101) / 22) - 1 = exp(0.209778) - 1 = 0.23340 (%)
    assert crafter_score([["eat_cow"]]) == pytest.approx(0.23340, abs=1e-5)
    with pytest.raises(ValueError, match="not Crafter achievements: win_game"):
        crafter_score([["win_game"]])


def test_the_reward_is_one_per_achievement_plus_a_tenth_per_health_point_by_hand():
    # collect wood, place table, eat cow (3 unlocked, wood twice counts once); health 9 -> 8 -> 6 -> 7
    assert episode_reward(["collect_wood", "place_table", "collect_wood", "eat_cow"], [8, 6, 7]) == pytest.approx(3 + 0.1 * (7 - 9))
    assert episode_reward([], [9, 9]) == 0.0
    assert episode_reward(["wake_up"], [0]) == pytest.approx(1 - 0.9)  # died: -0.9 for the 9 points lost


def test_the_env_records_crafters_own_reward_which_the_hand_formula_matches():
    from ariadnegraph.envs import make

    env = make("crafter", seed=3)
    try:
        observation = env.reset()
        health = [observation.oracle.extra["health"]]
        for command in ["do", "move left", "do", "do", "move up", "do", "do", "noop"] * 5:
            observation = env.step(command)
            health.append(observation.oracle.extra["health"])
    finally:
        env.close()
    extra = observation.oracle.extra
    unlocked = [a for a in extra["achievements"].split(",") if a]
    assert extra["reward"] == pytest.approx(episode_reward(unlocked, health))


def test_the_crafter_table_prints_score_and_reward_beside_agentkit_table_1():
    from ariadnegraph.evals.layouts import LAYOUTS
    from ariadnegraph.evals.suites import get_suite

    base = {"preset": "agentkit", "model": "scripted", "norm_score": 0.0, "best_norm_score": 0.0}
    records = [{**base, "score": 2.0, "achievements": ["collect_wood", "place_table"], "reward": 1.8},
               {**base, "score": 1.0, "achievements": ["collect_wood"], "reward": 1.0},
               {**base, "score": 0.0, "achievements": [], "reward": -0.2}]
    table = LAYOUTS["progression"](get_suite("crafter"), records)
    row = next(line for line in table.splitlines() if line.startswith("| agentkit (scripted)"))
    assert "0.42%" in row
    assert "0.87 ± 0.82" in row
    assert "| AgentKit (GPT-4-0613" in table
    assert "20.64%" in table
