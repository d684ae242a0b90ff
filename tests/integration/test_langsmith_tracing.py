"""LangSmith tracing against a local endpoint that records what it receives: on when the standard
variables are set (node names, tags, metadata arrive), and nothing at all when they are not."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import pytest

ARIADNE = str(Path(sys.executable).parent / "ariadne")


class Recorder(BaseHTTPRequestHandler):
    bodies: list[bytes] = []

    def _reply(self, payload: dict) -> None:
        data = json.dumps(payload).encode()
        self.send_response(200)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    def do_GET(self) -> None:  # /info and friends: an empty answer keeps the client on defaults
        type(self).bodies.append(f"GET {self.path}".encode())
        self._reply({})

    def do_POST(self) -> None:
        length = int(self.headers.get("Content-Length") or 0)
        type(self).bodies.append(f"POST {self.path}\n".encode() + self.rfile.read(length))
        self._reply({})

    do_PATCH = do_POST

    def log_message(self, *args) -> None:
        pass


@pytest.fixture()
def endpoint():
    Recorder.bodies = []
    server = ThreadingHTTPServer(("127.0.0.1", 0), Recorder)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    yield f"http://127.0.0.1:{server.server_address[1]}", Recorder.bodies
    server.shutdown()


def play(tmp_path: Path, env: dict[str, str], *extra: str) -> subprocess.CompletedProcess:
    clean = {k: v for k, v in os.environ.items() if not k.startswith(("LANGSMITH_", "LANGCHAIN_"))}
    return subprocess.run(
        [ARIADNE, "play", "--env", "cooking:1", "--seed", "1", "--max-steps", "2", "--run-dir", str(tmp_path), "--json", *extra],
        capture_output=True, text=True, timeout=300, env={**clean, **env},
    )


def traced_runs(bodies: list[bytes]) -> dict[str, dict]:
    """Runs as LangSmith's multipart ingestion sends them: each run's parts (``post.<id>``,
    ``post.<id>.extra``, ``patch.<id>`` ...) merged by run id into {name, run_type, metadata}."""
    runs: dict[str, dict] = {}
    part = re.compile(rb'name="(post|patch)\.([0-9a-f-]{36})(?:\.(\w+))?"[^\r\n]*\r\n(?:[^\r\n]+\r\n)*\r\n(.*?)\r\n--', re.S)
    for body in bodies:
        for _, run_id, field, payload in part.findall(body):
            try:
                data = json.loads(payload)
            except ValueError:
                continue
            run = runs.setdefault(run_id.decode(), {"metadata": {}})
            if field == b"extra":
                run["metadata"].update(data.get("metadata") or {})
            elif not field and isinstance(data, dict):
                run.update({k: data[k] for k in ("name", "run_type") if k in data})
                run.setdefault("tags", set()).update(data.get("tags") or [])
                run["metadata"].update((data.get("extra") or {}).get("metadata") or {})
    return runs


def test_an_episode_is_traced_with_node_names_tags_and_metadata(tmp_path, endpoint):
    url, bodies = endpoint
    # ariadne_full: every role runs, so each has a run named after it
    result = play(tmp_path, {"LANGSMITH_TRACING": "true", "LANGSMITH_ENDPOINT": url, "LANGSMITH_API_KEY": "test-key",
                             "LANGSMITH_PROJECT": "ariadne-test"}, "--preset", "ariadne_full")
    assert result.returncode == 0, result.stderr[-2000:]
    received = b"\n".join(bodies)
    posts = [b for b in bodies if b.startswith(b"POST")]
    assert posts, "no trace reached the endpoint"
    for node in (b"summarizer", b"relation_retriever", b"planner", b"critic", b"environment"):
        assert node in received, node
    assert b"preset:ariadne_full" in received
    assert b"env:cooking:1" in received
    assert b"ScriptedChatModel" in received  # the model calls themselves
    run_id = json.loads(result.stdout.strip().splitlines()[-1])["run_id"].encode()
    assert run_id in received  # episode metadata travels with the runs

    # The game step and score ride on every node run and on the model and tool calls inside them.
    runs = traced_runs(bodies)
    nodes = [r for r in runs.values() if r["metadata"].get("langgraph_node") == r.get("name")]
    calls = [r for r in runs.values() if r.get("run_type") in ("llm", "tool")]
    assert {r["name"] for r in nodes} >= {"environment", "summarizer", "planner", "critic", "actor", "memory_update"}
    assert calls
    for run in nodes + calls:
        assert {"step", "score"} <= set(run["metadata"]), run
        assert run["metadata"]["run_id"] == run_id.decode()
        assert run["metadata"]["preset"] == "ariadne_full"
    assert {r["metadata"]["step"] for r in nodes if r["name"] == "summarizer"} == {0, 1, 2}
    # model calls named after the node and the role whose model they use; every node run tagged with the episode
    assert {"planner (planner)", "critic (critic)", "summarizer (summarizer)"} <= {r.get("name") for r in calls}
    episode_tags = {"preset:ariadne_full", "env:cooking:1", "seed:1", "model:scripted"}
    assert all(episode_tags <= r.get("tags", set()) for r in nodes), [r.get("tags") for r in nodes][:3]

    # The inner monologue's KG lookups arrive as tool runs named after the tool, inside world_model_qa.
    tools = [r for r in calls if r.get("run_type") == "tool"]
    assert "unexplored_exits" in {r["name"] for r in tools}  # the lookup the scripted double makes before it plans
    for run in tools:
        # the monologue is a graph the node runs: its tools node sits inside world_model_qa's namespace
        namespace = run["metadata"]["langgraph_checkpoint_ns"].split("|")
        assert namespace[0].startswith("world_model_qa:"), namespace
        assert run["metadata"]["langgraph_node"] == "tools", namespace
    assert {r["metadata"]["step"] for r in tools} == {0, 1}  # the last step ends the episode before planning


def test_nothing_is_sent_when_tracing_is_off(tmp_path, endpoint):
    url, bodies = endpoint
    result = play(tmp_path, {"LANGSMITH_ENDPOINT": url, "LANGSMITH_API_KEY": "test-key"})
    assert result.returncode == 0, result.stderr[-2000:]
    assert bodies == []
