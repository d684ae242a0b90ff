"""langgraph.json must load: every graph it names imports and is a compiled LangGraph graph."""

from __future__ import annotations

import importlib.util
import json
from pathlib import Path

from langgraph.pregel import Pregel

ROOT = Path(__file__).resolve().parents[2]


def load_graph(reference: str) -> Pregel:
    path, _, attribute = reference.partition(":")
    spec = importlib.util.spec_from_file_location(f"lg_{Path(path).stem}", ROOT / path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return getattr(module, attribute)


def test_every_declared_graph_loads_from_its_file():
    config = json.loads((ROOT / "langgraph.json").read_text())
    assert config["graphs"], "langgraph.json declares no graph"
    assert (ROOT / config["env"]).is_file()
    for name, reference in config["graphs"].items():
        graph = load_graph(reference)
        assert isinstance(graph, Pregel), name
        assert graph.get_graph().nodes, name


def test_baseline_graph_plays_an_episode(tmp_path, monkeypatch):
    monkeypatch.setenv("ARIADNE_RUN_DIR", str(tmp_path))
    graph = load_graph(json.loads((ROOT / "langgraph.json").read_text())["graphs"]["baseline"])
    result = graph.invoke({"env": "cooking:1", "seed": 2, "max_steps": 3})
    assert result["steps"] == 3 and (tmp_path / result["run_id"] / "trajectory.jsonl").is_file()
