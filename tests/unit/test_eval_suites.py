"""Evaluation suites, prices, quoted numbers and table layouts: no episode is played here."""

from __future__ import annotations

import csv
import io
import json
import re
import statistics
from pathlib import Path

import pytest

from ariadnegraph.envs.registry import arigraph_game
from ariadnegraph.evals import quoted
from ariadnegraph.evals.layouts import markdown_tables
from ariadnegraph.evals.plan import EvalError, EvalRequest, Job
from ariadnegraph.evals.planning import plan_eval
from ariadnegraph.evals.plots import mean_fidelity_curves, plot_fidelity
from ariadnegraph.evals.pricing import DEFAULT_PRICES, PriceFileError, episode_cost, load_prices
from ariadnegraph.evals.suites import (
    DAVIS_ABLATION_TASKS,
    SCIENCEWORLD_SUBJECTS,
    SCIENCEWORLD_TEST_DRAWS,
    SuiteError,
    get_suite,
)
from ariadnegraph.evals.tables import ALL, cells, csv_text, fidelity_table


def test_stma_suite_is_four_levels_of_eight_games_at_fifty_steps():
    games = get_suite("stma-cooking").games()
    assert len(games) == 32
    assert [g.env for g in games[::8]] == ["cooking:1", "cooking:2", "cooking:3", "cooking:4"]
    assert {g.seed for g in games if g.group == "3"} == set(range(1, 9))
    assert {g.max_steps for g in games} == {50}


def test_stma_plan_has_32_episodes_per_preset_with_distinct_deterministic_run_ids(tmp_path):
    plan = plan_eval(EvalRequest(suite="stma-cooking", presets=["ariadne", "react"], out=tmp_path / "out"))
    assert len(plan.jobs) == 64
    assert sum(j.preset == "ariadne" for j in plan.jobs) == 32
    assert len({j.key for j in plan.jobs}) == len({j.run_id for j in plan.jobs}) == 64
    again = plan_eval(EvalRequest(suite="stma-cooking", presets=["ariadne", "react"], out=tmp_path / "out"))
    assert [j.run_id for j in again.jobs] == [j.run_id for j in plan.jobs]
    assert not (tmp_path / "out").exists()  # planning writes nothing


def test_arigraph_suite_uses_the_manifest_step_limits_and_five_attempts():
    suite = get_suite("arigraph")
    games = suite.games()
    assert [g.group for g in games] == ["hunt", "hunt_hard", "hunt_hardest", "cook", "cook_hard", "cook_hardest", "clean"]
    manifest = [g for g in games if g.env.startswith("arigraph:")]
    assert {g.group: g.max_steps for g in manifest} == {g.group: arigraph_game(g.group).max_steps for g in manifest}
    assert {g.group: g.max_steps for g in games}["cook"] == 60
    assert {g.group: g.max_steps for g in games}["hunt"] == 150
    # Treasure Hunt Hardest is not among the authors' files: TextWorld's treasure hunter at its hardest mode, seeded
    hardest = next(g for g in games if g.group == "hunt_hardest")
    assert hardest.env.startswith("treasure:")
    assert int(hardest.env.split(":")[1]) >= 21
    assert hardest.seed is not None
    assert hardest.max_steps == 150
    assert "generated" in hardest.label
    assert suite.attempts == 5
    assert len(plan_eval(EvalRequest(suite="arigraph", presets=["ariadne"], out="unused")).jobs) == 35


def test_gata_suite_has_four_levels_of_existing_game_files():
    games = get_suite("gata-cooking").games()
    assert [g.group for g in games] == ["1"] * 3 + ["2"] * 3 + ["3"] * 3 + ["4"] * 3
    for game in games:
        assert arigraph_game(game.env.split(":", 1)[1]).path.is_file()
    assert {g.max_steps for g in games} == {60}


def test_scienceworld_suite_is_thirty_tasks_by_three_test_variations_at_eighty_steps():
    games = get_suite("scienceworld").games()
    assert len(games) == 90
    assert len({g.group for g in games}) == 30
    by_task = {task: tuple(g.variation for g in games if g.group == task) for task in {g.group for g in games}}
    assert by_task == SCIENCEWORLD_TEST_DRAWS
    assert by_task["4-1"] == (27, 45, 50)
    assert {g.max_steps for g in games} == {80}
    ablation = get_suite("scienceworld").games(groups=list(DAVIS_ABLATION_TASKS))
    assert len(ablation) == 18
    assert {g.label for g in ablation[::3]} == {
        "1-2 melt var 0", "2-3 measure-melting-point-unknown-substance var 16", "6-2 chemistry-mix-paint-secondary-color var 3",
        "3-3 test-conductivity var 20", "7-1 lifespan-longest-lived var 23", "4-1 find-living-thing var 27"}
    assert sorted(t for tasks in SCIENCEWORLD_SUBJECTS.values() for t in tasks) == sorted({g.group for g in games})


def test_subsets_and_bad_selections():
    suite = get_suite("stma-cooking")
    subset = suite.games(groups=["1", "3"], per_group=2, max_steps=7)
    assert [(g.group, g.seed, g.max_steps) for g in subset] == [("1", 1, 7), ("1", 2, 7), ("3", 1, 7), ("3", 2, 7)]
    assert len(suite.games(limit=5)) == 5
    with pytest.raises(SuiteError, match="no level/group 9"):
        suite.games(groups=["9"])
    with pytest.raises(SuiteError, match="unknown suite"):
        get_suite("stma")
    with pytest.raises(SuiteError, match="games must be at least 1"):
        suite.games(per_group=0)


@pytest.mark.parametrize(("kwargs", "message"), [
    ({"presets": ["nope"]}, "unknown preset 'nope'"),
    ({"presets": []}, "at least one --preset"),
    ({"workers": 0}, "workers must be at least 1"),
    ({"attempts": 0}, "attempts must be at least 1"),
])
def test_plan_rejects_bad_input_before_writing(tmp_path, kwargs, message):
    args = {"presets": ["ariadne"], "out": tmp_path / "out", **kwargs}
    with pytest.raises(EvalError, match=message):
        plan_eval(EvalRequest(suite="stma-cooking", **args))
    assert not (tmp_path / "out").exists()


def test_plan_rejects_an_unknown_model_provider(tmp_path):
    with pytest.raises(ValueError, match="foo"):
        plan_eval(EvalRequest(suite="stma-cooking", presets=["ariadne"], model="foo:bar", out=tmp_path / "out"))
    assert not (tmp_path / "out").exists()


def test_cost_arithmetic_unknown_models_and_override(tmp_path):
    prices = load_prices()
    assert episode_cost(prices, "scripted", 10**6, 10**6) == 0.0
    # gpt-4o: 2.50 in + 10.00 out per 1M tokens
    assert episode_cost(prices, "openai:gpt-4o", 2_000_000, 500_000) == pytest.approx(2 * 2.5 + 0.5 * 10.0)
    assert episode_cost(prices, "openai:my-local-model", 100, 100) is None  # unknown, not free
    file = tmp_path / "prices.json"
    file.write_text(json.dumps({"openai:gpt-4o": {"input": 1, "output": 2}, "openai:my-local-model": [0.5, 0.25]}))
    custom = load_prices(file)
    assert episode_cost(custom, "openai:gpt-4o", 1_000_000, 1_000_000) == pytest.approx(3.0)
    assert episode_cost(custom, "openai:my-local-model", 2_000_000, 4_000_000) == pytest.approx(2.0)
    assert custom["openai:gpt-4o-mini"] == DEFAULT_PRICES["openai:gpt-4o-mini"]  # the rest kept
    file.write_text(json.dumps({"openai:gpt-4o": {"input": "x"}}))
    with pytest.raises(PriceFileError, match="bad price"):
        load_prices(file)


@pytest.mark.parametrize("price", ["NaN", "Infinity", "-Infinity", "-1", '"1e999"', "1e308"])
def test_a_price_that_is_no_finite_amount_is_refused(tmp_path, price):
    """A NaN price once printed a cost of $nan; an infinite one (or one that overflows a cost), $inf."""
    file = tmp_path / "prices.json"
    file.write_text(f'{{"openai:gpt-4o": {{"input": {price}, "output": 1}}}}')
    with pytest.raises(PriceFileError, match="must be two USD amounts from 0 to 100,000") as refused:
        load_prices(file)
    assert str(file) in str(refused.value)
    assert "openai:gpt-4o" in str(refused.value)
    for shape in ('{"input": true, "output": 1}', "[1, 2, 3]"):
        file.write_text(f'{{"openai:gpt-4o": {shape}}}')
        with pytest.raises(PriceFileError, match="bad price for 'openai:gpt-4o'"):
            load_prices(file)


def test_quoted_stma_rows_are_the_papers_tables():
    rows = {(q.system, q.model): q for q in quoted.STMA_COOKING}
    assert len(rows) == 14
    assert rows[("STMA", "GPT-4o")].cells["4"] == (37.5, 60.6, 38.5)
    assert rows[("ReAct", "Qwen2.5-72b")].cells["1"] == (75.0, 75.0, 43.3)
    assert rows[("STMA w/o Critic", "Qwen2.5-72b")].source == "STMA table 2"
    for row in quoted.STMA_COOKING:  # success rates are multiples of 1/8 (8 games per level)
        assert all((sr * 8 / 100).is_integer() for sr, _, _ in row.cells.values())


def test_quoted_davis_subject_averages_match_its_task_means():
    """Transcription check: every legible subject average of table 7 is the mean of its tasks' means."""
    checked = 0
    for row in quoted.SCIENCEWORLD:
        for subject, tasks in SCIENCEWORLD_SUBJECTS.items():
            printed = row.cells.get(subject)
            means = [row.cells[t][0] for t in tasks if t in row.cells]
            if printed is None or len(means) != len(tasks):
                continue
            assert statistics.fmean(means) == pytest.approx(printed, abs=0.1), (row.system, subject)
            checked += 1
    assert checked >= 20
    assert len([k for k in quoted.SCIENCEWORLD[0].cells if "-" in k]) == 29  # no 3-4 row in our copy


def _record(preset: str, group: str, seed: int, score: float, *, attempt: int = 1, max_score: float = 4.0, cost: float | None = 0.0) -> dict:
    return {"key": f"{preset}|{group}|{seed}|{attempt}", "suite": "stma-cooking", "preset": preset, "model": "scripted",
            "env": f"cooking:{group}", "group": group, "label": f"level {group} seed {seed}", "seed": seed, "variation": None,
            "attempt": attempt, "run_id": f"r{seed}", "max_steps": 5, "norm_score": score / max_score, "score": score,
            "max_score": max_score, "won": score == max_score, "steps": 4, "llm_calls": 10, "prompt_tokens": 1000,
            "completion_tokens": 100, "cost_usd": cost, "wall_seconds": 1.0, "resumed": False, "precision": 0.5,
            "recall": None, "fidelity": None, "curve": [0.0, 1.0, 2.0, score]}


@pytest.mark.parametrize(("change", "named"), [
    ({"norm_score": 5.0}, "'norm_score' must be a number from 0 to 1, got 5.0"),
    ({"steps": -7}, "'steps' must be a number of 0 or more, got -7"),
    ({"norm_score": float("nan")}, "'norm_score' must be a number from 0 to 1, got nan"),
    ({"score": float("inf")}, "'score' must be a finite number, got inf"),
    ({"wall_seconds": -1.0}, "'wall_seconds' must be a number of 0 or more"),
    ({"llm_calls": -1}, "'llm_calls' must be a number of 0 or more"),
    ({"cost_usd": float("nan")}, "'cost_usd' must be a number of 0 or more, got nan"),
    ({"precision": 1.5}, "'precision' must be a number from 0 to 1"),
    ({"best_norm_score": -0.5}, "'best_norm_score' must be a number from 0 to 1"),
    ({"precision": "high"}, "'precision' must be a number from 0 to 1, got 'high'"),
])
def test_an_episode_record_out_of_range_is_refused_when_written_and_when_read(tmp_path, change, named):
    """A normalised score of 5 and -7 steps once made a 250% average score; a NaN crashed the table."""
    from ariadnegraph.evals.records import append_record, read_records

    path = tmp_path / "episodes.jsonl"
    record = {**_record("ariadne", "1", 1, 2.0), **change}
    with pytest.raises(EvalError, match=re.escape(named)):
        append_record(path, record)  # type: ignore[arg-type]
    assert not path.exists()  # never written
    path.write_text(json.dumps(_record("ariadne", "1", 2, 4.0)) + "\n" + json.dumps(record) + "\n")
    with pytest.raises(EvalError, match=re.escape(named)) as refused:
        read_records(path)
    assert f"{path} line 2 is damaged" in str(refused.value)
    assert "\n" not in str(refused.value)
    append_record(path, _record("ariadne", "1", 3, 0.0, cost=None))  # in range (an unknown cost is null): written


def test_emembench_suite_is_the_papers_protocol_200_steps_text_games_on_seed_42_crafter_on_five_seeds(tmp_path):
    suite = get_suite("emembench")
    games = suite.games()
    assert {g.max_steps for g in games} == {200}  # EMemBench A.6: every episode capped at 200 steps
    text = [g for g in games if g.env != "crafter"]
    assert [(g.env, g.seed) for g in text] == [("cooking:4", 42), ("treasure:30", 42), ("coin:50", 42)]
    assert [g.seed for g in games if g.env == "crafter"] == [1, 42, 43, 100, 123]
    assert [g.env for g in suite.games(groups=["crafter"], limit=1, max_steps=3)] == ["crafter"]
    plan = plan_eval(EvalRequest(suite="emembench", presets=["react"], out=tmp_path / "out"))
    assert len(plan.jobs) == 8
    assert len({j.run_id for j in plan.jobs}) == 8
    records = [dict(_record("react", "crafter", seed, 2.0, max_score=22), env="crafter", seed=seed) for seed in (1, 42)]
    md = markdown_tables(suite, records)
    assert "| system | crafter |" in md
    assert "| **react** (scripted) — ours | 9.1 (4 steps, n=2) |" in md


def test_cells_csv_and_stma_markdown_layout():
    records = [_record("ariadne", "1", 1, 4.0), _record("ariadne", "1", 2, 2.0), _record("ariadne", "2", 1, 0.0),
               _record("react", "1", 1, 4.0, cost=None)]
    table = {(c.preset, c.group): c for c in cells(records)}
    assert table[("ariadne", "1")].norm_score == pytest.approx(0.75)
    assert table[("ariadne", "1")].norm_std == pytest.approx(0.25)
    assert table[("ariadne", "1")].success == pytest.approx(0.5)
    assert table[("ariadne", ALL)].episodes == 3
    assert table[("react", ALL)].cost_usd is None  # one unknown cost makes the total unknown
    suite = get_suite("stma-cooking")
    rows = list(csv.DictReader(io.StringIO(csv_text(suite, records))))
    assert [(r["preset"], r["group"]) for r in rows] == [("ariadne", "1"), ("ariadne", "2"), ("ariadne", ALL), ("react", "1"), ("react", ALL)]
    assert rows[0]["norm_score"] == "0.75"
    assert rows[3]["cost_usd"] == ""
    md = markdown_tables(suite, records)
    assert "| system | L1 SR | L1 AS | L2 SR | L2 AS |" in md
    assert "| **ariadne** (scripted) — ours | 50.0 | 75.0±25.0 | 0.0 | 0.0±0.0 |" in md
    assert "| STMA (GPT-4o) — quoted, STMA table 1; ours: stma | 100.0 | 100.0±0.0 | 75.0 | 91.1±15.9 |" in md
    assert "| react (scripted) | all | 1 | 1.00 | 100.0 | 4.0 | 10.0 | 1000 | 100 | ? | 1.0 | 0.50 | — |" in md


def test_arigraph_layout_reports_mean_of_three_best_attempts():
    scores = [11, 0, 5.5, 11, 0]  # normalised 1, 0, .5, 1, 0: best 1, top-3 mean .833, mean .5
    records = [dict(_record("ariadne", "cook", 1, s, attempt=i + 1, max_score=11), env="arigraph:cook") for i, s in enumerate(scores)]
    md = markdown_tables(get_suite("arigraph"), records)
    assert "| **ariadne** (scripted) — ours | — | — | — | 0.83 (best 1.00, mean 0.50, n=5) | — | — | — |" in md
    assert "| AriGraph (gpt-4-0125-preview) — quoted, AriGraph table 4; ours: arigraph | 1.00 | 1.00 | 1.00 | 1.00 | 1.00 | 0.65 | 0.79 |" in md


def test_scienceworld_layout_groups_tasks_by_subject():
    records = [dict(_record("davis", "4-1", v, s, max_score=100), env="scienceworld:find-living-thing", variation=v)
               for v, s in enumerate([100.0, 50.0, 0.0])]
    md = markdown_tables(get_suite("scienceworld"), records)
    assert "| **Biology** | **50.00** |  | — |  | **41.83** |  | **91.00** |  | **44.42** |  | **95.83** |  |" in md
    assert "| 4-1 | 50.00 | 40.8 | 11.33 | 9.8 | 17.00 | 0.0 | 72.33 | 47.9 | 61.00 | 38.1 | 100.00 | 0.0 |" in md
    assert "| 3-4 | — | — | — | — |" in md


def test_job_run_ids_are_valid_run_directory_names(monkeypatch):
    from ariadnegraph.runs import RUN_ID_PATTERN

    monkeypatch.setenv("OPENAI_API_KEY", "sk-test")  # the client is built, never called

    for job in plan_eval(EvalRequest(suite="scienceworld", presets=["full_history"], model="openai:gpt-4o-mini", out="unused")).jobs[:5]:
        assert RUN_ID_PATTERN.match(job.run_id)
    job = Job("s", "p", "openai:gpt-4o", get_suite("stma-cooking").games()[0], 1)
    assert job.run_id == Job("s", "p", "openai:gpt-4o", get_suite("stma-cooking").games()[0], 1).run_id
    assert job.run_id != Job("s", "p", "openai:gpt-4o", get_suite("stma-cooking").games()[0], 2).run_id
    assert Path(job.run_id).name == job.run_id


def _measured(preset: str, seed: int, curve: list, precision: float | None, recall: float) -> dict:
    families = {"location": {"precision": precision, "recall": recall}, "state": {"precision": None, "recall": 0.5}}
    fidelity = {"precision": precision, "recall": recall, "coverage": recall / 2, "by_relation": families, "curve": curve}
    return dict(_record(preset, "1", seed, 4.0), precision=precision, recall=recall, fidelity=fidelity)


def test_memory_fidelity_curves_table_and_plot(tmp_path):
    records = [
        _measured("ariadne", 1, [[0, 1.0, 0.5], [1, 0.5, 1.0], [2, 1.0, 1.0]], 0.8, 0.9),
        _measured("ariadne", 2, [[0, None, 0.0], [1, 1.0, 0.5]], 1.0, 0.5),  # ended a step earlier
        _measured("react", 1, [[0, None, 0.0], [1, None, 0.0]], None, 0.0),  # no KG: no precision at all
    ]
    curves = mean_fidelity_curves(records)
    assert curves["precision"] == {"ariadne (scripted)": [1.0, 0.75, 1.0]}  # step 0: only the episode with a value
    assert curves["recall"] == {"ariadne (scripted)": [0.25, 0.75, 1.0], "react (scripted)": [0.0, 0.0]}
    table = fidelity_table(records)
    assert "| preset | episodes | precision | recall | coverage | location P / R | state P / R |" in table
    assert "| ariadne (scripted) | 2 | 0.90 | 0.70 | 0.35 | 0.90 / 0.70 | — / 0.50 |" in table
    assert "| react (scripted) | 1 | — | 0.00 | 0.00 | — / 0.00 | — / 0.50 |" in table
    assert "## Memory fidelity" in markdown_tables(get_suite("stma-cooking"), records)
    path = plot_fidelity(get_suite("stma-cooking"), records, tmp_path / "fidelity.png")
    assert path is not None
    assert path.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"

    # ScienceWorld gives no true facts: no table section, no plot, nothing written.
    unmeasured = [dict(r, fidelity={"precision": None, "recall": None, "curve": [[0, None, None]]}) for r in records]
    assert fidelity_table(unmeasured) is None
    assert "## Memory fidelity" not in markdown_tables(get_suite("stma-cooking"), unmeasured)
    assert plot_fidelity(get_suite("stma-cooking"), unmeasured, tmp_path / "none.png") is None
    assert not (tmp_path / "none.png").exists()


def test_steps_per_replan_counts_plans_not_model_calls():
    """A planner reply asked again is one plan that cost two calls (DAVIS's steps per replan)."""
    from ariadnegraph.evals.graph_metrics import steps_per_replan

    assert steps_per_replan(10, {"planner": {"parsed": 3, "reasked": 1, "schema": 2}}) == 2.5
    assert steps_per_replan(10, {"actor": {"parsed": 10}}) is None  # never planned (ReAct)
