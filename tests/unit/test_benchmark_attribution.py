"""The real-model benchmark tells who chose each command, also for runs recorded before steps carried `by`."""

from __future__ import annotations

import importlib.util
from pathlib import Path

spec = importlib.util.spec_from_file_location(
    "real_model_benchmark", Path(__file__).parents[2] / "benchmarks" / "real_model.py"
)
assert spec and spec.loader
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
