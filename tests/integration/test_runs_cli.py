"""The run directory as people use it (issue 26): one setting (--run-dir, else $ARIADNE_RUN_DIR, else ./runs)
that `play` writes to and prints, and that every reader finds runs in; `runs list|show|last`; `last` or a
unique prefix for a run id; the live view's plain lines under a pipe; the scripted model labelled as a
test double; a run id of another game refused with nothing written. Real subprocesses, offline."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

ARIADNE = str(Path(sys.executable).parent / "ariadne")
LABEL = "scripted (rule-based test double, not a language model)"


def run(*args: str, cwd: Path, run_dir: Path | None) -> subprocess.CompletedProcess:
    env = os.environ.copy()
    env.pop("ARIADNE_RUN_DIR", None)
    if run_dir is not None:
        env["ARIADNE_RUN_DIR"] = str(run_dir)
    return subprocess.run([ARIADNE, *args], capture_output=True, text=True, timeout=300, cwd=cwd, env=env)


def ok(result: subprocess.CompletedProcess) -> str:
    assert result.returncode == 0, result.stderr
    return result.stdout


def one_line_error(result: subprocess.CompletedProcess, fragment: str) -> str:
    assert result.returncode == 2, result.stdout + result.stderr
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1, result.stderr
    assert lines[0].startswith("ariadne: error:"), result.stderr
    assert fragment in lines[0], result.stderr
    return lines[0]


def snapshot(folder: Path) -> dict[str, tuple[int, int]]:
    return {str(p.relative_to(folder)): (p.stat().st_size, p.stat().st_mtime_ns) for p in sorted(folder.rglob("*"))}


@pytest.fixture(scope="module")
def played(tmp_path_factory):
    """Two short plays with the run directory given only by $ARIADNE_RUN_DIR, from a folder where ./runs
    would be the default; the second with --verbose under a pipe."""
    home = tmp_path_factory.mktemp("home")
    elsewhere = home / "elsewhere"
    first = run("play", "--env", "cooking:1", "--seed", "1", "--max-steps", "2", "--preset", "react", "--run-id", "alpha-1",
                cwd=home, run_dir=elsewhere)
    second = run("play", "--env", "cooking:1", "--seed", "1", "--max-steps", "2", "--preset", "ariadne_full", "--run-id", "alpha-2",
                 "--verbose", cwd=home, run_dir=elsewhere)
    return home, elsewhere, ok(first), ok(second)


def test_play_saves_where_the_setting_says_and_prints_that_path(played):
    home, elsewhere, first, _ = played
    assert f"saved in {elsewhere / 'alpha-1'}" in first
    assert (elsewhere / "alpha-1" / "run.json").is_file()
    assert not (home / "runs").exists()
    assert LABEL in first  # never read as a language model's result


def test_every_reader_finds_the_run_without_run_dir(played):
    home, elsewhere, _, _ = played
    report = Path(ok(run("report", "last", cwd=home, run_dir=elsewhere)).strip())
    assert report == elsewhere / "alpha-2" / "report.html"
    assert LABEL in report.read_text()
    assert "step" in ok(run("diagnose", "alpha-1", cwd=home, run_dir=elsewhere))
    assert ok(run("ask", "alpha-1", "Where am I?", cwd=home, run_dir=elsewhere)).strip()
    resumed = ok(run("play", "--resume", "alpha-2", cwd=home, run_dir=elsewhere))  # finished: its summary again
    assert f"saved in {elsewhere / 'alpha-2'}" in resumed
    # the flag comes before the variable
    assert ok(run("runs", "list", "--run-dir", str(elsewhere), cwd=home, run_dir=home / "nowhere")).count("alpha-") == 2
    assert "no runs in" in ok(run("runs", "list", cwd=home, run_dir=home / "nowhere"))


def test_runs_list_after_two_plays(played):
    home, elsewhere, _, _ = played
    lines = ok(run("runs", "list", cwd=home, run_dir=elsewhere)).splitlines()
    assert lines[0].split() == ["run", "game", "preset", "model", "result", "steps", "score", "when"]
    rows = {line.split()[0]: line.split() for line in lines[1:3]}
    assert rows["alpha-1"][1:7] == ["cooking:1", "react", "scripted", "not", "won", "2"]
    assert rows["alpha-2"][1:7] == ["cooking:1", "ariadne_full", "scripted", "not", "won", "2"]
    assert re.match(r"\d{4}-\d\d-\d\d \d\d:\d\d", " ".join(rows["alpha-1"][-2:]))
    assert LABEL in lines[-1]
    last = ok(run("runs", "last", cwd=home, run_dir=elsewhere))
    assert "alpha-2" in last.splitlines()[0]
    assert LABEL in last


def test_a_prefix_names_one_run_and_an_ambiguous_or_unknown_one_is_one_line(played):
    home, elsewhere, _, _ = played
    assert "run:       alpha-1" in ok(run("runs", "show", "alpha-1", cwd=home, run_dir=elsewhere))
    before = snapshot(elsewhere)
    message = one_line_error(run("report", "alpha", cwd=home, run_dir=elsewhere), "ambiguous")
    assert "alpha-1" in message
    assert "alpha-2" in message
    one_line_error(run("ask", "zzz", "Where am I?", cwd=home, run_dir=elsewhere), "no run 'zzz'")
    one_line_error(run("play", "--resume", "alpha", cwd=home, run_dir=elsewhere), "ambiguous")
    assert snapshot(elsewhere) == before


def test_ask_past_the_runs_end_answers_as_of_its_last_step_and_says_so(played):
    home, elsewhere, _, _ = played
    for asked in ("100000000", str(2**63 - 1)):
        lines = ok(run("ask", "alpha-1", "Where am I?", "--as-of", asked, cwd=home, run_dir=elsewhere)).splitlines()
        assert lines[-1] == f"(step {asked} is past the run's last step, 2: answered as of it)"
    within = ok(run("ask", "alpha-1", "Where am I?", "--as-of", "2", cwd=home, run_dir=elsewhere))
    assert "past the run's last step" not in within


def test_runs_show_on_a_run_cut_off_before_its_run_json_is_one_line(played, tmp_path):
    home, elsewhere, _, _ = played
    runs = tmp_path / "runs"
    (runs / "cut-empty").mkdir(parents=True)  # killed before run.json.tmp was written
    (runs / "cut-tmp").mkdir()
    (runs / "cut-tmp" / "run.json.tmp").write_text('{"run_id": "cut-')  # killed while writing it
    (runs / "gone").mkdir()
    (runs / "gone" / "trajectory.jsonl").write_text("")  # its run.json deleted since
    for run_id in ("cut-empty", "cut-tmp"):
        line = one_line_error(run("runs", "show", run_id, cwd=home, run_dir=runs), f"run '{run_id}' in {runs} was never created")
        assert line.endswith("play it again under its id (--run-id)")
    one_line_error(run("runs", "show", "gone", cwd=home, run_dir=runs), "run gone: run.json is missing")


def test_the_live_view_under_a_pipe_is_plain_lines(played):
    _, _, _, verbose = played
    assert "\x1b[" not in verbose
    assert verbose.startswith("starting cooking:1: ")  # the seconds before the first step are said
    assert re.search(r"^step +0  observation: You are hungry", verbose, re.M)
    assert re.search(r"^step +1  plan: .+ -> ", verbose, re.M)
    assert re.search(r"^step +1  verdict: '.+' approved", verbose, re.M)
    command = re.search(r"^step +1  command: (.+)$", verbose, re.M)
    assert command
    assert re.search(r"^step +1  observation: ", verbose, re.M)
    # the command shown is the one played
    trajectory = (played[1] / "alpha-2" / "trajectory.jsonl").read_text().splitlines()
    assert f'"action": "{command.group(1)}"' in trajectory[1]


def test_a_run_id_of_another_game_is_refused_and_nothing_is_written(played):
    home, elsewhere, _, _ = played
    before = snapshot(elsewhere)
    message = one_line_error(run("play", "--env", "cooking:3", "--seed", "9", "--preset", "react", "--run-id", "alpha-1",
                                 cwd=home, run_dir=elsewhere), "already exists")
    assert "game cooking:1 (asked cooking:3)" in message
    assert "seed 1 (asked 9)" in message
    assert snapshot(elsewhere) == before
    # the same game and settings: the run is continued (here: it is finished, so its result is shown)
    same = ok(run("play", "--env", "cooking:1", "--seed", "1", "--max-steps", "2", "--preset", "react", "--run-id", "alpha-1",
                  cwd=home, run_dir=elsewhere))
    assert "run alpha-1 (react" in same
