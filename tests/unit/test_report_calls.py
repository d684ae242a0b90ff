"""The report's reading of calls.jsonl: each call goes with the command it led to, damaged lines are counted."""

from __future__ import annotations

import json
from pathlib import Path

from ariadnegraph.report import MESSAGE_CHARS, read_calls


def _call(step: int, node: str, text: str) -> dict:
    return {"node": node, "step": step, "model": "m", "prompt": [{"role": "system", "content": text}],
            "reply": {"role": "ai", "content": "ok"}, "usage": {"prompt_tokens": 3, "completion_tokens": 1}, "latency_ms": 2.0}


def test_calls_go_with_the_next_step_and_outcomes_with_their_call(tmp_path: Path):
    lines = [
        _call(0, "planner", "first"),
        {"reply": {"step": 0, "node": "planner", "outcome": "parsed", "issues": {}, "tries": 1, "errors": []}},
        _call(0, "critic", "check"),
        _call(1, "planner", "try once"),
        _call(1, "planner", "try twice"),
        {"reply": {"step": 1, "node": "planner", "outcome": "repaired", "issues": {"json": 1}, "tries": 2, "errors": ["bad"]}},
        _call(2, "planner", "x" * (MESSAGE_CHARS + 10)),
    ]
    path = tmp_path / "calls.jsonl"
    path.write_text("".join(json.dumps(line) + "\n" for line in lines) + "[1, 2]\n{\"node\": \"planner\"}\nnot json\n{\"node\": \"pla")
    calls, unreadable = read_calls(path)
    assert unreadable == 4  # a list, a call without a step, a garbled line and a torn last line
    assert sorted(calls) == [1, 2, 3]
    assert [(c["node"], c["prompt"][0]["content"]) for c in calls[1]] == [("planner", "first"), ("critic", "check")]
    assert calls[1][0]["outcome"]["outcome"] == "parsed"
    assert "outcome" not in calls[1][1]
    assert "outcome" not in calls[2][0]
    assert calls[2][1]["outcome"] == {"outcome": "repaired", "issues": {"json": 1}, "tries": 2,
                                                                      "errors": ["bad"]}
    clipped = calls[3][0]["prompt"][0]["content"]
    assert clipped.startswith("x" * MESSAGE_CHARS)
    assert "10 more characters" in clipped
    assert len(clipped) < MESSAGE_CHARS + 60


def test_a_run_without_calls_has_none(tmp_path: Path):
    assert read_calls(tmp_path / "calls.jsonl") == ({}, 0)
