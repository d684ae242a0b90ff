"""LangSmith tracing against a local endpoint that records what it receives: on when the standard
variables are set (node names, tags, metadata arrive), and nothing at all when they are not."""

from __future__ import annotations

import json
import os
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


def play(tmp_path: Path, env: dict[str, str]) -> subprocess.CompletedProcess:
    clean = {k: v for k, v in os.environ.items() if not k.startswith(("LANGSMITH_", "LANGCHAIN_"))}
    return subprocess.run(
        [ARIADNE, "play", "--env", "cooking:1", "--seed", "1", "--max-steps", "2", "--run-dir", str(tmp_path), "--json"],
        capture_output=True, text=True, timeout=300, env={**clean, **env},
    )


def test_an_episode_is_traced_with_node_names_tags_and_metadata(tmp_path, endpoint):
    url, bodies = endpoint
    result = play(tmp_path, {"LANGSMITH_TRACING": "true", "LANGSMITH_ENDPOINT": url, "LANGSMITH_API_KEY": "test-key",
                             "LANGSMITH_PROJECT": "ariadne-test"})
    assert result.returncode == 0, result.stderr[-2000:]
    received = b"\n".join(bodies)
    posts = [b for b in bodies if b.startswith(b"POST")]
    assert posts, "no trace reached the endpoint"
    for node in (b"summarizer", b"relation_retriever", b"planner", b"critic", b"environment"):
        assert node in received, node
    assert b"preset:ariadne" in received and b"env:cooking:1" in received
    assert b"ScriptedChatModel" in received  # the model calls themselves
    run_id = json.loads(result.stdout.strip().splitlines()[-1])["run_id"].encode()
    assert run_id in received  # episode metadata travels with the runs


def test_nothing_is_sent_when_tracing_is_off(tmp_path, endpoint):
    url, bodies = endpoint
    result = play(tmp_path, {"LANGSMITH_ENDPOINT": url, "LANGSMITH_API_KEY": "test-key"})
    assert result.returncode == 0, result.stderr[-2000:]
    assert bodies == []
