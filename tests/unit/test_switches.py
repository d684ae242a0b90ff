"""Switches set by hand (`--set`) and the papers' ablation grids: every switch of Preset can be set and
is checked, the set is recorded with the run, and each grid cell turns off what its paper removed."""

from __future__ import annotations

import json
import subprocess
import sys
from dataclasses import fields
from pathlib import Path

import pytest

from ariadnegraph.agent.context import AgentContext
from ariadnegraph.agent.presets import ABLATIONS, PRESETS, SWITCHES, Preset, ablation, parse_switches
from ariadnegraph.evals import quoted
from ariadnegraph.evals.plan import EvalError
from ariadnegraph.evals.runner import plan_eval

ARIADNE = str(Path(sys.executable).parent / "ariadne")

# One legal value per switch, different from the ariadne preset's where the type allows.
EXAMPLES = {"summarizer": "false", "knowledge_graph": "off", "retrieval": "stma", "episodes_k": "4", "stma_n": "3", "stma_hops": "1",
            "history": "none", "history_full_text": "true", "summarizer_history": "25", "unexplored_exits": "no",
            "exploration_check": "yes", "memory_facts_shown": "0", "aggregator": "llm", "qa_turns": "0", "planner": "never",
            "plan_length": "2", "expected_rewards": "1", "precheck": "false", "outcome_check": "false", "react_choice": "true",
            "reflections": "false", "go_to": "false", "invalidate": "false", "thoughts": "crafter"}


def test_every_switch_of_preset_can_be_set_and_reaches_the_nodes():
    assert set(SWITCHES) == {f.name for f in fields(Preset)} - {"description"} == set(EXAMPLES)
    for name, text in EXAMPLES.items():
        context = AgentContext(switch_overrides=parse_switches([f"{name}={text}"]))
        assert getattr(context.switches, name) == context.switch_overrides[name] != getattr(PRESETS["ariadne"], name), name


@pytest.mark.parametrize(("assignment", "message"), [
    ("nosuch=1", "unknown switch 'nosuch' (switches: summarizer,"),
    ("planner=sometimes", "switch 'planner' takes when_needed or every_step or never"),
    ("precheck=maybe", "switch 'precheck' takes true or false"),
    ("qa_turns=-1", "switch 'qa_turns' takes int"),
    ("history=lots", "switch 'history' takes int or none"),
    ("precheck", "--set takes SWITCH=VALUE"),
])
def test_a_bad_switch_is_refused_naming_the_allowed_values(assignment, message):
    with pytest.raises(ValueError) as refused:
        parse_switches([assignment])
    assert message in str(refused.value) and "\n" not in str(refused.value)


def test_the_set_is_recorded_with_the_run_and_a_bad_one_writes_nothing(tmp_path):
    bad = subprocess.run([ARIADNE, "play", "--env", "cooking:1", "--set", "critic=off", "--run-dir", str(tmp_path)],
                         capture_output=True, text=True, timeout=120)
    assert bad.returncode == 2 and bad.stderr.count("\n") == 1 and "unknown switch 'critic'" in bad.stderr
    assert not list(tmp_path.iterdir())
    good = subprocess.run([ARIADNE, "play", "--env", "cooking:1", "--seed", "1", "--max-steps", "2", "--preset", "stma",
                           "--set", "precheck=false", "--set", "aggregator=text", "--run-id", "set", "--run-dir", str(tmp_path)],
                          capture_output=True, text=True, timeout=300)
    assert good.returncode == 0, good.stderr[-2000:]
    meta = json.loads((tmp_path / "set" / "run.json").read_text())
    assert meta["context"]["switch_overrides"] == {"precheck": False, "aggregator": "text"}


def test_the_ablation_grids_turn_off_what_each_paper_removed():
    stma = {v.label: AgentContext(preset=v.preset, switch_overrides=v.switches).switches for v in ablation("stma-table2")}
    quoted_rows = {q.system for q in quoted.STMA_COOKING if q.system.startswith("STMA")}
    assert set(stma) == quoted_rows - {"STMA w/o Summarizer for Spatial Memory"}  # the one our switches cannot express
    full = stma["STMA"]
    assert full == PRESETS["stma"]
    assert not any((stma["STMA w/o Spatio-Temporal Memory"].summarizer, stma["STMA w/o Spatio-Temporal Memory"].knowledge_graph))
    assert not stma["STMA w/o Summarizer"].summarizer and stma["STMA w/o Summarizer"].knowledge_graph and stma["STMA w/o Summarizer"].history == 25
    assert not stma["STMA w/o Spatial Memory"].knowledge_graph and stma["STMA w/o Spatial Memory"].summarizer
    assert stma["STMA w/o Relation Aggregator"].aggregator == "off" and stma["STMA w/o Relation Aggregator"].knowledge_graph
    assert not stma["STMA w/o Critic"].critic and stma["STMA w/o Critic"].aggregator == "llm"
    davis = {v.label: AgentContext(preset=v.preset, switch_overrides=v.switches).switches for v in ablation("davis")}
    assert davis["D+W"] == PRESETS["davis"] and not davis["D-C"].reflections and davis["D-C"].outcome_check  # replanning stays
    assert not davis["D+W (append-only KG)"].invalidate and davis["D+W"].invalidate
    assert davis["D-A"].plan_length == 1 and davis["D (no world model)"].qa_turns == 0 and not davis["D (no world model)"].knowledge_graph
    arigraph = {v.label: AgentContext(preset=v.preset, switch_overrides=v.switches).switches for v in ablation("arigraph")}
    assert arigraph["AriGraph w/o episodic"].episodes_k == 0 and not arigraph["AriGraph w/o exploration"].unexplored_exits
    assert set(ABLATIONS) == {"stma-table2", "davis", "arigraph"}


def test_an_ablation_plan_names_its_cells_and_keeps_them_apart(tmp_path):
    plan = plan_eval("stma-cooking", [], ablate="stma-table2", switches=["plan_length=4"], per_group=1, out=tmp_path)
    assert plan.presets[0] == "STMA" and len(plan.presets) == 6
    assert len({job.key for job in plan.jobs}) == len(plan.jobs) == 6 * 4  # 4 levels x 1 game x 6 cells
    assert all(dict(job.switches)["plan_length"] == 4 for job in plan.jobs)
    with pytest.raises(EvalError, match="not both"):
        plan_eval("stma-cooking", ["stma"], ablate="davis", out=tmp_path)
    with pytest.raises(ValueError, match="unknown ablation grid"):
        plan_eval("stma-cooking", [], ablate="nosuch", out=tmp_path)


def test_a_thought_graph_that_cannot_be_read_is_refused_before_any_write(tmp_path):
    bad = subprocess.run([ARIADNE, "play", "--env", "cooking:1", "--set", "thoughts=nosuch", "--run-dir", str(tmp_path)],
                         capture_output=True, text=True, timeout=120)
    assert bad.returncode == 2 and bad.stderr.count("\n") == 1 and "thought graph 'nosuch' cannot be read" in bad.stderr
    assert not list(tmp_path.iterdir())
    with pytest.raises(EvalError, match="thought graph 'nosuch'"):
        plan_eval("crafter", ["react"], switches=["thoughts=nosuch"], out=tmp_path / "out")
