"""The real-model benchmark tells who chose each command, also for runs recorded before steps carried `by`."""

from __future__ import annotations

import importlib.util
import json
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parents[2] / "benchmarks"))  # its siblings, as when it is run as a script
spec = importlib.util.spec_from_file_location(
    "real_model_benchmark", Path(__file__).parents[2] / "benchmarks" / "real_model.py"
)
assert spec
assert spec.loader
real_model = importlib.util.module_from_spec(spec)
spec.loader.exec_module(real_model)


def step(how: str, reason: str = "", played: str | None = "look") -> dict:
    return {"action": played, "reason": reason, "decided": {"actor": [{"planned": "x", "played": played, "how": how}]}}


def test_a_run_recorded_before_attribution_is_read_from_its_actor_records():
    assert real_model.legacy_chooser(step("grounded", "The recipe says so.")) == "model"
    assert real_model.legacy_chooser(step("choice")) == "model"
    assert real_model.legacy_chooser(step("grounded", "followed in code: Directions: slice the onion")) == "list"
    assert real_model.legacy_chooser(step("fallback")) == "way forward"
    assert real_model.legacy_chooser(step("explore")) == "route"
    assert real_model.legacy_chooser(step("sent back", played=None)) == "unknown"
    assert real_model.legacy_chooser({"action": "look"}) == "unknown"


def test_the_tables_count_per_level_what_the_model_chose_and_what_code_played():
    def row(game: str, won: bool, by_model: int, by_code: int) -> dict:
        metrics = {
            "won": won, "score": 1.0, "max_score": 1.0, "steps": by_model + by_code, "best_normalised": 1.0 if won else 0.5,
            "by_model": by_model, "by_code": by_code, "chosen_by": {"model": by_model, "list": by_code},
            "seconds_per_step": 1.0, "calls_per_step": 1.0, "prompt_per_step": 1.0, "cached_per_step": 0.0,
            "completion_per_step": 1.0, "uncached_at_20": None, "roles": {}, "diagnostics": {},
        }  # fmt: skip
        return {"model": "m", "preset": "ariadne", "game": game, "metrics": metrics}

    text = real_model.table(
        [row("cooking:3@1", True, 4, 6), row("cooking:3@2", False, 10, 40), row("cooking:4@1", False, 0, 50)]
    )
    assert "| m | ariadne | cooking:3 | 2 | 1 | 0.75 | 14 | 46 |" in text
    assert "| m | ariadne | cooking:4 | 1 | 0 | 0.50 | 0 | 50 |" in text
    assert "| 6 (list 6) |" in text  # per episode: how many commands code played, and which code


def test_no_game_is_both_held_out_and_dev():
    """A held-out game that showed a flaw moves to dev and leaves the held-out set (never tuned on while held out)."""
    held_out = {game for _, games in real_model.HELD_OUT_36.values() for game in games}
    dev = {game for _, games in real_model.DEV_36.values() for game in games} | set(real_model.DEV)
    assert held_out
    assert not held_out & dev
    assert not held_out & set(real_model.SHOWED_A_FLAW)


def test_the_chooser_sentences_cut_at_their_bound_are_counted():
    """A sentence the chooser's schema cut (as long as its bound) is counted; a shorter one, another role's reply and a
    reply that does not parse are not."""
    bound = real_model.SENTENCE_BOUND

    def call(node: str, content: str) -> dict:
        return {"node": node, "reply": {"role": "ai", "content": content}}

    cut = json.dumps({"reasoning": "x" * bound, "action": "take 3 pears"})
    whole = json.dumps({"reasoning": "12 / 4 is 3: the 3 pears", "action": "take 3 pears"})
    calls = [call("planner", cut), call("planner", whole), call("critic", cut), call("planner", "{not json")]
    assert real_model.sentences_cut(calls) == (1, 2)
