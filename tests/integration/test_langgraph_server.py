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

import httpx
import pytest

ROOT = Path(__file__).resolve().parents[2]
LANGGRAPH = str(Path(sys.executable).parent / "langgraph")


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


@contextlib.contextmanager
def langgraph_dev(work: Path, config: str = "langgraph.json", **extra_env: str):
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
         "--config", str(ROOT / config)],
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
        with pytest.raises(httpx.HTTPStatusError):
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


def server_error(client, graph: str, payload: dict | None, context: dict | None = None) -> str:
    """Run ``graph`` on a new thread; the run must end in error: return its one-line message."""
    thread = client.threads.create()
    out = client.runs.wait(thread["thread_id"], graph, input=payload, context=context, raise_error=False)
    assert [r["status"] for r in client.runs.list(thread["thread_id"])] == ["error"]
    message = out["__error__"]["message"]
    assert "\n" not in message and "internal error" not in message
    return message


BAD_RUNS = [
    ("agent", {"env": "nosuch:x", "max_steps": 3}, None, "unknown game spec prefix 'nosuch'"),
    ("agent", {"env": "arigraph:nope", "max_steps": 3}, None, "nope"),
    ("agent", {"env": "cooking:1", "seed": 1, "max_steps": -2}, None, "max steps must be an integer between 1 and 100,000"),
    ("agent", {"env": "cooking:1", "seed": 1, "max_steps": 0}, None, "max steps must be an integer between 1 and 100,000"),
    ("agent", {"seed": 1}, None, "needs 'env'"),
    ("agent", {"env": "file:/etc/passwd"}, None, "must be inside its games directory"),
    ("agent", {"env": "file:/no/such/game.z8"}, None, "must be inside its games directory"),
    ("agent", {"env": "cooking:1", "seed": 1, "max_steps": 2}, {"preset": "nope"}, "unknown preset 'nope'"),
    ("agent", {"env": "cooking:1", "seed": 1, "max_steps": 2}, {"model": "gpt-4o"}, "names no provider"),
    ("agent", {"env": "cooking:1", "seed": 1, "max_steps": 2}, {"planner_model": "nowhere"}, "names no provider"),
    ("ask", {"run_id": "no-such-run", "question": "Where am I?"}, None, "no run 'no-such-run'"),
    ("ask", {"run_id": "no-such-run"}, None, "needs a question"),
]


def test_bad_input_through_the_api_is_a_clear_error_and_writes_nothing(server):
    from langgraph_sdk import get_sync_client

    url, work = server
    client = get_sync_client(url=url)
    runs = work / "runs"
    before = sorted(p.name for p in runs.iterdir()) if runs.exists() else []
    for graph, payload, context, fragment in BAD_RUNS:
        assert fragment in server_error(client, graph, payload, context), (graph, payload, context)
    assert (sorted(p.name for p in runs.iterdir()) if runs.exists() else []) == before


def test_a_thread_cannot_continue_another_threads_run(server):
    from langgraph_sdk import get_sync_client

    url, work = server
    client = get_sync_client(url=url)
    owner = client.threads.create()["thread_id"]
    client.runs.wait(owner, "agent", input={"env": "cooking:1", "seed": 1, "max_steps": 2})
    files = {p: p.read_bytes() for p in (work / "runs" / owner).rglob("*") if p.is_file()}
    message = server_error(client, "agent", {"env": "cooking:1", "seed": 1, "max_steps": 2, "run_id": owner})
    assert "belongs to another thread" in message
    assert {p: p.read_bytes() for p in (work / "runs" / owner).rglob("*") if p.is_file()} == files


def test_a_damaged_run_is_refused_through_the_api_and_left_as_it_was(server):
    from langgraph_sdk import get_sync_client

    url, work = server
    client = get_sync_client(url=url)
    thread = client.threads.create()["thread_id"]
    client.runs.wait(thread, "agent", input={"env": "cooking:1", "seed": 1, "max_steps": 2})
    memory = work / "runs" / thread / "memory" / "memory.sqlite"
    memory.write_bytes(b"not a memory any more" * 50)
    before = {p: p.read_bytes() for p in (work / "runs" / thread).rglob("*") if p.is_file()}
    assert "is damaged" in server_error(client, "ask", {"run_id": thread, "question": "Where am I?"})
    assert {p: p.read_bytes() for p in (work / "runs" / thread).rglob("*") if p.is_file()} == before


def test_the_server_keeps_checkpoints_in_postgres(tmp_path, postgres_url):
    """langgraph.postgres.json: a thread's checkpoints land in PostgreSQL; the run's files stay in the run dir."""
    import psycopg
    from langgraph_sdk import get_sync_client

    with langgraph_dev(tmp_path, config="langgraph.postgres.json", ARIADNE_CHECKPOINTER=postgres_url) as url:
        client = get_sync_client(url=url)
        thread = client.threads.create()
        client.runs.wait(thread["thread_id"], "agent", input={"env": "cooking:1", "seed": 1, "max_steps": 2})
        assert client.threads.get_state(thread["thread_id"])["values"]["step"] == 2
    with psycopg.connect(postgres_url) as db:
        stored = db.execute("SELECT count(*) FROM checkpoints WHERE thread_id = %s", (thread["thread_id"],)).fetchone()[0]
    assert stored > 0
    assert (tmp_path / "runs" / thread["thread_id"] / "trajectory.jsonl").read_text().count("\n") == 3
