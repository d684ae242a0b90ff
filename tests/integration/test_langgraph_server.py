"""`langgraph dev` serves the agent: a real server on a free loopback port, driven with langgraph_sdk."""

from __future__ import annotations

import contextlib
import os
import signal
import socket
import subprocess
import sys
import time
import urllib.error
import urllib.request
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
LANGGRAPH = str(Path(sys.executable).parent / "langgraph")


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


@contextlib.contextmanager
def langgraph_dev(work: Path, **extra_env: str):
    """`langgraph dev` on a free loopback port, stopped (process group) on exit."""
    port = free_port()
    env = {
        **os.environ,
        "LANGGRAPH_CLI_NO_ANALYTICS": "1",
        "LANGGRAPH_NO_VERSION_CHECK": "true",
        "LANGSMITH_TRACING": "false",
        "ARIADNE_RUN_DIR": str(work / "runs"),
        **extra_env,
    }
    log_path = work / f"server-{port}.log"
    log = open(log_path, "w")
    process = subprocess.Popen(
        [LANGGRAPH, "dev", "--port", str(port), "--host", "127.0.0.1", "--no-browser", "--no-reload",
         "--config", str(ROOT / "langgraph.json")],
        cwd=ROOT, env=env, stdout=log, stderr=subprocess.STDOUT, start_new_session=True,
    )
    url = f"http://127.0.0.1:{port}"
    try:
        deadline = time.time() + 120
        while time.time() < deadline:
            if process.poll() is not None:
                pytest.fail(f"langgraph dev exited: {log_path.read_text()[-2000:]}")
            try:
                with urllib.request.urlopen(f"{url}/ok", timeout=2) as response:
                    if response.status == 200:
                        break
            except OSError:
                time.sleep(0.5)
        else:
            pytest.fail(f"langgraph dev did not start: {log_path.read_text()[-2000:]}")
        yield url
    finally:
        os.killpg(process.pid, signal.SIGTERM)
        try:
            process.wait(timeout=20)
        except subprocess.TimeoutExpired:
            os.killpg(process.pid, signal.SIGKILL)
        log.close()


@pytest.fixture(scope="module")
def server(tmp_path_factory):
    work = tmp_path_factory.mktemp("server")
    with langgraph_dev(work) as url:
        yield url, work


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


def test_with_an_api_key_configured_requests_without_it_are_refused(tmp_path):
    from langgraph_sdk import get_sync_client

    with langgraph_dev(tmp_path, ARIADNE_API_KEY="s3cret") as url:
        request = urllib.request.Request(f"{url}/assistants/search", data=b"{}", headers={"Content-Type": "application/json"})
        with pytest.raises(urllib.error.HTTPError) as refused:
            urllib.request.urlopen(request, timeout=10)
        assert refused.value.code in (401, 403)
        with pytest.raises(Exception):
            get_sync_client(url=url, api_key="wrong").assistants.search()
        assistants = get_sync_client(url=url, api_key="s3cret").assistants.search()
        assert {a["graph_id"] for a in assistants} >= {"agent", "ask"}


def test_background_run_streams_is_interrupted_and_resumes(server):
    from langgraph_sdk import get_sync_client

    url, work = server
    client = get_sync_client(url=url)
    thread = client.threads.create()
    run = client.runs.create(thread["thread_id"], "agent", input={"env": "cooking:2", "seed": 2, "max_steps": 25},
                             stream_mode="updates", stream_resumable=True)
    seen_steps = []
    for part in client.runs.join_stream(thread["thread_id"], run["run_id"]):
        if part.event == "updates" and isinstance(part.data, dict) and "environment" in part.data:
            seen_steps.append(part.data["environment"]["step"])
            if len(seen_steps) >= 3:
                client.runs.cancel(thread["thread_id"], run["run_id"], wait=True)
                break
    assert seen_steps[:3] == [0, 1, 2]
    interrupted = client.threads.get_state(thread["thread_id"])["values"]
    assert not interrupted.get("done") and interrupted["step"] < 25
    # resume: a new run on the same thread with no input continues from the last checkpoint
    client.runs.wait(thread["thread_id"], "agent", input=None)
    final = client.threads.get_state(thread["thread_id"])["values"]
    assert final["done"] is True and final["step"] > interrupted["step"]
    assert final["actions"][: len(interrupted["actions"])] == interrupted["actions"]
