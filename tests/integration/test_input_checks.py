"""Bad input ends in one line ``ariadne: error: ...`` and writes nothing: damaged Store rows (memory show,
memory save, play --memory-from), seed-gold ranges checked before the list is built, and --variation for
families that do not take it."""

from __future__ import annotations

import hashlib
import os
import resource
import sqlite3
import subprocess
import sys
from pathlib import Path

import pytest

from ariadnegraph.agent.context import AgentContext
from ariadnegraph.memory.longterm import LongTermMemory, Namespace
from ariadnegraph.play import Episode, play

ARIADNE = str(Path(sys.executable).parent / "ariadne")


def cli(*args: str, limit_memory: bool = False) -> subprocess.CompletedProcess:
    def cap() -> None:  # 2 GB of address space: a list of 10^12 numbers cannot be built under it
        resource.setrlimit(resource.RLIMIT_AS, (2 << 30, 2 << 30))

    return subprocess.run([ARIADNE, *args], capture_output=True, text=True, timeout=300, env=os.environ.copy(),
                          preexec_fn=cap if limit_memory else None)


def one_line(result: subprocess.CompletedProcess, *named: str) -> None:
    assert result.returncode == 2, (result.stdout, result.stderr)
    assert result.stdout == "", result.stderr
    assert result.stderr.count("\n") == 1, result.stderr
    assert result.stderr.startswith("ariadne: error: "), result.stderr
    for text in named:
        assert text in result.stderr, result.stderr


def digest(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def damaged_store(path: Path, value: str) -> None:
    """A store whose agent 'a' knows two cooking facts, one of them overwritten with ``value``."""
    with LongTermMemory(path) as memory:
        memory.add_facts(Namespace("a", "cooking"), [("carrot", "in", "fridge"), ("knife", "on", "table")], source="r")
    with sqlite3.connect(path) as db:
        db.execute("UPDATE store SET value = ? WHERE key = 'knife|on|table'", (value,))


@pytest.fixture(scope="module")
def finished_run(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, str]:
    runs = tmp_path_factory.mktemp("runs")
    result = play(Episode("cooking:1", seed=1, max_steps=3), context=AgentContext(preset="react", run_dir=str(runs)))
    return runs, result["run_id"]


# Every command is run on one damaged shape; the other shapes through memory show only (each command is a CLI
# process: CI time counts, and the commands share one reader).
@pytest.mark.parametrize("value, shown, every_command", [("null", "holds null, not an object", True),
                                                         ("[1, 2]", "holds [1, 2], not an object", False),
                                                         ('{"triplet": ["knife", 1, null]}', "not three texts", False)])
def test_a_damaged_store_row_is_named_and_skipped_by_readers_and_refused_by_writers(tmp_path, finished_run, value, shown,
                                                                                    every_command):
    """A reader (memory show, a server thread's recall) skips the row and names it, and shows the rest; a command
    that would write from the namespace (memory save, play --memory-from) refuses it in one line first."""
    store = tmp_path / "store.sqlite"
    damaged_store(store, value)
    before = digest(store)
    row = "a/cooking/facts 'knife|on|table' is damaged"

    shown_store = cli("memory", "show", "--store", str(store))
    assert shown_store.returncode == 0
    assert shown_store.stdout == "a/cooking: 1 facts, 0 lessons, 0 dated transitions\n  carrot, in, fridge\n"
    assert shown_store.stderr.count("\n") == 1, shown_store.stderr
    assert shown_store.stderr.startswith("ariadne: warning: "), shown_store.stderr
    assert row in shown_store.stderr
    assert shown in shown_store.stderr
    with LongTermMemory(store) as memory:  # the reader a run's recall uses
        assert memory.facts(Namespace("a", "cooking")) == [("carrot", "in", "fridge")]
        assert len(memory.skipped) == 1
        assert row in memory.skipped[0]
    if every_command:
        runs, run_id = finished_run
        one_line(cli("memory", "save", run_id, "--agent", "a", "--run-dir", str(runs), "--store", str(store)), row, shown)
        fresh = tmp_path / "fresh-runs"
        one_line(cli("play", "--env", "cooking:1", "--seed", "1", "--preset", "react", "--memory-from", "a", "--store", str(store),
                     "--run-dir", str(fresh), "--max-steps", "2"), row, shown)
        assert not fresh.exists() or not any(fresh.iterdir())  # no run was created
    assert digest(store) == before


def test_every_reader_of_the_store_skips_a_damaged_row_of_each_kind(tmp_path):
    """Lessons and dated transitions too: each damaged row named once, with its namespace and key, the rest read."""
    from ariadnegraph.memory.transitions import DatedFact

    store = tmp_path / "store.sqlite"
    ns = Namespace("a", "cooking")
    with LongTermMemory(store) as memory:
        memory.add_lessons(ns, ["open the fridge"], source="r")
        memory.add_transitions(ns, [DatedFact("carrot", "in", "fridge", "gold", 1, "open fridge")], source="gold")
        memory.store.put(ns.lessons, "0-bad", {"text": 5}, index=False)
        memory.store.put(ns.transitions, "gold|000002|00000", {"triplet": "not a triplet"}, index=False)
    with LongTermMemory(store) as memory:
        assert memory.lessons(ns) == ["open the fridge"]
        assert len(memory.transitions(ns)) == 1
        assert memory.lessons(ns) == ["open the fridge"]  # read again: still named once
        assert [line.split(": ", 1)[1].split(" is damaged")[0] for line in memory.skipped] == [
            "row a/cooking/lessons '0-bad'", "row a/cooking/transitions 'gold|000002|00000'"]


def test_a_healthy_store_still_reads(tmp_path):
    store = tmp_path / "store.sqlite"
    damaged_store(store, '{"triplet": ["knife", "on", "table"], "sources": ["r"]}')
    shown = cli("memory", "show", "--store", str(store))
    assert shown.returncode == 0, shown.stderr
    assert "a/cooking: 2 facts" in shown.stdout, shown.stderr


@pytest.mark.parametrize("variations, named", [
    ("0-999999999999", "names 1,000,000,000,000 games; at most 10,000"),
    ("5-2", "'5-2' is an empty range"),
    ("0-3,9-1", "'9-1' is an empty range"),
])
def test_seed_gold_ranges_are_checked_before_they_are_built(tmp_path, variations, named):
    result = cli("memory", "seed-gold", "cooking:1", "--variations", variations, "--by-seed", "--agent", "a",
                 "--run-dir", str(tmp_path / "runs"), "--store", str(tmp_path / "store.sqlite"), limit_memory=True)
    one_line(result, named)  # under a memory limit: a list of the whole range would not fit
    assert not (tmp_path / "runs").exists()
    assert not (tmp_path / "store.sqlite").exists()


def test_a_suites_game_given_as_a_file_a_copy_or_a_link_is_still_a_test_game_for_seed_gold(tmp_path, monkeypatch, capsys):
    """The guard compares what a file is (its bytes, its TextWorld uuid, the level and seed its .json says it was
    made as), not how it is named: file: stma-cooking's level 1 seed 1 read into gold memory held a test's answers."""
    import shutil

    from ariadnegraph import cli as ariadne
    from ariadnegraph.envs.generation import ensure_game
    from ariadnegraph.evals.suites import suites_playing

    monkeypatch.setenv("ARIADNE_CACHE_DIR", str(tmp_path / "cache"))  # its own cache: the suite's file is removed below
    game = ensure_game("cooking", 1, 1)  # stma-cooking's, where `ariadne eval` generates it
    alone, twin, link = tmp_path / "alone.z8", tmp_path / "twin" / "game.z8", tmp_path / "link.z8"
    shutil.copyfile(game, alone)  # the story file without its .json: its bytes say which it is
    twin.parent.mkdir()
    shutil.copyfile(game.with_suffix(".json"), twin.with_suffix(".json"))
    twin.write_bytes(game.read_bytes()[:18] + b"991231" + game.read_bytes()[24:])  # remade another day: its serial
    link.symlink_to(game)

    def refused(path: Path) -> None:
        argv = ["memory", "seed-gold", f"file:{path}", "--variations", "0", "--by-seed", "--agent", "a",
                "--run-dir", str(tmp_path / "runs"), "--store", str(tmp_path / "store.sqlite")]
        assert ariadne.main(argv) == 2
        said = capsys.readouterr()
        assert said.err == f"ariadne: error: file:{path} seed 0 is a test game of stma-cooking: read gold " \
                           "trajectories of games the evaluation does not play\n", said
        assert not (tmp_path / "runs").exists()
        assert not (tmp_path / "store.sqlite").exists()

    for path in (game, alone, twin, link):
        refused(path)
    game.unlink()  # the suite's own file not on this machine: the .json still says what the twin is
    refused(twin)
    assert suites_playing(f"file:{ensure_game('cooking', 1, 101)}", seed=0) == []  # a training game stays one


@pytest.mark.parametrize("env", ["twx:coin", "nethack:score", "crafter"])
def test_variation_is_refused_for_families_that_do_not_take_it(tmp_path, env):
    result = cli("play", "--env", env, "--variation", "3", "--run-dir", str(tmp_path / "runs"), "--max-steps", "2")
    one_line(result, "take no variation", "got 3")
    assert not (tmp_path / "runs").exists()


def test_memory_save_refuses_a_run_killed_mid_episode_and_writes_nothing(tmp_path, finished_run):
    """A run with no result in its run.json ended nowhere: what it 'knew at its end' is what it knew when it died."""
    import json
    import shutil

    runs, run_id = finished_run
    copy = tmp_path / "runs"
    shutil.copytree(runs / run_id, copy / "killed")
    meta = json.loads((copy / "killed" / "run.json").read_text())
    del meta["result"]
    (copy / "killed" / "run.json").write_text(json.dumps({**meta, "run_id": "killed"}))
    shutil.copytree(runs / run_id, copy / run_id)
    store = tmp_path / "store.sqlite"
    one_line(cli("memory", "save", run_id, "killed", "--agent", "a", "--run-dir", str(copy), "--store", str(store)),
             "run killed is unfinished", "ariadne play --resume killed")
    assert not store.exists()  # nothing saved, not even the finished run named first


@pytest.mark.parametrize("argv", [
    ["play", "--env", "cooking:1", "--run-id", "r" * 300],
    ["play", "--resume", "r" * 300],
    ["runs", "show", "r" * 300], ["report", "r" * 300], ["ask", "r" * 300, "where?"], ["compare", "r" * 300, "last"],
    ["diagnose", "r" * 300], ["memory", "export", "r" * 300], ["memory", "save", "r" * 300, "--agent", "a"],
])
def test_a_run_id_too_long_for_a_file_name_is_one_line_naming_the_limit(tmp_path, argv):
    """A 300-character run id once ended in 'File name too long: PATH'."""
    runs = tmp_path / "runs"
    runs.mkdir()
    one_line(cli(*argv, "--run-dir", str(runs)), "128")
    assert not any(runs.iterdir())


def test_a_run_id_with_no_room_for_its_trials_ids_is_refused_before_the_first_trial(tmp_path):
    """Trial 2 plays as '<id>-t2': a 127-character id once played trial 1, then failed to name trial 2."""
    one_line(cli("play", "--env", "cooking:1", "--run-id", "r" * 127, "--trials", "3", "--run-dir", str(tmp_path / "runs")),
             "too long for 3 trials", "at most 128 characters")
    assert not (tmp_path / "runs").exists()
