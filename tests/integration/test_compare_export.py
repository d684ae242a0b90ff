"""`ariadne compare` and `ariadne memory export` on recorded runs, through the real command (subprocesses)."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from pathlib import Path

import networkx as nx
import pytest

from ariadnegraph.agent.context import AgentContext
from ariadnegraph.memory import WorldMemory
from ariadnegraph.play import play
from ariadnegraph.runs import RunDir

ARIADNE = str(Path(sys.executable).parent / "ariadne")


def run(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run([ARIADNE, *args], capture_output=True, text=True, timeout=300, env=os.environ.copy())


def assert_one_line_error(result: subprocess.CompletedProcess, fragment: str) -> None:
    assert result.returncode == 2, result.stderr
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("ariadne: error:"), result.stderr
    assert fragment in lines[0]


@pytest.fixture(scope="module")
def recorded(tmp_path_factory) -> tuple[Path, list[str]]:
    """Two runs of the same game by two presets (they part ways after a few steps)."""
    run_dir = tmp_path_factory.mktemp("compare-runs")
    ids = []
    for preset in ("ariadne", "react"):
        result = play("cooking:1", seed=1, max_steps=9, context=AgentContext(run_dir=str(run_dir), preset=preset), run_id=f"run-{preset}")
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
    assert read.is_directed() and read.is_multigraph()
    with WorldMemory.open(run_dir / run_id / "memory") as memory:
        expected = _facts_graph(memory)
    names, edges = expected
    assert len(edges) > 10 and any("valid_to" in d for d in edges.values()), "the run should have closed some facts"
    assert _as_read(read) == expected


def test_graphml_export_of_facts_holding_what_xml_cannot_is_a_file_that_parses(tmp_path):
    """Control characters in a fact (a game's text, a seeded fact) are written as their escapes: the file
    parses, with xml.etree and networkx."""
    import xml.etree.ElementTree as ET

    run_dir = tmp_path / "runs"
    odd = ("knife\x01", "on\x0b", "table \x1b[0m\uffff\x7f")
    play("cooking:1", seed=1, max_steps=1, context=AgentContext(run_dir=str(run_dir), preset="react"), run_id="odd",
         seed_facts=[odd])
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
    assert not out.exists() and not list(tmp_path.iterdir())


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
    assert differ and len(differ) < len(step_lines), "the presets should agree at first, then part ways"
    for k, (marked, line) in step_lines.items():
        assert marked == (k in differ), line
        assert first[k] in line and second[k] in line and line.index(first[k]) < line.rindex(second[k])


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
        assert step.count("(+1)") == 1 and step.count("(-2)") == 1, (width, step)
        assert "…" in step and long not in step
        assert all(len(cell.strip()) <= width for cell in step[6:].split("  ") if cell.strip()), step
    assert f"{long} (+1)" in render_text(runs, width=60)
