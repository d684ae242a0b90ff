"""`langgraph dev` serves the agent: a real server on a free loopback port, driven with langgraph_sdk."""

from __future__ import annotations

import os
import signal
import socket
import subprocess
import sys
import time
import urllib.request
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
LANGGRAPH = str(Path(sys.executable).parent / "langgraph")


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


@pytest.fixture(scope="module")
def server(tmp_path_factory):
    work = tmp_path_factory.mktemp("server")
    port = free_port()
    env = {
        **os.environ,
        "LANGGRAPH_CLI_NO_ANALYTICS": "1",
        "LANGGRAPH_NO_VERSION_CHECK": "true",
        "LANGSMITH_TRACING": "false",
        "ARIADNE_RUN_DIR": str(work / "runs"),
    }
    log = open(work / "server.log", "w")
    process = subprocess.Popen(
        [LANGGRAPH, "dev", "--port", str(port), "--host", "127.0.0.1", "--no-browser", "--no-reload",
         "--config", str(ROOT / "langgraph.json")],
        cwd=ROOT, env=env, stdout=log, stderr=subprocess.STDOUT, start_new_session=True,
    )
    url = f"http://127.0.0.1:{port}"
    deadline = time.time() + 120
    while time.time() < deadline:
        if process.poll() is not None:
            pytest.fail(f"langgraph dev exited: {(work / 'server.log').read_text()[-2000:]}")
        try:
            with urllib.request.urlopen(f"{url}/ok", timeout=2) as response:
                if response.status == 200:
                    break
        except OSError:
            time.sleep(0.5)
    else:
        os.killpg(process.pid, signal.SIGKILL)
        pytest.fail(f"langgraph dev did not start: {(work / 'server.log').read_text()[-2000:]}")
    yield url, work
    os.killpg(process.pid, signal.SIGTERM)
    try:
        process.wait(timeout=20)
    except subprocess.TimeoutExpired:
        os.killpg(process.pid, signal.SIGKILL)
    log.close()


def test_agent_graph_runs_a_thread_through_the_sdk(server):
    from langgraph_sdk import get_sync_client

    url, work = server
    client = get_sync_client(url=url)
    assistants = {a["graph_id"] for a in client.assistants.search()}
    assert {"agent", "ask"} <= assistants
    thread = client.threads.create()
    client.runs.wait(thread["thread_id"], "agent", input={"env": "cooking:1", "seed": 1, "max_steps": 3})
    state = client.threads.get_state(thread["thread_id"])
    values = state["values"]
    assert values["step"] == 3 and values["done"] is True
    assert len(values["actions"]) == 3
    assert values["usage"]["planner"]["calls"] >= 1
    run_dir = work / "runs" / thread["thread_id"]
    assert (run_dir / "trajectory.jsonl").read_text().count("\n") == 4  # reset + 3 steps
    answer = client.runs.wait(None, "ask", input={"run_id": thread["thread_id"], "question": "Where am I?"})
    assert answer["answer"]
