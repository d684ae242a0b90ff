"""``ariadne memqa`` end to end: a real short episode played offline, all three answerers through
the CLI, and the headline: memory beats the in-context window on old evidence."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from ariadnegraph.agent.context import AgentContext
from ariadnegraph.cli import main
from ariadnegraph.play import Episode, play

pytestmark = pytest.mark.slow


@pytest.fixture(scope="module")
def played(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, str]:
    root = tmp_path_factory.mktemp("memqa-runs")
    result = play(Episode("cooking:2", seed=3, max_steps=40), context=AgentContext(run_dir=str(root)))
    assert result["steps"] > 10  # longer than the in-context window
    return root, result["run_id"]


def test_cli_runs_all_three_answerers(played: tuple[Path, str], tmp_path: Path, capsys: pytest.CaptureFixture) -> None:
    root, run_id = played
    out = tmp_path / "items.jsonl"
    assert main(["memqa", run_id, "--run-dir", str(root), "--per-type", "3", "--seed", "1", "--json", "--out", str(out)]) == 0
    summary = json.loads(capsys.readouterr().out)
    spent = summary.pop("cost")  # model calls and tokens per answerer: building its memory, answering
    assert set(summary) == set(spent) == {"in-context", "full-history", "memory"}
    assert all(spent[a]["answer"]["calls"] > 0 and spent[a]["ingest"]["calls"] == 0 for a in spent)
    rows = [json.loads(line) for line in out.read_text().splitlines()]
    assert {r["answerer"] for r in rows} == set(summary)
    per = len(rows) // 3
    assert per >= 15
    assert all(summary[a]["all"]["n"] == per for a in summary)
    assert {"question", "answer", "prediction", "score", "ability", "age", "evidence"} <= set(rows[0])
    assert main(["memqa", run_id, "--run-dir", str(root), "--per-type", "2", "--horizon", "8", "--answerer", "memory"]) == 0
    table = capsys.readouterr().out
    assert "memory" in table
    assert "Single" in table
    assert "in-context" not in table
    assert main(["memqa", "no-such-run", "--run-dir", str(root)]) == 2


def test_memory_beats_in_context_on_old_evidence(played: tuple[Path, str], tmp_path: Path) -> None:
    from ariadnegraph.evals.memqa.evaluate import evaluate
    from ariadnegraph.evals.memqa.report import summarize

    root, run_id = played
    summary = summarize(evaluate(root, [run_id], answerers=("in-context", "memory"), per_type=6, seed=2))
    old_memory, old_in_context = summary["memory"]["old"], summary["in-context"]["old"]
    assert old_memory["n"] >= 10
    assert old_memory["acc"] > old_in_context["acc"] + 30
    assert summary["memory"]["all"]["f1"] > summary["in-context"]["all"]["f1"]


def test_fixed_log_replays_it_with_each_runs_settings_and_prints_interactive_minus_fixed(
    tmp_path: Path, capsys: pytest.CaptureFixture
) -> None:
    """EMemBench §5.2: each run's memory rebuilt from one frozen log, the same questions asked of each."""
    runs = {preset: play(Episode("cooking:2", seed=3, max_steps=12), context=AgentContext(preset=preset, run_dir=str(tmp_path)), run_id=f"own-{preset}") for preset in ("ariadne_full", "react")}
    frozen = play(Episode("cooking:2", seed=3, max_steps=14), context=AgentContext(preset="ariadne", run_dir=str(tmp_path)), run_id="frozen")
    assert frozen["steps"] == 14
    args = ["memqa", *(r["run_id"] for r in runs.values()), "--fixed-log", "frozen", "--run-dir", str(tmp_path),
            "--answerer", "memory", "--answerer", "in-context", "--per-type", "1"]
    assert main(args) == 0
    printed = capsys.readouterr().out
    assert "interactive minus fixed" in printed
    assert "react: own-react " in printed
    assert "ariadne_full: own-ariadne_full " in printed
    commands = lambda run_id: [json.loads(line)["action"] for line in (tmp_path / run_id / "trajectory.jsonl").read_text().splitlines()][1:]  # noqa: E731
    for preset in runs:
        replayed = f"frozen-fixed-as-own-{preset}"
        assert commands(replayed) == commands("frozen")  # the frozen log's commands, as given
        assert json.loads((tmp_path / replayed / "run.json").read_text())["context"]["preset"] == preset
    before = (tmp_path / "frozen-fixed-as-own-react" / "trajectory.jsonl").read_text()
    assert main([*args, "--json"]) == 0
    assert (tmp_path / "frozen-fixed-as-own-react" / "trajectory.jsonl").read_text() == before
    gaps = json.loads(capsys.readouterr().out)["interactive_minus_fixed"]
    assert set(gaps) == {f"own-{preset} {answerer}" for preset in runs for answerer in ("memory", "in-context")}
    # a replay made with other settings than the run it stands for is refused, not questioned
    meta = json.loads((tmp_path / "frozen-fixed-as-own-react" / "run.json").read_text())
    meta["context"]["preset"] = "full_history"
    (tmp_path / "frozen-fixed-as-own-react" / "run.json").write_text(json.dumps(meta))
    assert main(args) == 2
    assert "with other settings than own-react (preset)" in capsys.readouterr().err


def test_play_emembench_plays_its_episodes_with_the_runner_then_questions_them(
    tmp_path: Path, capsys: pytest.CaptureFixture
) -> None:
    """EMemBench's protocol: `--play emembench` plays the suite's episodes as `ariadne eval` does (here one Crafter
    seed, a few steps) and questions the runs it played."""
    out = tmp_path / "played"
    rows_file = tmp_path / "items.jsonl"
    args = ["memqa", "--play", "emembench", "--preset", "react", "--levels", "crafter", "--limit", "1",
            "--max-steps", "6", "--play-out", str(out), "--answerer", "full-history", "--per-type", "1"]
    assert main([*args, "--out", str(rows_file)]) == 0
    printed = capsys.readouterr().out
    assert "full-history" in printed
    assert "model calls and tokens" in printed
    episodes = [json.loads(line) for line in (out / "episodes.jsonl").read_text().splitlines()]
    assert [(e["env"], e["seed"], e["max_steps"], e["preset"]) for e in episodes] == [("crafter", 1, 6, "react")]
    rows = [json.loads(line) for line in rows_file.read_text().splitlines()]
    assert rows
    assert {r["run_id"] for r in rows} == {episodes[0]["run_id"]}
    assert {r["seed"] for r in rows} == {1}
    assert "| system | crafter |" in (out / "report.md").read_text()
    assert main([*args, "--json"]) == 0  # played already: the runner resumes, nothing is played again
    assert len((out / "episodes.jsonl").read_text().splitlines()) == 1
    capsys.readouterr()
    played = ["memqa", episodes[0]["run_id"], "--run-dir", str(out / "runs")]
    assert main([*played, "--play", "emembench"]) == 2
    assert main(["memqa", "--run-dir", str(tmp_path)]) == 2
    assert main([*played, "--preset", "react"]) == 2
    assert main(["memqa", "--play", "emembench", "--preset", "react", "--preset", "ariadne"]) == 2
    assert main(["memqa", "--play", "emembench"]) == 2
    assert capsys.readouterr().err.splitlines() == [
        "ariadne: error: --play questions the episodes it plays: give RUN_IDs (and --fixed-log) or --play, not both",
        "ariadne: error: memqa needs RUN_IDs to question, or --play SUITE to play them first (e.g. --play emembench)",
        "ariadne: error: --preset goes with --play SUITE",
        *["ariadne: error: --play needs one --preset: the agent whose episodes are questioned (e.g. --preset ariadne)"] * 2,
    ]
