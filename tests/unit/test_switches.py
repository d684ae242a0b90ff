"""Switches set by hand (`--set`) and the papers' ablation grids: every switch of Preset can be set and
is checked, the set is recorded with the run, and each grid cell turns off what its paper removed."""

from __future__ import annotations

import json
import re
import subprocess
import sys
from dataclasses import fields
from pathlib import Path

import pytest

from ariadnegraph import prompting as p
from ariadnegraph.agent.ablations import ablation
from ariadnegraph.agent.context import AgentContext
from ariadnegraph.agent.integrity import checked_copies
from ariadnegraph.agent.presets import PRESETS, SWITCHES, Preset, preset_of, switch_values
from ariadnegraph.agent.switches import parse_switch, parse_switches
from ariadnegraph.evals import quoted
from ariadnegraph.evals.plan import EvalError, EvalRequest
from ariadnegraph.evals.planning import plan_eval
from ariadnegraph.memory import WorldMemory
from ariadnegraph.play import Episode, play
from ariadnegraph.runs import RunDir

ARIADNE = str(Path(sys.executable).parent / "ariadne")

# One legal value per switch, different from the ariadne preset's where the type allows.
EXAMPLES = {"summarizer": "true", "knowledge_graph": "on", "retrieval": "stma", "episodic_k": "4", "stma_n": "3", "stma_hops": "1",
            "history_length": "none", "history_full_text": "true", "summarizer_history": "25", "unexplored_exits": "no",
            "exploration_check": "yes", "memory_facts_shown": "1", "aggregator": "llm", "qa_turns": "3", "planner": "every_step",
            "plan_length": "2", "expected_rewards": "1", "precheck": "true", "outcome_check": "true", "react_choice": "true",
            "reflections": "true", "go_to": "false", "invalidate": "false", "thoughts": "crafter", "belief_shown": "false",
            "extraction_reads": "history", "grounding": "off", "plan_choice": "false", "strict_grounding": "false",
            "loop_guard": "false", "stall_steps": "5", "pin_readings": "false", "extract_new_only": "false",
            "outdated_scope": "entities", "reject_invalid": "true",
            "oracle_extraction": "true", "oracle_plan": "true", "env_map": "false", "object_memory": "false", "keys_first": "false", "hops_directed": "true", "explore": "false", "progress_shown": "false", "rules_shield": "false", "follow_lists": "false",
            "monologue": "transitions", "actor_commands": "3", "max_replans": "4", "search_depth": "3", "search_width": "7",
            "memory_facts": "10", "summary": "paragraphs", "buffer_feedback": "true", "memory_cadence": "plan", "conflict_rules": "false", "critic_reasoning": "true", "rejected": "withheld", "embeddings": "e5", "trials": "3",
            "choice_reasoning": "false", "random_walk": "true", "plan_form": "goals", "safety_check": "true",
            "coreference": "true", "open_relations": "true"}


# switches that play only beside others (agent/switches._unplayable refuses them alone)
NEEDS = {"plan_form": ["planner=every_step", "react_choice=true"], "random_walk": ["planner=never"],
         "choice_reasoning": ["react_choice=true"], "safety_check": ["qa_turns=5", "monologue=transitions"],
         "follow_lists": ["pin_readings=true", "progress_shown=true", "object_memory=true"]}


def test_every_switch_of_preset_can_be_set_and_reaches_the_nodes():
    assert set(SWITCHES) == {f.name for f in fields(Preset)} - {"description"} == set(EXAMPLES)
    for name, text in EXAMPLES.items():
        # on ariadne_full, where every role runs, so every switch can be set
        context = AgentContext(preset="ariadne_full", switch_overrides=parse_switches([f"{name}={text}", *NEEDS.get(name, [])]))
        assert getattr(context.switches, name) == context.switch_overrides[name] != getattr(PRESETS["ariadne"], name), name


@pytest.mark.parametrize(("given", "message"), [
    (["plan_form=goals"], "switch 'plan_form' would not play"),  # ariadne_full plans when needed, with no ReAct choice
    (["random_walk=true"], "switch 'random_walk' would still ask the model"),
    (["choice_reasoning=false"], "switch 'choice_reasoning' would change nothing"),
    (["safety_check=true"], "switch 'safety_check' would check nothing"),  # ariadne predicts no outcome (qa_turns=0)
    (["safety_check=true", "qa_turns=5", "monologue=rollout", "plan_choice=true"], "switch 'safety_check' would check nothing"),
    (["coreference=true", "extraction_reads=belief_only"], "switch 'coreference' would change nothing"),
    (["follow_lists=true", "progress_shown=false", "object_memory=false"], "switch 'follow_lists' would change nothing"),
])
def test_a_switch_that_would_do_nothing_as_the_others_are_set_is_refused_in_one_line(given, message):
    with pytest.raises(ValueError) as refused:
        AgentContext(preset="ariadne_full", switch_overrides=parse_switches(given))
    assert message in str(refused.value)
    assert "\n" not in str(refused.value)


@pytest.mark.parametrize(("assignment", "message"), [
    ("nosuch=1", "unknown switch 'nosuch' (switches: summarizer,"),
    ("planner=sometimes", "switch 'planner' takes when_needed or every_step or never"),
    ("precheck=maybe", "switch 'precheck' takes true or false"),
    ("qa_turns=-1", "switch 'qa_turns' takes int"),
    ("history_length=lots", "switch 'history_length' takes int from 0 to 100,000 or none"),
    ("history=lots", "switch 'history_length' takes int from 0 to 100,000 or none"),  # its old name, read as the new
    ("episodes_k=1000000000", "switch 'episodic_k' takes int from 0 to 100"),
    ("plan_length=0", "switch 'plan_length' takes int from 1 to 8"),
    ("actor_commands=0", "switch 'actor_commands' takes int from 1 to 8"),
    ("monologue=loud", "switch 'monologue' takes tools or transitions"),
    ("precheck", "--set takes SWITCH=VALUE"),
])
def test_a_bad_switch_is_refused_naming_the_allowed_values(assignment, message):
    with pytest.raises(ValueError) as refused:
        parse_switches([assignment])
    assert message in str(refused.value)
    assert "\n" not in str(refused.value)


def test_the_set_is_recorded_with_the_run_and_a_bad_one_writes_nothing(tmp_path):
    bad = subprocess.run([ARIADNE, "play", "--env", "cooking:1", "--set", "critic=off", "--run-dir", str(tmp_path)],
                         capture_output=True, text=True, timeout=120)
    assert bad.returncode == 2
    assert bad.stderr.count("\n") == 1
    assert "unknown switch 'critic'" in bad.stderr
    assert not list(tmp_path.iterdir())
    good = subprocess.run([ARIADNE, "play", "--env", "cooking:1", "--seed", "1", "--max-steps", "2", "--preset", "stma",
                           "--set", "precheck=false", "--set", "aggregator=text", "--run-id", "set", "--run-dir", str(tmp_path)],
                          capture_output=True, text=True, timeout=300)
    assert good.returncode == 0, good.stderr[-2000:]
    meta = json.loads((tmp_path / "set" / "run.json").read_text())
    assert meta["context"]["switch_overrides"] == {"precheck": False, "aggregator": "text"}


def shown(run_dir: Path, run_id: str) -> dict[str, list[dict[str, str]]]:
    """Per node, the sections of every prompt the run's model calls were given (from calls.jsonl)."""
    by_node: dict[str, list[dict[str, str]]] = {}
    for line in (run_dir / run_id / "calls.jsonl").read_text().splitlines():
        call = json.loads(line)
        if call.get("node") and call.get("prompt"):
            human = [m["content"] for m in call["prompt"] if m["role"] == "human"][-1]
            by_node.setdefault(call["node"], []).append(p.parse_sections(human))
    return by_node


def play_cell(tmp_path: Path, variant, env: str = "cooking:1", steps: int = 6) -> tuple[dict[str, list[dict[str, str]]], Path]:
    run_id = re.sub(r"[^A-Za-z0-9]+", "-", variant.label).strip("-")
    play(Episode(env, seed=1, max_steps=steps), run_id=run_id, context=AgentContext(preset=variant.preset, switch_overrides=variant.switches, run_dir=str(tmp_path)))
    return shown(tmp_path, run_id), tmp_path / run_id


@pytest.mark.slow
def test_each_stma_table2_cell_removes_what_the_paper_removed(tmp_path):
    """Each cell played: which roles called the model and what the planner and the relation retriever read."""
    cells = {v.label: v for v in ablation("stma-table2")}
    assert set(cells) == {q.system for q in quoted.STMA_COOKING if q.system.startswith("STMA")}  # every row of table 2
    seen = {label: play_cell(tmp_path, variant)[0] for label, variant in cells.items()}

    def planner_reads(label: str, section: str) -> bool:
        return all(section in s for s in seen[label]["planner"])

    full = seen["STMA"]
    assert {"summarizer", "relation_retriever", "aggregator", "planner", "critic"} <= set(full)
    assert planner_reads("STMA", p.BELIEF)
    assert planner_reads("STMA", p.SPATIAL)
    assert not any(p.MEMORY in s for s in full["planner"])
    assert all(p.BELIEF in s and p.HISTORY not in s for s in full["relation_retriever"])
    # no memory: no belief, no KG, no spatial belief, no history; only the observation
    bare = seen["STMA w/o Spatio-Temporal Memory"]
    assert not {"summarizer", "relation_retriever", "aggregator"} & set(bare)
    assert not any(section in s for s in bare["planner"] for section in (p.BELIEF, p.SPATIAL, p.MEMORY, p.HISTORY))
    # no summarizer for the temporal belief: the planner reads the raw history; the KG still reads the belief
    raw = seen["STMA w/o Summarizer"]
    assert "summarizer" in raw
    assert all(p.BELIEF in s for s in raw["relation_retriever"])
    assert not any(p.BELIEF in s for s in raw["planner"])
    assert any("[step 1] >" in s.get(p.HISTORY, "") for s in raw["planner"])
    # no summarizer for spatial memory: the KG reads the raw history; the planner keeps the belief
    spatial_raw = seen["STMA w/o Summarizer for Spatial Memory"]
    assert all(p.BELIEF not in s for s in spatial_raw["relation_retriever"])
    assert planner_reads("STMA w/o Summarizer for Spatial Memory", p.BELIEF)
    assert any("[step 1] >" in s.get(p.HISTORY, "") for s in spatial_raw["relation_retriever"])
    # no spatial memory: no KG, no aggregator; the belief stays
    no_map = seen["STMA w/o Spatial Memory"]
    assert not {"relation_retriever", "aggregator"} & set(no_map)
    assert planner_reads("STMA w/o Spatial Memory", p.BELIEF)
    assert not any(p.SPATIAL in s for s in no_map["planner"])
    # no aggregator: the retrieved triples reach the planner as a list
    listed = seen["STMA w/o Relation Aggregator"]
    assert "aggregator" not in listed
    assert planner_reads("STMA w/o Relation Aggregator", p.MEMORY)
    assert not any(p.SPATIAL in s for s in listed["planner"])
    assert "critic" not in seen["STMA w/o Critic"]
    assert "aggregator" in seen["STMA w/o Critic"]


@pytest.mark.slow
def test_each_davis_cell_removes_what_the_paper_removed(tmp_path):
    cells = {v.label: v for v in ablation("davis")}
    assert [label for label in cells if "(ours)" not in label] == ["D+W", "D (no world model)", "D-A", "D-C"]
    full, full_run = play_cell(tmp_path, cells["D+W"])
    assert "world_model_qa" in full
    assert "relation_retriever" in full
    without, _ = play_cell(tmp_path, cells["D (no world model)"])
    assert not {"world_model_qa", "relation_retriever"} & set(without)
    assert "planner" in without
    # DAVIS's KG only appends timestamped facts: the player's places all stay; ours closes the old one
    closing, closing_run = play_cell(tmp_path, cells["D+W with fact invalidation (ours)"])

    def closed(run: Path) -> int:
        with checked_copies(run.parent, [run.name]) as copies, WorldMemory.open(RunDir.open(copies, run.name).memory_path) as memory:
            return sum(1 for f in memory.all_facts if not f.is_open)

    assert closed(full_run) == 0 < closed(closing_run)
    # D-A and D-C change the actor and the critic: tests/unit/test_agent_routing.py drives those cells one reply at a time


def test_an_ablation_plan_names_its_cells_and_keeps_them_apart(tmp_path):
    plan = plan_eval(EvalRequest(suite="stma-cooking", presets=[], ablate="stma-table2", switches=["plan_length=4"], per_group=1, out=tmp_path))
    assert plan.presets[0] == "STMA [plan_length=4]"
    assert len(plan.presets) == 7
    same = plan_eval(EvalRequest(suite="stma-cooking", presets=[], ablate="davis", switches=["invalidate=true"], per_group=1, out=tmp_path / "same"))
    assert same.presets[-1] == "D+W with fact invalidation (ours)"
    assert same.presets[0] == "D+W [invalidate=true]"
    assert len({job.key for job in plan.jobs}) == len(plan.jobs) == 7 * 4  # 4 levels x 1 game x 7 cells
    assert all(dict(job.switches)["plan_length"] == 4 for job in plan.jobs)
    plain = plan_eval(EvalRequest(suite="stma-cooking", presets=[], ablate="stma-table2", per_group=1, out=tmp_path / "plain"))
    assert plain.presets == tuple(v.label for v in ablation("stma-table2"))
    with pytest.raises(EvalError, match="not both"):
        plan_eval(EvalRequest(suite="stma-cooking", presets=["stma"], ablate="davis", out=tmp_path))
    with pytest.raises(ValueError, match="unknown ablation grid"):
        plan_eval(EvalRequest(suite="stma-cooking", presets=[], ablate="nosuch", out=tmp_path))


def test_a_thought_graph_that_cannot_be_read_is_refused_before_any_write(tmp_path):
    bad = subprocess.run([ARIADNE, "play", "--env", "cooking:1", "--set", "thoughts=nosuch", "--run-dir", str(tmp_path)],
                         capture_output=True, text=True, timeout=120)
    assert bad.returncode == 2
    assert bad.stderr.count("\n") == 1
    assert "thought graph 'nosuch' cannot be read" in bad.stderr
    assert not list(tmp_path.iterdir())
    with pytest.raises(EvalError, match="thought graph 'nosuch'"):
        plan_eval(EvalRequest(suite="crafter", presets=["react"], switches=["thoughts=nosuch"], out=tmp_path / "out"))


def test_every_number_switch_is_bounded():
    """A switch is also a server client's request: no number switch takes an unbounded value."""
    from typing import get_args, get_type_hints

    from ariadnegraph.agent.switches import _MAXIMUM

    numbers = [name for name in SWITCHES if int in (get_args(get_type_hints(Preset)[name]) or (get_type_hints(Preset)[name],))]
    assert numbers, sorted(set(numbers) - set(_MAXIMUM))
    assert set(numbers) <= set(_MAXIMUM), sorted(set(numbers) - set(_MAXIMUM))
    for name in numbers:
        with pytest.raises(ValueError, match=f"switch '{name}' takes int from"):
            parse_switch(name, _MAXIMUM[name] + 1)


def test_a_renamed_switch_reads_under_its_old_name():
    """history and episodes_k are now named as their settings are (history_length, episodic_k): a --set, a run.json's
    overrides or a checkpoint's switches written with the old names mean the same."""
    assert parse_switches(["history=3", "episodes_k=4"]) == {"history_length": 3, "episodic_k": 4}
    assert parse_switches({"history": None}) == {"history_length": None}
    old = {**switch_values(PRESETS["full_history"]), "history": None, "episodes_k": 7}
    del old["history_length"], old["episodic_k"]
    held = preset_of(old)
    assert held.history_length is None
    assert held.episodic_k == 7


# -- role oracles a preset or a game cannot use (issue 35) -------------------------------------------

@pytest.mark.parametrize(("preset", "switches", "named"), [
    ("ariadne", ["oracle_extraction=true"], "preset 'ariadne' never runs (knowledge_graph=false)"),
    ("react", ["oracle_plan=true"], "preset 'react' never runs (planner=never)"),
    ("agentkit", ["oracle_plan=true"], "preset 'agentkit' never runs (planner=never)"),
    ("arigraph", ["oracle_plan=true", "thoughts=crafter"], "a thought graph chooses its commands"),
])
def test_an_oracle_the_preset_never_runs_is_refused_before_any_write(tmp_path, preset, switches, named):
    """It would change nothing, yet label the run ORACLE: refused where the preset is built, and by eval's plan."""
    with pytest.raises(ValueError, match=re.escape(named)):
        AgentContext(preset=preset, switch_overrides=parse_switches(switches))
    with pytest.raises(EvalError, match=re.escape(named)):
        plan_eval(EvalRequest(suite="stma-cooking", presets=[preset], switches=switches, per_group=1, out=tmp_path / "out"))
    assert not (tmp_path / "out").exists()
    AgentContext(preset="ariadne_full", switch_overrides={"oracle_extraction": True, "oracle_plan": True})  # it runs both


def test_an_oracle_the_game_gives_no_truth_for_is_refused_before_the_run_exists(tmp_path):
    from ariadnegraph.nodes.environment import episode_state

    context = AgentContext(preset="ariadne_full", switch_overrides={"oracle_extraction": True}, run_dir=str(tmp_path))
    with pytest.raises(ValueError, match="only TextWorld games give; crafter gives none"):
        play(Episode("crafter", max_steps=3), context=context, run_id="crafter-oracle")
    assert not list(tmp_path.iterdir())  # no run folder, so no unresumable run
    with pytest.raises(ValueError, match="nethack:challenge gives none"):  # a server's first step checks it too
        episode_state({"env": "nethack:challenge", "max_steps": 3}, context)
    with pytest.raises(EvalError, match="crafter gives none"):
        plan_eval(EvalRequest(suite="crafter", presets=["ariadne_full"], switches=["oracle_extraction=true"], limit=1, out=tmp_path / "out"))
    assert not list(tmp_path.iterdir())
    bad = subprocess.run([ARIADNE, "play", "--env", "crafter", "--preset", "ariadne_full", "--set", "oracle_plan=true",
                          "--run-dir", str(tmp_path)], capture_output=True, text=True, timeout=120)
    assert bad.returncode == 2
    assert bad.stderr.count("\n") == 1
    assert "switch 'oracle_plan' reads the game's truth" in bad.stderr
    assert not list(tmp_path.iterdir())


@pytest.mark.parametrize("assignment", ["thoughts=", "thoughts=  ", "precheck=", "episodic_k="])
def test_a_switch_given_no_value_is_refused(assignment):
    """``--set thoughts=`` played with no thought graph: zero model calls and noop every step."""
    with pytest.raises(ValueError, match=f"switch '{assignment.split('=')[0]}' is given no value"):
        parse_switches([assignment])


@pytest.mark.parametrize(("preset", "switches"), [("agentkit", {"thoughts": None}), ("react", {"react_choice": False}),
                                                  ("ariadne_full", {"planner": "never"})])
def test_switches_that_leave_nothing_choosing_the_commands_are_refused(preset, switches):
    """``thoughts=none`` on agentkit played noop every step with no model call, as ``thoughts=`` did."""
    with pytest.raises(ValueError, match=f"preset '{preset}' as set has nothing that chooses a command"):
        AgentContext(preset=preset, switch_overrides=switches)


def test_an_ablation_cell_set_turns_into_another_keeps_its_own_key_and_row(tmp_path):
    """--set episodic_k=0 makes the AriGraph cell play what 'w/o episodic' plays: both are still played, each with
    its own key (one record each) and its own row; cells --set leaves alone keep the keys they had."""
    plan = plan_eval(EvalRequest(suite="stma-cooking", presets=[], ablate="arigraph", switches=["episodic_k=0"], limit=1, out=tmp_path))
    assert plan.presets == ("AriGraph [episodic_k=0]", "AriGraph w/o exploration [episodic_k=0]", "AriGraph w/o episodic")
    assert len({job.key for job in plan.jobs}) == len(plan.jobs) == 3
    assert len({job.run_id for job in plan.jobs}) == 3
    plain = plan_eval(EvalRequest(suite="stma-cooking", presets=[], ablate="arigraph", limit=1, out=tmp_path))
    unchanged = plan_eval(EvalRequest(suite="stma-cooking", presets=[], ablate="arigraph", switches=["episodic_k=0"], limit=1, out=tmp_path)).jobs[2]
    assert unchanged.key == plain.jobs[2].key  # the cell --set does not change plays (and resumes) as before
