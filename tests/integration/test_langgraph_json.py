"""langgraph.json must load: every graph it names imports and is a compiled LangGraph graph."""

from __future__ import annotations

import asyncio
import importlib.util
import json
import os
import subprocess
import sys
from pathlib import Path

from langgraph.pregel import Pregel
from langgraph_sdk.runtime import _ReadRuntime

ROOT = Path(__file__).resolve().parents[2]


def load_graph(reference: str) -> Pregel:
    """The graph ``reference`` names, as the server gets it: a compiled graph, or what a graph factory (a context
    manager taking the run's config and the server's runtime) yields when the server reads it."""
    path, _, attribute = reference.partition(":")
    name = f"lg_{Path(path).stem}"  # registered like the LangGraph server does, so type hints resolve
    spec = importlib.util.spec_from_file_location(name, ROOT / path)
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    spec.loader.exec_module(module)
    declared = getattr(module, attribute)
    if isinstance(declared, Pregel):
        return declared

    async def read() -> Pregel:
        async with declared({"configurable": {}}, _ReadRuntime(access_context="assistants.read", store=None)) as graph:
            return graph

    return asyncio.run(read())


CONFIGS = ("langgraph.json", "langgraph.postgres.json")


def test_every_declared_graph_loads_from_its_file():
    config = json.loads((ROOT / "langgraph.json").read_text())
    assert config["graphs"], "langgraph.json declares no graph"
    for name, reference in config["graphs"].items():
        graph = load_graph(reference)
        assert isinstance(graph, Pregel), name
        assert graph.get_graph().nodes, name


def test_every_declared_graph_has_its_input_output_and_context_schemas():
    """Studio draws its forms from these; the server serves null (no form) when one raises, as all of them
    did with typing.TypedDict on Python 3.11."""
    from ariadnegraph.agent.presets import PRESETS

    for config_name in CONFIGS:
        config = json.loads((ROOT / config_name).read_text())
        assert config["python_version"] == f"{sys.version_info.major}.{sys.version_info.minor}"
        for name, reference in config["graphs"].items():
            graph = load_graph(reference)
            schemas = {kind: getattr(graph, f"get_{kind}_jsonschema")() for kind in ("input", "output", "context")}
            for kind, schema in schemas.items():
                assert schema, (config_name, name, kind)
                assert schema.get("properties"), (config_name, name, kind)
            context = schemas["context"]["properties"]
            assert context["preset"]["enum"] == list(PRESETS)
            assert context["tool_calling"]["enum"] == ["auto", "native", "json"]
            assert context["run_dir"].get("readOnly")
            assert context["base_url"].get("readOnly")
            assert not any("key" in field for field in context), "a secret is never a form field"
            outputs = set(schemas["output"]["properties"])
            if name == "agent":
                assert {"run_id", "score", "max_score", "won", "step", "usage"} <= outputs
                assert "history" not in outputs
                assert "env" in schemas["input"]["properties"]
            else:
                assert outputs == {"answer", "turns", "as_of", "note"}  # as_of: the step answered (the run's last, past it)
                assert schemas["input"]["properties"]["question"]["type"] == "string"


def test_the_server_has_a_store_and_a_recursion_limit_for_long_episodes():
    from ariadnegraph.agent.context import AgentContext
    from ariadnegraph.agent.episode_input import MAX_STEPS_LIMIT, recursion_limit

    for config_name in CONFIGS:
        config = json.loads((ROOT / config_name).read_text())
        assert config["store"]["path"].endswith("server/store.py:long_term_store")
        assert int(config["env"]["LANGGRAPH_DEFAULT_RECURSION_LIMIT"]) >= recursion_limit(AgentContext(), MAX_STEPS_LIMIT)


def test_agent_graph_has_every_role_and_the_replanning_edges():
    graph = load_graph(json.loads((ROOT / "langgraph.json").read_text())["graphs"]["agent"]).get_graph()
    roles = {"environment", "summarizer", "relation_retriever", "memory_update", "retriever", "aggregator",
             "world_model_qa", "planner", "critic", "actor", "finish"}
    assert roles <= set(graph.nodes)
    edges = {(e.source, e.target, e.conditional) for e in graph.edges}
    assert ("critic", "planner", True) in edges
    assert ("critic", "actor", True) in edges
    assert ("aggregator", "world_model_qa", True) in edges
    assert ("aggregator", "critic", True) in edges
    assert ("planner", "critic", True) in edges
    assert ("planner", "actor", True) in edges
    assert ("actor", "environment", True) in edges
    assert ("environment", "summarizer", True) in edges
    assert ("actor", "planner", True) in edges  # a plan step the actor sends back (ariadne)
    assert ("memory_update", "finish", True) in edges
    assert ("finish", "__end__", False) in edges


def test_ask_graph_is_the_tool_loop():
    graph = load_graph(json.loads((ROOT / "langgraph.json").read_text())["graphs"]["ask"]).get_graph()
    edges = {(e.source, e.target, e.conditional) for e in graph.edges}
    assert ("think", "tools", True) in edges
    assert ("tools", "think", False) in edges


def test_the_deployment_image_is_generated_offline_with_java_and_a_data_volume(tmp_path):
    """`langgraph up` / `langgraph build` need Docker (absent here); `langgraph dockerfile` writes the same
    Dockerfile from langgraph.json, so the config is validated by the real CLI and the image's extras
    (Java 17 for ScienceWorld, run/cache/games folders under one volume) are checked."""
    out = tmp_path / "Dockerfile"
    env = {**os.environ, "LANGGRAPH_CLI_NO_ANALYTICS": "1", "LANGGRAPH_NO_VERSION_CHECK": "true"}
    result = subprocess.run([str(Path(sys.executable).parent / "langgraph"), "dockerfile", "-c", str(ROOT / "langgraph.json"),
                             str(out)], cwd=ROOT, capture_output=True, text=True, timeout=120, env=env)
    assert result.returncode == 0, result.stdout[-2000:] + result.stderr[-2000:]
    dockerfile = out.read_text()
    assert dockerfile.startswith("FROM langchain/langgraph-api:3.11")
    assert "openjdk-17-jre-headless" in dockerfile
    assert "ARIADNE_RUN_DIR=/data/runs" in dockerfile
    graphs = json.loads(next(line for line in dockerfile.splitlines() if line.startswith("ENV LANGSERVE_GRAPHS="))
                        .split("=", 1)[1].strip("'"))
    assert set(graphs) == set(json.loads((ROOT / "langgraph.json").read_text())["graphs"])
    assert "ENV LANGGRAPH_AUTH=" in dockerfile
    assert "server/auth.py:auth" in dockerfile
