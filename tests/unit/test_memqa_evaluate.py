"""The memory-QA pipeline's defaults and measures: questions are paraphrased by default when the answerer
is a real model (never for the scripted double, never with ``off``), several horizons give accuracy
against rounds played, and the new templates come from what the run logged (reasons, valid commands)."""

from __future__ import annotations

import json
from dataclasses import replace
from pathlib import Path

import pytest

from ariadnegraph.evals.memqa import evaluate as pipeline
from ariadnegraph.evals.memqa.report import by_rounds, pearson, rounds_table
from tests.unit.test_memqa_ground_truth import write_run


@pytest.fixture
def hand(tmp_path: Path) -> Path:
    write_run(tmp_path, "hand", memory=True)
    return tmp_path


def fake_paraphrase(seen: list):
    def rewrite(items, model, base_url=None):
        seen.append(model)
        return [replace(i, question=i.question + " (reworded)") for i in items]
    return rewrite


@pytest.mark.parametrize(("model", "flag", "expected"), [
    ("local:qwen2.5-coder-1.5b", None, ["local:qwen2.5-coder-1.5b"]),  # a real answerer rewrites with itself
    ("local:qwen2.5-coder-1.5b", "off", []),
    ("local:qwen2.5-coder-1.5b", "openai:gpt-4o-mini", ["openai:gpt-4o-mini"]),
])
def test_questions_are_paraphrased_by_default_for_a_real_model(hand, monkeypatch, model, flag, expected):
    seen: list = []
    monkeypatch.setattr(pipeline, "paraphrase", fake_paraphrase(seen))
    monkeypatch.setattr(pipeline, "make_answerer", lambda kind, *a, **k: (lambda item: "not answerable"))
    rows = pipeline.evaluate(hand, ["hand"], answerers=("memory",), per_type=1, model=model, paraphrase_with=flag)
    assert seen == expected
    assert all(r["paraphrased"] == bool(expected) and r["question"].endswith(" (reworded)") == bool(expected) for r in rows)


def test_the_scripted_double_rewrites_nothing(hand):
    rows = pipeline.evaluate(hand, ["hand"], answerers=("full-history",), per_type=1)
    assert rows
    assert not any(r["paraphrased"] for r in rows)


def test_several_horizons_give_accuracy_against_rounds(hand):
    rows = pipeline.evaluate(hand, ["hand"], answerers=("in-context", "full-history"), horizon=[5, 12, 20], per_type=2, seed=1)
    found = by_rounds(rows)
    assert set(found) == {"in-context", "full-history"}
    assert set(found["in-context"]) == {5, 12, 20}
    assert all(cell["n"] > 0 for cells in found.values() for cell in cells.values())
    # At 5 rounds every step is in the last 10 turns: the in-context window sees what full history sees.
    assert found["in-context"][5]["acc"] == found["full-history"][5]["acc"]
    assert found["in-context"][20]["acc"] < found["full-history"][20]["acc"]
    text = rounds_table(rows)
    assert "<=5" in text
    assert "<=20" in text
    assert text.count("\n") == 4


def test_pearson() -> None:
    assert pearson([(1, 2), (2, 4), (3, 6)]) == pytest.approx(1.0)
    assert pearson([(1, 3), (2, 2), (3, 1)]) == pytest.approx(-1.0)
    assert pearson([(1, 1), (2, 1)]) is None
    assert pearson([(1, 1), (2, 1), (3, 1)]) is None


def test_reason_and_valid_templates_come_from_the_log(hand):
    rows = pipeline.evaluate(hand, ["hand"], answerers=("full-history", "memory"), per_type=40, seed=4)
    by = {(r["template"], r["answerer"]): r for r in rows}
    assert {"A_reason", "A_valid_action", "C_keyword_count_reason"} <= {r["template"] for r in rows}
    # The transcript carries the logged reasons; the KG does not: memory cannot answer them.
    assert by[("A_reason", "full-history")]["score"] == 1
    assert by[("A_reason", "memory")]["prediction"] == "not answerable"


def test_a_run_without_reasons_gets_no_reason_questions(tmp_path):
    run = write_run(tmp_path, "bare")
    lines = [json.loads(x) for x in (run / "trajectory.jsonl").read_text().splitlines()]
    (run / "trajectory.jsonl").write_text("".join(json.dumps({k: v for k, v in r.items() if k not in ("reason", "valid")}) + "\n"
                                                  for r in lines))
    templates = {i.template for i in pipeline.questions(tmp_path, "bare", per_type=40)}
    assert not templates & {"A_reason", "A_valid_action", "C_keyword_count_reason"}


def test_runs_of_several_seeds_give_each_answerers_accuracy_per_seed_and_its_standard_deviation(tmp_path):
    """EMemBench §5.1: the SD of accuracy across seeds, from the runs' own seeds."""
    from ariadnegraph.evals.memqa.report import by_seed, seed_stability

    for run_id, seed in (("a", 1), ("b", 42)):
        write_run(tmp_path, run_id, memory=True)
        meta = json.loads((tmp_path / run_id / "run.json").read_text())
        (tmp_path / run_id / "run.json").write_text(json.dumps({**meta, "seed": seed}))
    rows = pipeline.evaluate(tmp_path, ["a", "b"], answerers=("in-context",), per_type=1, horizon=20)
    assert {(r["run_id"], r["seed"]) for r in rows} == {("a", 1), ("b", 42)}
    # the episodes' own seeds never change the sampling seed: run b alone gets the same questions
    alone = pipeline.evaluate(tmp_path, ["b"], answerers=("in-context",), per_type=1, horizon=20)
    assert [r["question"] for r in rows if r["run_id"] == "b"] == [r["question"] for r in alone]
    assert [set(cells) for cells in by_seed(rows).values()] == [{"1", "42"}]
    # hand-made rows: 100% on one seed, 50% on the other, so the SD of (1.0, 0.5) is 0.3536
    one = {"answerer": "memory", "env": "cooking:2", "preset": "ariadne", "model": "m"}
    made = [{**one, "seed": 1, "score": 1.0}, {**one, "seed": 7, "score": 1.0}, {**one, "seed": 7, "score": 0.0}]
    text = seed_stability(made)
    assert "1 100.0, 7 50.0" in text
    assert "SD 0.3536" in text
    assert seed_stability([r for r in made if r["seed"] == 7]) == ""  # one seed: nothing to compare
    # another agent on the other seed is no seed of the first one's: nothing to compare either
    assert seed_stability([made[0], {**made[1], "preset": "react"}]) == ""
