"""What a person reads (issue 39's small things): plurals, scores, run ids, runs of different games compared."""

from __future__ import annotations

from ariadnegraph.evals.compare import RunSummary, render_html, render_text
from ariadnegraph.evals.diagnostics import StepDiagnosis, mistakes
from ariadnegraph.evals.plan import Job
from ariadnegraph.evals.suites import Game
from ariadnegraph.runs import score_text


def test_a_steps_mistakes_are_counted_in_words_with_their_plurals():
    said = mistakes(StepDiagnosis(step=3, command="eat apple", failed_approvals=2, false_rejections=1))
    assert "2 approvals of commands that failed" in said
    assert "1 rejection of the winning command" in said
    assert not any("faileds" in line for line in said)


def test_a_score_prints_with_three_significant_digits():
    assert [score_text(0.571429, 1), score_text(10, 13), score_text(None, 4)] == ["0.571/1", "10/13", "?"]


def test_an_evals_progress_line_prints_a_score_as_the_cli_does():
    from ariadnegraph.evals.runner import _line

    record = {"label": "", "env": "scienceworld:boil", "preset": "react", "attempt": 1, "score": 0.571429,
              "max_score": 1.0, "won": False, "steps": 80, "llm_calls": 80, "wall_seconds": 12.0, "resumed": False}
    line = _line(record, 1, 3)  # type: ignore[arg-type]
    assert "score 0.571/1 not won in 80 steps" in line, line


def test_an_eval_run_id_names_no_missing_seed_or_variation():
    twx = Job("tales-twx", "react", "scripted", Game("twx:coincollector", "coin", 100, seed=0), 1)
    science = Job("scienceworld", "react", "scripted", Game("scienceworld:melt", "melt", 80, variation=3), 1)
    assert "vNone" not in twx.run_id
    assert "-s0-a1-" in twx.run_id
    assert "sNone" not in science.run_id
    assert "-v3-a1-" in science.run_id


def test_compare_says_when_the_runs_played_different_games():
    def summary(run_id: str, game: str) -> RunSummary:
        return RunSummary(run_id, game, "ariadne", "scripted", "1/4 not won", 1, 0, 0, 0.0, commands={1: ("look", 0.0)})

    different = [summary("a", "cooking:1, seed 1"), summary("b", "cooking:2, seed 3")]
    assert render_text(different).startswith(
        "note: the runs played different games (cooking:1, seed 1; cooking:2, seed 3): their commands are lined up"
    )
    assert "Note: the runs played different games" in render_html(different)
    same = [summary("a", "cooking:1, seed 1"), summary("b", "cooking:1, seed 1")]
    assert "different games" not in render_text(same)
    assert "different games" not in render_html(same)


def test_a_scienceworld_game_is_named_by_its_variation_never_a_missing_seed():
    from ariadnegraph.runs.rundir import game_label

    science = game_label({"env": "scienceworld:melt", "seed": None, "variation": 3, "split": "test"})
    assert science == "scienceworld:melt, variation 3, split test"
    assert game_label({"env": "cooking:1", "seed": 1}) == "cooking:1, seed 1"


def test_ctrl_c_during_play_says_how_to_resume_and_elsewhere_does_not(monkeypatch, capsys, tmp_path):
    import ariadnegraph.config
    from ariadnegraph.cli import main

    def interrupted() -> None:
        raise KeyboardInterrupt

    monkeypatch.setattr(ariadnegraph.config, "checkpointer_url", interrupted)
    assert main(["play", "--env", "cooking:1", "--run-dir", str(tmp_path)]) == 130
    said = capsys.readouterr().err.strip().splitlines()
    assert said == [
        "ariadne: interrupted (the steps played are saved: `ariadne play --resume RUN_ID` continues it; "
        "`ariadne runs list` names it)"
    ]
    assert main(["runs", "list", "--run-dir", str(tmp_path)]) == 130
    assert capsys.readouterr().err.strip() == "ariadne: interrupted"


def test_an_eval_report_counts_one_worker_in_the_singular(tmp_path):
    from ariadnegraph.evals.eval_report import report_text
    from ariadnegraph.evals.plan import EvalRequest
    from ariadnegraph.evals.planning import plan_eval

    def took(workers: int) -> str:
        request = EvalRequest(suite="stma-cooking", presets=["react"], model="scripted", out=tmp_path / str(workers),
                              groups=["1"], per_group=1, workers=workers)  # fmt: skip
        plot = tmp_path / "scores.png"
        plot.write_bytes(b"")
        return report_text(plan_eval(request), [], "", plot, elapsed=3.0)

    assert "took 3.0 s with 1 worker\n" in took(1)
    assert "took 3.0 s with 2 workers\n" in took(2)
