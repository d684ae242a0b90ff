"""The process metrics the papers report, in every eval record and the resources table: steps per
replan (DAVIS), KG size and update rate over the episode (AriGraph)."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

ARIADNE = str(Path(sys.executable).parent / "ariadne")


def test_steps_per_replan_and_graph_growth_are_recorded_and_tabled(tmp_path):
    """With ariadne_full (its temporal KG on; ariadne's is off) beside ReAct, which never plans."""
    out = tmp_path / "out"
    result = subprocess.run([ARIADNE, "eval", "stma-cooking", "--preset", "ariadne_full", "--preset", "react", "--model", "scripted",
                             "--levels", "2", "--games", "1", "--max-steps", "10", "--out", str(out)],
                            capture_output=True, text=True, timeout=900)
    assert result.returncode == 0, result.stderr[-3000:]
    records = {r["preset"]: r for r in map(json.loads, (out / "episodes.jsonl").read_text().splitlines())}
    ariadne, react = records["ariadne_full"], records["react"]
    assert ariadne["steps_per_replan"] is not None
    assert ariadne["steps_per_replan"] >= 1
    assert react["steps_per_replan"] is None  # ReAct never plans
    growth = ariadne["kg_growth"]
    assert [step for step, _ in growth] == list(range(ariadne["steps"] + 1))  # one point per step
    assert growth[-1][1] == ariadne["kg_facts"] > 0
    assert ariadne["kg_recorded"] >= ariadne["kg_facts"]
    assert 0 <= ariadne["kg_update_rate"] <= 1
    updates = ariadne["kg_updates"]  # facts closed at each step: AriGraph's update rate during play
    assert [step for step, _ in updates] == list(range(ariadne["steps"] + 1))
    assert sum(n for _, n in updates) == round(ariadne["kg_update_rate"] * ariadne["kg_recorded"]) > 0
    assert react["kg_facts"] == react["kg_recorded"] == 0
    assert react["kg_update_rate"] is None
    report = (out / "report.md").read_text()
    assert "steps / replan" in report
    assert "KG update rate" in report
