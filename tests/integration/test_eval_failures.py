"""An eval sweep survives a failed episode (recorded with its error, counted, played again by a re-run),
stops past ``--max-failures``, and refuses a damaged ``episodes.jsonl`` line by line before any write."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

import ariadnegraph.play as play_module
from ariadnegraph.evals.plan import EvalError, EvalRequest, TooManyFailures
from ariadnegraph.evals.planning import plan_eval
from ariadnegraph.evals.records import read_records
from ariadnegraph.evals.runner import run_eval

ARIADNE = str(Path(sys.executable).parent / "ariadne")


def _failing_second_episode(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """play_trials raises on its second call (the second episode of the sweep), as a crashed game would."""
    real, calls = play_module.play_trials, []

    def flaky(env: str, **kwargs):
        calls.append(env)
        if len(calls) == 2:
            raise RuntimeError("the game process died")
        return real(env, **kwargs)

    monkeypatch.setattr(play_module, "play_trials", flaky)
    return calls


def _plan(out: Path, **kwargs):
    return plan_eval(EvalRequest(suite="stma-cooking", presets=["react"], model="scripted", out=out, groups=["1"], per_group=3, **kwargs))


def test_a_failed_second_episode_is_recorded_and_the_sweep_plays_the_rest(tmp_path, monkeypatch):
    calls = _failing_second_episode(monkeypatch)
    out = tmp_path / "sweep"
    records = run_eval(_plan(out), progress=False)
    assert len(calls) == 3  # the third episode was played after the second failed
    assert [bool(r.get("failed")) for r in records] == [False, True, False]
    failed = records[1]
    assert "RuntimeError: the game process died" in failed["error"]
    assert failed["seed"] == 2
    assert all(r["won"] for r in (records[0], records[2]))
    table = (out / "table.md").read_text()
    assert "## Failed episodes (1 of 3" in table
    assert "the game process died" in table
    report = (out / "report.md").read_text()
    assert "episodes: 2 of 3 (incomplete: 1 episodes not finished, 1 of them failed" in report
    csv_rows = (out / "results.csv").read_text().splitlines()
    assert all(row.split(",")[4] in ("episodes", "2") for row in csv_rows)  # cells over the 2 played episodes

    # A re-run plays the failed episode again (and only it).
    monkeypatch.undo()
    again = run_eval(_plan(out), progress=False)
    assert [bool(r.get("failed")) for r in again] == [False, False, False]
    assert again[0] == records[0]
    assert again[1]["won"]
    assert "Failed episodes" not in (out / "table.md").read_text()


def test_max_failures_stops_the_sweep_and_keeps_what_was_recorded(tmp_path, monkeypatch):
    calls = _failing_second_episode(monkeypatch)
    out = tmp_path / "strict"
    with pytest.raises(TooManyFailures, match="1 episodes failed, more than --max-failures 0"):
        run_eval(_plan(out, max_failures=0), progress=False)
    assert len(calls) == 2  # the third was never started
    assert [bool(r.get("failed")) for r in read_records(out / "episodes.jsonl").values()] == [False, True]
    with pytest.raises(EvalError, match="max failures must be 0 or more"):
        _plan(tmp_path / "x", max_failures=-1)


@pytest.mark.parametrize("line, named", [
    ("{}", "'key' must be a str, got missing"),
    ("[1,2]", "not an episode record (a JSON list)"),
    ("not json", "line 2 is damaged"),
    (None, "'won' must be a bool, got 'no'"),
    ({"norm_score": 5.0, "steps": -7}, "'norm_score' must be a number from 0 to 1, got 5.0"),  # not a 250% average
    ({"norm_score": float("nan")}, "'norm_score' must be a number from 0 to 1, got nan"),  # not a traceback
])
def test_a_damaged_episodes_line_is_named_and_nothing_is_written(tmp_path, line, named):
    out = tmp_path / "damaged"
    run_eval(plan_eval(EvalRequest(suite="stma-cooking", presets=["react"], model="scripted", out=out, groups=["1"], per_group=1)), progress=False)
    path = out / "episodes.jsonl"
    good = path.read_text()
    record = json.loads(good)
    bad = json.dumps({**record, "won": "no"}) if line is None else json.dumps({**record, **line}) if isinstance(line, dict) else line
    path.write_text(good + bad + "\n")
    before = {p: p.stat().st_mtime_ns for p in out.rglob("*")}
    result = subprocess.run([ARIADNE, "eval", "stma-cooking", "--preset", "react", "--levels", "1", "--games", "2", "--out", str(out)],
                            capture_output=True, text=True, timeout=300, env=os.environ.copy())
    assert result.returncode == 2
    assert result.stdout == ""
    assert result.stderr.count("\n") == 1, result.stderr
    assert result.stderr.startswith("ariadne: error: "), result.stderr
    assert named in result.stderr, result.stderr
    assert f"{path} line 2" in result.stderr
    assert {p: p.stat().st_mtime_ns for p in out.rglob("*")} == before  # nothing written, nothing played
