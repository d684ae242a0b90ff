"""Each setting has one owner: a preset provides what an agent does, a setting given in the context
replaces the preset's value in ``context.switches``, and the nodes read only that."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from ariadnegraph import prompting as p
from ariadnegraph.agent.context import AgentContext
from ariadnegraph.agent.presets import PRESETS, switch_values
from ariadnegraph.graphs import agent
from ariadnegraph.nodes.common import working_memory
from tests.fakes import fake_session


def test_the_preset_decides_unless_a_setting_is_given():
    assert AgentContext(preset="react").switches.qa_turns == 0
    assert AgentContext(preset="davis").switches.qa_turns == 5
    assert AgentContext(preset="react", qa_turns=2).switches.qa_turns == 2  # explicit: it replaces the preset's
    assert AgentContext(preset="full_history").switches.history_length is None
    assert AgentContext(preset="full_history", history_length=3).switches.history_length == 3
    assert AgentContext(preset="rag").switches.episodic_k == 5
    assert AgentContext(preset="rag", episodic_k=1).switches.episodic_k == 1
    assert AgentContext(preset="stma").switches == PRESETS["stma"]  # nothing given: the preset as it is


def test_settings_come_from_the_environment_as_numbers(monkeypatch):
    monkeypatch.setenv("ARIADNE_QA_TURNS", "0")
    monkeypatch.setenv("ARIADNE_HISTORY_LENGTH", "2")
    context = AgentContext(preset="ariadne")
    assert context.qa_turns == 0
    assert context.switches.qa_turns == 0
    assert context.switches.history_length == 2
    monkeypatch.setenv("ARIADNE_EPISODIC_K", "many")
    with pytest.raises(ValueError, match="ARIADNE_EPISODIC_K"):
        AgentContext()


def test_a_value_given_beats_the_environment_even_when_it_is_the_default(monkeypatch, tmp_path):
    """``--preset ariadne`` (the default's name) with ``ARIADNE_PRESET=stma`` set plays ariadne, and an eval's job
    plays the preset it is labelled with; a field not given still falls back to its variable."""
    from ariadnegraph.evals.plan import Job
    from ariadnegraph.evals.provenance import job_context
    from ariadnegraph.evals.suites import Game

    monkeypatch.setenv("ARIADNE_PRESET", "stma")
    monkeypatch.setenv("ARIADNE_QA_TURNS", "2")
    assert AgentContext().preset == "stma"
    assert AgentContext(preset="ariadne").preset == "ariadne"
    assert AgentContext(preset="ariadne").switches.plan_choice is True  # ariadne's, not stma's
    assert AgentContext(preset="ariadne").qa_turns == 2  # not given: its variable
    assert AgentContext(preset="ariadne", qa_turns=None).qa_turns == 2  # None sets nothing: its variable
    assert AgentContext(preset="ariadne", qa_turns=1).qa_turns == 1
    monkeypatch.setenv("ARIADNE_BASE_URL", "http://127.0.0.1:9/v1")
    monkeypatch.setenv("ARIADNE_SWITCH_OVERRIDES", '{"stall_steps": 5}')
    passed_through = AgentContext(preset="ariadne", base_url=None, switch_overrides={})  # a CLI's unset options
    assert passed_through.base_url == "http://127.0.0.1:9/v1"
    assert passed_through.switches.stall_steps == 5
    job = Job("stma-cooking", "ariadne", "scripted", Game("cooking:1", "1", 5, seed=1), 1, None, (), "ariadne", 1)
    assert job_context(job, tmp_path).preset == "ariadne"


def test_the_cli_plays_the_preset_it_is_given_over_the_environment(monkeypatch, tmp_path):
    from ariadnegraph.cli import main

    monkeypatch.setenv("ARIADNE_PRESET", "react")
    for given, played in ((["--preset", "ariadne"], "ariadne"), ([], "react")):
        assert main(["play", "--env", "cooking:1", "--seed", "1", "--max-steps", "1", "--run-dir", str(tmp_path),
                     "--json", "--no-verbose", *given]) == 0
        runs = sorted(tmp_path.iterdir(), key=lambda p: p.stat().st_mtime)
        assert json.loads((runs[-1] / "run.json").read_text())["context"]["preset"] == played


def test_a_negative_setting_is_refused():
    with pytest.raises(ValueError, match="history length"):
        AgentContext(history_length=-1)


def test_routing_and_prompts_read_the_resolved_value():
    def held(context: AgentContext) -> dict:  # the switches as the environment node keeps them in the state
        return {"needs_plan": True, "switches": switch_values(context.switches)}

    assert agent.route_after_aggregator(held(AgentContext(preset="ariadne_full"))) == "world_model_qa"
    assert agent.route_after_aggregator(held(AgentContext(preset="ariadne_full", qa_turns=0))) == "planner"
    history = [{"step": i, "action": f"go {i}", "observation": f"room {i}"} for i in range(8)]
    shown = working_memory({"history": history}, AgentContext(preset="ariadne_full", history_length=2), fake_session())
    assert len(shown[p.HISTORY]) == 2
    whole = working_memory({"history": history}, AgentContext(preset="full_history"), fake_session())
    assert p.FULL_HISTORY in whole
    assert p.HISTORY not in whole


@pytest.mark.parametrize("given, message", [
    ({"max_replans": "abc"}, "context setting 'max_replans' must be an integer or null, got 'abc'"),
    ({"max_replans": True}, "context setting 'max_replans' must be an integer or null"),
    ({"preset": 7}, "context setting 'preset' must be one of ariadne"),
    ({"model": ["openai:gpt-4o"]}, "context setting 'model' must be a string"),
    ({"request_timeout": "soon"}, "context setting 'request_timeout' must be a number"),
    ({"switch_overrides": [1, 2]}, "context setting 'switch_overrides' must be a mapping"),
    ({"approve_commands": "yes"}, "context setting 'approve_commands' must be true or false"),
    ({"qa_turns": 1000}, "qa turns must be between 0 and 20"),
    ({"structured_tries": 0}, "structured tries must be between 1 and 10"),
    ({"memory_from": "../x"}, "memory namespace agent '../x'"),
])
def test_a_context_of_the_wrong_type_or_out_of_range_is_one_clear_line(given, message):
    """A server's client sends the context as JSON: a wrong value is named, never a TypeError in a node."""
    with pytest.raises(ValueError) as refused:
        AgentContext(**given)
    assert message in str(refused.value)
    assert "\n" not in str(refused.value)


def test_only_the_operator_sets_paths_and_endpoints(monkeypatch):
    from ariadnegraph.agent.context import OPERATOR_SETTINGS, ClientSettingRefused, check_client_settings

    assert set(OPERATOR_SETTINGS) == {"run_dir", "base_url"}
    monkeypatch.setenv("ARIADNE_RUN_DIR", "/srv/runs")
    check_client_settings(AgentContext(model="scripted", preset="react"))  # what a client may choose
    check_client_settings(AgentContext(run_dir="/srv/runs"))  # the operator's own value, sent back
    for name, value in (("run_dir", "/tmp/elsewhere"), ("base_url", "http://127.0.0.1:9/v1")):
        with pytest.raises(ClientSettingRefused, match=f"'{name}' is the server's setting"):
            check_client_settings(AgentContext(**{name: value}))


def test_a_secret_is_never_a_setting():
    """The context is a client's form, copied into run.json and checkpoints: no field may hold a key."""
    from dataclasses import fields

    assert not [f.name for f in fields(AgentContext) if "key" in f.name or "secret" in f.name or "token" in f.name]


def test_a_run_that_names_no_model_plays_with_the_default_local_model(monkeypatch):
    """The default is a real model (pulled on first use); the scripted double only ever by name (the tests name it
    through $ARIADNE_MODEL, tests/conftest.py)."""
    from ariadnegraph.config import DEFAULT_MODEL

    monkeypatch.delenv("ARIADNE_MODEL", raising=False)
    assert AgentContext().model == DEFAULT_MODEL == "local:qwen2.5-coder-1.5b"
    monkeypatch.setenv("ARIADNE_MODEL", "scripted")
    assert AgentContext().model == "scripted"
    assert AgentContext(model="openai:gpt-4o-mini").model == "openai:gpt-4o-mini"


@pytest.mark.parametrize("blank", ["", " ", "\t\n"])
def test_a_blank_setting_is_an_unset_one(monkeypatch, tmp_path, blank):
    """ARIADNE_MODEL=" " plays the default model, as unset does (it said "no model given"); so does every other
    ARIADNE_* setting: the context's fields and the paths, URLs and keys config reads."""
    from dataclasses import fields

    from ariadnegraph import config
    from ariadnegraph.envs.jvm_pool import DEFAULT_JAVA_OPTS, JvmPool
    from ariadnegraph.models.local import engine

    monkeypatch.chdir(tmp_path)
    names = [f"ARIADNE_{f.name.upper()}" for f in fields(AgentContext)]
    names += [config.GAMES_DIR_ENV, config.CACHE_DIR_ENV, config.STORE_ENV, config.EMBEDDINGS_ENV, config.CHECKPOINTER_ENV,
              config.MODEL_API_KEY_ENV, config.LOCAL_ENGINE_ENV, config.LLAMA_SERVER_ENV, config.SCIENCEWORLD_JAVA_OPTS_ENV,
              "ARIADNE_SCIENCEWORLD_JVM_MAX_MB", "ARIADNE_CHROMA_URL"]
    for name in names:
        monkeypatch.delenv(name, raising=False)
    unset = AgentContext()
    for name in names:
        monkeypatch.setenv(name, blank)
    assert AgentContext() == unset
    assert AgentContext().model == config.DEFAULT_MODEL
    assert config.run_dir() == Path("runs")
    assert config.memory_store_path().name == config.STORE_FILE
    assert config.cache_dir() == Path.home() / ".cache" / "ariadnegraph"
    assert (config.checkpointer_url(), config.model_api_key(), config.embeddings_setting()) == (None, None, None)
    assert engine.chosen_engine() in engine.ENGINES
    assert not engine.engine_label().startswith("llama-server at")
    assert JvmPool().java_opts == DEFAULT_JAVA_OPTS
    assert JvmPool().max_rss_mb == 1536.0
    assert list(tmp_path.iterdir()) == []  # no folder named ' ' made for a blank path
