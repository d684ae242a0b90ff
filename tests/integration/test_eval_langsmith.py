"""`ariadne eval ... --langsmith` against a LangSmith API on loopback that keeps what the SDK sends: the suite's
games as a dataset, the system as an experiment on it, each episode a run linked to its game with its figures as
feedback; publishing again sends nothing twice; no key is one line before anything is played."""

from __future__ import annotations

import json

import pytest

from ariadnegraph.cli import main
from tests.fake_langsmith import FakeLangSmith

EVAL = ["eval", "stma-cooking", "--preset", "react", "--model", "scripted", "--levels", "1", "--games", "2",
        "--max-steps", "3"]  # fmt: skip


@pytest.fixture
def langsmith(monkeypatch):
    fake = FakeLangSmith()
    monkeypatch.setenv("LANGSMITH_ENDPOINT", fake.url)
    monkeypatch.setenv("LANGSMITH_API_KEY", "test-key")
    monkeypatch.setenv("LANGSMITH_TRACING", "false")
    yield fake
    fake.close()


def test_an_eval_becomes_a_dataset_an_experiment_runs_and_feedback(tmp_path, langsmith, capsys):
    out = tmp_path / "out"
    assert main([*EVAL, "--out", str(out), "--langsmith"]) == 0
    assert "LangSmith: dataset 'ariadne stma-cooking': 2 new games, 1 new experiments, 2 new episodes" in capsys.readouterr().out
    assert langsmith.unknown == []
    [dataset] = langsmith.datasets
    assert dataset["name"] == "ariadne stma-cooking"
    examples = {e["id"]: e for e in langsmith.examples}
    assert sorted((e["inputs"]["env"], e["inputs"]["seed"]) for e in examples.values()) == [("cooking:1", 1), ("cooking:1", 2)]
    assert all(e["dataset_id"] == dataset["id"] for e in examples.values())
    [experiment] = langsmith.projects
    assert experiment["reference_dataset_id"] == dataset["id"]
    assert experiment["name"].startswith("stma-cooking · react · scripted · ")
    made = experiment["extra"]["metadata"]
    assert {"version", "commit", "settings", "system", "command"} <= set(made)
    records = [json.loads(line) for line in (out / "episodes.jsonl").read_text().splitlines()]
    runs = {run["id"]: run for run in langsmith.runs}
    assert len(runs) == 2
    assert {run["session_name"] for run in runs.values()} == {experiment["name"]}
    assert {run["reference_example_id"] for run in runs.values()} == set(examples)
    assert sorted(run["outputs"]["run_id"] for run in runs.values()) == sorted(r["run_id"] for r in records)
    for run_id, run in runs.items():
        given = {f["key"]: f["score"] for f in langsmith.feedback if f["run_id"] == run_id}
        record = next(r for r in records if r["run_id"] == run["outputs"]["run_id"])
        assert given["success"] == float(record["won"])
        assert given["norm_score"] == record["norm_score"]
        assert given["steps"] == record["steps"]
        assert given["llm_calls"] == record["llm_calls"]
    # again: nothing is sent twice
    assert main([*EVAL, "--out", str(out), "--langsmith"]) == 0
    assert "0 new games, 0 new experiments, 0 new episodes" in capsys.readouterr().out
    assert len(langsmith.runs) == 2
    assert len(langsmith.datasets) == 1


def test_without_a_key_it_is_one_line_before_anything_is_played(tmp_path, langsmith, monkeypatch, capsys):
    monkeypatch.delenv("LANGSMITH_API_KEY")
    assert main([*EVAL, "--out", str(tmp_path / "out"), "--langsmith"]) == 2
    said = capsys.readouterr().err.strip().splitlines()
    assert said == ["ariadne: error: --langsmith needs LANGSMITH_API_KEY (and LANGSMITH_ENDPOINT for a host other than LangSmith's)"]
    assert not (tmp_path / "out").exists()
    assert langsmith.runs == []
