"""`ariadne compare` and `ariadne memory export` on recorded runs, through the real command (subprocesses)."""

from __future__ import annotations

import json
import os
import re
import sqlite3
import subprocess
import sys
from pathlib import Path

import networkx as nx
import pytest

from ariadnegraph.agent.context import AgentContext
from ariadnegraph.memory import WorldMemory
from ariadnegraph.play import Episode, HeadStart, play
from ariadnegraph.runs import RunDir

ARIADNE = str(Path(sys.executable).parent / "ariadne")


def run(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run([ARIADNE, *args], capture_output=True, text=True, timeout=300, env=os.environ.copy())


def assert_one_line_error(result: subprocess.CompletedProcess, fragment: str) -> None:
    assert result.returncode == 2, result.stderr
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1, result.stderr
    assert lines[0].startswith("ariadne: error:"), result.stderr
    assert fragment in lines[0]


@pytest.fixture(scope="module")
def recorded(tmp_path_factory) -> tuple[Path, list[str]]:
    """Two runs of the same game by two presets (they part ways after a few steps)."""
    run_dir = tmp_path_factory.mktemp("compare-runs")
    ids = []
    for preset in ("ariadne", "react"):
        result = play(Episode("cooking:1", seed=1, max_steps=9), context=AgentContext(run_dir=str(run_dir), preset=preset), run_id=f"run-{preset}")
        ids.append(result["run_id"])
    return run_dir, ids


def _facts_graph(memory: WorldMemory, step: int | None = None) -> tuple[dict[str, str], dict[tuple[str, str, str], dict]]:
    """What the export must hold, from the memory's own facts: entity names, and each fact's attributes
    keyed by (subject key, object key, fact id as GraphML writes it)."""
    facts = memory.all_facts if step is None else list(memory.as_of(step))
    names = dict(memory.entities) if step is None else {}
    edges = {}
    for f in facts:
        if step is not None:
            names.setdefault(f.subject_key, memory.entities.get(f.subject_key, f.subject))
            names.setdefault(f.object_key, memory.entities.get(f.object_key, f.object))
        data = {"fact": f.id, "relation": f.relation, "subject": f.subject, "object": f.object, "valid_from": f.valid_from,
                "recorded_at": f.recorded_at}
        data.update({"valid_to": f.valid_to} if f.valid_to is not None else {})
        data.update({"source_step": f.source} if f.source is not None else {})
        edges[(f.subject_key, f.object_key, str(f.id))] = data
    return names, edges


def _as_read(graph: nx.MultiDiGraph) -> tuple[dict[str, str], dict[tuple[str, str, str], dict]]:
    return ({n: d["name"] for n, d in graph.nodes(data=True)},
            {(s, o, str(k)): dict(d) for s, o, k, d in graph.edges(keys=True, data=True)})


def test_graphml_export_read_back_by_networkx_is_the_memory_graph(recorded, tmp_path):
    run_dir, (run_id, _) = recorded
    out = tmp_path / "kg.graphml"
    result = run("memory", "export", run_id, "--format", "graphml", "--out", str(out), "--run-dir", str(run_dir))
    assert result.returncode == 0, result.stderr
    read = nx.read_graphml(out, force_multigraph=True)
    assert read.is_directed()
    assert read.is_multigraph()
    with WorldMemory.open(run_dir / run_id / "memory") as memory:
        expected = _facts_graph(memory)
    names, edges = expected
    assert len(edges) > 10, "the run should have closed some facts"
    assert any("valid_to" in d for d in edges.values()), "the run should have closed some facts"
    assert _as_read(read) == expected


def test_graphml_export_of_facts_holding_what_xml_cannot_is_a_file_that_parses(tmp_path):
    """Control characters in a fact (a game's text, a seeded fact) are written as their escapes: the file
    parses, with xml.etree and networkx."""
    import xml.etree.ElementTree as ET

    run_dir = tmp_path / "runs"
    odd = ("knife\x01", "on\x0b", "table \x1b[0m\uffff\x7f")
    play(Episode("cooking:1", seed=1, max_steps=1), head_start=HeadStart(seed_facts=[odd]), context=AgentContext(run_dir=str(run_dir), preset="react"), run_id="odd")
    out = tmp_path / "kg.graphml"
    result = run("memory", "export", "odd", "--format", "graphml", "--out", str(out), "--run-dir", str(run_dir))
    assert result.returncode == 0, result.stderr
    ET.parse(out)
    read = nx.read_graphml(out, force_multigraph=True)
    seeded = [d for _, _, d in read.edges(data=True) if "source_step" not in d]
    assert [(d["subject"], d["relation"], d["object"]) for d in seeded] == [("knife\\x01", "on", "table \\x1b[0m\\uffff\x7f")]


def test_json_export_to_stdout_and_as_of_a_step(recorded):
    run_dir, (run_id, _) = recorded
    result = run("memory", "export", run_id, "--format", "json", "--run-dir", str(run_dir))
    assert result.returncode == 0, result.stderr
    whole = nx.node_link_graph(json.loads(result.stdout), edges="edges")
    at = run("memory", "export", run_id, "--format", "json", "--as-of", "3", "--run-dir", str(run_dir))
    assert at.returncode == 0, at.stderr
    snapshot = nx.node_link_graph(json.loads(at.stdout), edges="edges")
    with WorldMemory.open(run_dir / run_id / "memory") as memory:
        assert _as_read(whole) == _facts_graph(memory)
        assert _as_read(snapshot) == _facts_graph(memory, 3)
        assert 0 < snapshot.number_of_edges() < whole.number_of_edges()


def test_export_refuses_an_unknown_format_run_or_step_in_one_line_and_writes_nothing(recorded, tmp_path):
    run_dir, (run_id, _) = recorded
    out = tmp_path / "kg.out"
    assert_one_line_error(run("memory", "export", run_id, "--format", "xml", "--out", str(out), "--run-dir", str(run_dir)),
                          "invalid choice: 'xml'")
    assert_one_line_error(run("memory", "export", "no-such-run", "--out", str(out), "--run-dir", str(run_dir)), "no run 'no-such-run'")
    assert_one_line_error(run("memory", "export", run_id, "--as-of", "-1", "--out", str(out), "--run-dir", str(run_dir)),
                          "argument --as-of: must be 0 or more, got -1")
    assert not out.exists()
    assert not list(tmp_path.iterdir())


def _commands(run_dir: Path, run_id: str) -> dict[int, str | None]:
    return {r["step"]: r["action"] for r in RunDir.open(run_dir, run_id).steps()}


def test_compare_puts_the_runs_side_by_side_with_their_commands_aligned(recorded):
    run_dir, ids = recorded
    result = run("compare", *ids, "--run-dir", str(run_dir), "--width", "60")
    assert result.returncode == 0, result.stderr
    lines = result.stdout.splitlines()
    assert lines[0].split() == ["run", *ids]
    metas = [json.loads((run_dir / run_id / "run.json").read_text()) for run_id in ids]
    assert lines[2].split() == ["preset", *(m["context"]["preset"] for m in metas)]
    result_row = next(line for line in lines if line.startswith("result "))
    assert re.findall(r"\d+/\d+", result_row) == [f"{m['result']['score']:g}/{m['result']['max_score']:g}" for m in metas]
    first, second = (_commands(run_dir, run_id) for run_id in ids)
    step_lines = {int(m.group(2)): (m.group(1) == "*", line) for line in lines if (m := re.match(r"^([* ])\s*(\d+)\s{2}", line))}
    assert sorted(step_lines) == list(range(1, max(max(first), max(second)) + 1))
    differ = {k for k in step_lines if first.get(k) != second.get(k)}
    assert differ, "the presets should agree at first, then part ways"
    assert len(differ) < len(step_lines), "the presets should agree at first, then part ways"
    for k, (marked, line) in step_lines.items():
        assert marked == (k in differ), line
        assert first[k] in line
        assert second[k] in line
        assert line.index(first[k]) < line.rindex(second[k])


def test_compare_as_html_and_its_errors(recorded, tmp_path):
    run_dir, ids = recorded
    page = tmp_path / "cmp.html"
    result = run("compare", *ids, "--run-dir", str(run_dir), "--html", str(page))
    assert result.returncode == 0, result.stderr
    text = page.read_text()
    assert "http" not in text.replace("http-equiv", "")
    first, second = (_commands(run_dir, run_id) for run_id in ids)
    marked = {int(k) for k in re.findall(r'<tr class="differ" data-step="(\d+)">', text)}
    assert marked == {k for k in first if k and first[k] != second.get(k)}
    page.unlink()
    assert_one_line_error(run("compare", ids[0], "--run-dir", str(run_dir)), "two runs or more")
    assert_one_line_error(run("compare", ids[0], "gone", "--run-dir", str(run_dir), "--html", str(page)), "no run 'gone'")
    assert not page.exists()


def test_a_long_command_is_cut_never_its_score_change():
    """At the default width, a long command once lost its '(+1)': the step that scored read as one that did not."""
    from ariadnegraph.evals.compare import RunSummary, render_text

    long = "slice the red hot pepper with the kitchen knife"
    runs = [RunSummary(run_id, "cooking:1", "ariadne", "scripted", "1/4 not won", 2, 0, 0, 0.0,
                       commands={0: (None, 0.0), 1: ("go north", 0.0), 2: (long, change)})
            for run_id, change in (("a", 1.0), ("b", -2.0))]
    for width in (12, 20, 34):
        step = next(line for line in render_text(runs, width=width).splitlines() if line.startswith("    2"))
        assert step.count("(+1)") == 1, (width, step)
        assert step.count("(-2)") == 1, (width, step)
        assert "…" in step
        assert long not in step
        assert all(len(cell.strip()) <= width for cell in step[6:].split("  ") if cell.strip()), step
    assert f"{long} (+1)" in render_text(runs, width=60)


# -- readers never write: an output path in a run's folder, or onto a run's file, is refused before anything is written

def tree(root: Path) -> dict[str, bytes]:
    """Every file under ``root`` (links not followed) and its bytes."""
    return {str(p.relative_to(root)): p.read_bytes() for p in sorted(root.rglob("*")) if p.is_file() and not p.is_symlink()}


def one_error(capsys, *argv: str) -> str:
    from ariadnegraph import cli

    assert cli.main(list(argv)) == 2
    captured = capsys.readouterr()
    assert captured.out == "", captured
    assert captured.err.count("\n") == 1, captured
    assert captured.err.startswith("ariadne: error: "), captured
    return captured.err.strip()


def writers(run_dir: Path, a: str, b: str, tmp: Path) -> list[tuple[str, ...]]:
    """Every command that writes an output file or folder, each aimed at a run's own files (named, made by a link,
    reached through a linked folder, or new in a run's folder)."""
    (tmp / "link.html").symlink_to(run_dir / a / "trajectory.jsonl")
    (tmp / "dangling.graphml").symlink_to(run_dir / b / "memory" / "not-yet.graphml")
    (tmp / "alias").symlink_to(run_dir / a, target_is_directory=True)
    rd = ("--run-dir", str(run_dir))
    return [
        ("compare", a, b, *rd, "--html", str(run_dir / a / "run.json")),
        ("compare", a, b, *rd, "--html", str(tmp / "link.html")),
        ("compare", a, b, *rd, "--html", str(tmp / "alias" / "cmp.html")),
        ("memory", "export", b, *rd, "--out", str(run_dir / b / "trajectory.jsonl")),
        ("memory", "export", b, *rd, "--out", str(run_dir / b / "memory" / "kg.graphml")),
        ("memory", "export", b, *rd, "--out", str(tmp / "dangling.graphml")),
        ("report", a, *rd, "--out", str(run_dir / a / "run.json")),
        ("report", a, *rd, "--out", str(run_dir / b / "report.html")),  # another run's page is that run's file
        ("memqa", a, *rd, "--out", str(run_dir / a / "items.jsonl")),
        ("eval", "stma-cooking", "--out", str(run_dir / a / "eval")),
        ("games", "make", "cooking", "--level", "1", "--out", str(run_dir / a / "memory")),
        ("memory", "save", a, "--agent", "x", *rd, "--store", str(run_dir / a / "memory" / "memory.sqlite")),
        ("memory", "seed-gold", "cooking:1", "--variations", "101", "--by-seed", "--agent", "x", *rd,
         "--store", str(run_dir / b / "checkpoints.sqlite")),
        ("play", "--env", "cooking:1", "--max-steps", "1", "--run-dir", str(run_dir / a)),
    ]


def test_no_command_writes_in_a_run_folder_or_onto_a_runs_file(recorded, tmp_path, capsys):
    run_dir, (a, b) = recorded
    before = tree(run_dir)
    for argv in writers(run_dir, a, b, tmp_path):
        line = one_error(capsys, *argv)
        assert "is in the folder of run" in line, (argv, line)
        assert "whose files only the run itself writes" in line, (argv, line)
    assert tree(run_dir) == before  # not a byte changed, nothing new in any run's folder
    assert sorted(p.name for p in tmp_path.iterdir()) == ["alias", "dangling.graphml", "link.html"]


def test_a_reports_own_page_is_still_written_in_its_run(recorded, tmp_path):
    run_dir, (a, _) = recorded
    page = run_dir / a / "report.html"
    for given in (None, str(page)):  # the default, and the same file named
        page.unlink(missing_ok=True)
        assert run("report", a, "--run-dir", str(run_dir), *(("--out", given) if given else ())).returncode == 0
        assert page.read_text().startswith("<!DOCTYPE html>")
    page.unlink()


@pytest.mark.parametrize("given", ["pages/", "pages"])
def test_a_folder_given_for_an_output_file_is_refused_by_name(recorded, tmp_path, capsys, monkeypatch, given):
    run_dir, (a, b) = recorded
    monkeypatch.chdir(tmp_path)
    (tmp_path / "pages").mkdir()
    for argv in (("compare", a, b, "--html", given), ("memory", "export", a, "--out", given), ("report", a, "--out", given),
                 ("memqa", a, "--out", given)):
        line = one_error(capsys, *argv, "--run-dir", str(run_dir))
        assert line.endswith(f"{argv[-2]} {given} is a folder: give a file name (e.g. pages/NAME)"), line
    assert sorted(p.name for p in tmp_path.rglob("*")) == ["pages"]  # no pages.tmp, nothing in the folder


def test_a_file_given_for_an_output_folder_says_what_is_there_and_what_to_do(tmp_path, capsys, monkeypatch):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "FILE").write_text("kept")
    for argv in (("eval", "stma-cooking", "--preset", "react", "--limit", "1"), ("games", "make", "cooking", "--level", "1")):
        assert one_error(capsys, *argv, "--out", "FILE") == (
            "ariadne: error: --out FILE is a file, not a folder: give a folder (a new one is made)")
    assert sorted(p.name for p in tmp_path.iterdir()) == ["FILE"]
    assert (tmp_path / "FILE").read_text() == "kept"


def test_every_page_and_export_written_to_a_named_pipe_reaches_its_reader_and_the_pipe_stays(recorded, tmp_path, capsys):
    import stat
    import threading

    from ariadnegraph import cli

    run_dir, (a, b) = recorded
    pipe = tmp_path / "pipe"
    os.mkfifo(pipe)
    for argv in (("compare", a, b, "--html"), ("memory", "export", a, "--out"), ("report", a, "--out")):
        got: list[bytes] = []
        reader = threading.Thread(target=lambda got=got: got.append(pipe.read_bytes()), daemon=True)
        reader.start()
        assert cli.main([*argv, str(pipe), "--run-dir", str(run_dir)]) == 0, capsys.readouterr().err
        reader.join(30)
        assert len(got) == 1, argv
        assert got[0].strip(), argv
        assert stat.S_ISFIFO(os.lstat(pipe).st_mode), argv
    assert [p.name for p in tmp_path.iterdir()] == ["pipe"]


def test_a_store_that_is_not_there_is_said_to_be_missing_and_never_made(recorded, tmp_path, capsys):
    run_dir, (a, _) = recorded
    missing = tmp_path / "missing" / "dir" / "x.sqlite"
    assert one_error(capsys, "memory", "show", "--store", str(missing)) == (
        f"ariadne: error: no memory store at {missing}: `ariadne memory save` or `memory seed-gold` creates one (see --store)")
    line = one_error(capsys, "play", "--env", "cooking:1", "--max-steps", "1", "--memory-from", "chef", "--store", str(missing),
                     "--run-dir", str(tmp_path / "runs"))
    assert "no memory store at" in line
    before = tree(run_dir)
    # a run's file is never opened as a Store: SQLite would write a reader's journal beside a WAL file
    assert "is in the folder of run" in one_error(capsys, "memory", "show", "--store", str(run_dir / a / "checkpoints.sqlite"))
    assert tree(run_dir) == before
    other = tmp_path / "other.sqlite"
    sqlite3.connect(other).close()
    assert one_error(capsys, "memory", "show", "--store", str(other)).endswith(
        "is not a memory store (it has no LangGraph Store tables)")
    assert sorted(p.name for p in tmp_path.iterdir()) == ["other.sqlite"]
