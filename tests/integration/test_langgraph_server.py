"""`langgraph dev` serves the agent: a real server on a free loopback port, driven with langgraph_sdk."""

from __future__ import annotations

import contextlib
import json
import os
import signal
import socket
import subprocess
import sys
import threading
import time
import urllib.error
import urllib.request
import uuid
from collections.abc import Callable
from http.server import ThreadingHTTPServer
from pathlib import Path

import httpx
import pytest

from ariadnegraph.runs import RunDir
from tests.games import arigraph_games_missing

ROOT = Path(__file__).resolve().parents[2]
LANGGRAPH = str(Path(sys.executable).parent / "langgraph")


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def config_in(work: Path, config: str) -> Path:
    """The repository's ``config`` with its paths made absolute, written into ``work``: the server runs in
    ``work``, where the in-memory runtime keeps its threads and checkpoints (``.langgraph_api/``, relative to
    the working directory), so nothing is left in the checkout and a test can read what the server stored."""
    declared = json.loads((ROOT / config).read_text())

    def absolute(path: str) -> str:
        return str(ROOT / path) if path.startswith(".") else path

    declared["dependencies"] = [absolute(d) for d in declared["dependencies"]]
    declared["graphs"] = {name: absolute(path) for name, path in declared["graphs"].items()}
    for key in ("auth", "store", "checkpointer"):
        if key in declared:
            declared[key]["path"] = absolute(declared[key]["path"])
    target = work / f"served-{config}"
    target.write_text(json.dumps(declared))
    return target


@contextlib.contextmanager
def langgraph_dev(
    work: Path, config: str = "langgraph.json", serve: Callable[[int], list[str]] | None = None, **extra_env: str
):
    """`langgraph dev` on a free loopback port, in ``work``, stopped (process group) on exit; ``serve``: the command
    that serves on a given port, in place of ours (the README's line as written)."""
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
    command = serve(port) if serve else [
        LANGGRAPH, "dev", "--port", str(port), "--host", "127.0.0.1", "--no-browser", "--no-reload",
        "--config", str(config_in(work, config))]  # fmt: skip
    process = subprocess.Popen(
        command,
        cwd=work, env=env, stdout=log, stderr=subprocess.STDOUT, start_new_session=True,  # its .langgraph_api/ (threads, checkpoints) in work
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
        with contextlib.suppress(ProcessLookupError):  # (a server that exited: its failure is the one to show)
            os.killpg(process.pid, signal.SIGTERM)
        try:
            process.wait(timeout=20)
        except subprocess.TimeoutExpired:
            os.killpg(process.pid, signal.SIGKILL)
        log.close()


CHEF_FACTS = [("cookbook", "on", "counter"), ("knife", "in", "drawer")]
CHEF_LESSON = "read the cookbook first"


@pytest.fixture(scope="module")
def server(tmp_path_factory):
    """One `langgraph dev` for the tests that need no settings of their own; its long-term Store (the
    CLI's file, ARIADNE_STORE) holds a namespace ``chef`` for the cooking games."""
    from ariadnegraph.memory.longterm import LongTermMemory, Namespace

    work = tmp_path_factory.mktemp("server")
    with LongTermMemory(work / "store.sqlite") as memory:
        memory.add_facts(Namespace("chef", "cooking"), CHEF_FACTS, source="by hand")
        memory.add_lessons(Namespace("chef", "cooking"), [CHEF_LESSON], source="by hand")
    with langgraph_dev(work, ARIADNE_STORE=str(work / "store.sqlite")) as url:
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
    assert values["step"] == 3
    assert values["done"] is True
    assert values["usage"]["planner"]["calls"] >= 1
    run_dir = work / "runs" / thread["thread_id"]
    assert (run_dir / "trajectory.jsonl").read_text().count("\n") == 4  # reset + 3 steps
    answer = client.runs.wait(None, "ask", input={"run_id": thread["thread_id"], "question": "Where am I?"})
    assert answer["answer"]
    # a run named as the CLI names one: a unique prefix of its id, or 'last'
    prefix = client.runs.wait(None, "ask", input={"run_id": thread["thread_id"][:13], "question": "Where am I?"})
    assert prefix["answer"] == answer["answer"]
    assert client.runs.wait(None, "ask", input={"run_id": "last", "question": "Where am I?"})["answer"]
    # a step past the run's last: answered as of that step, at what the run costs, and the answer says so
    past = client.runs.wait(None, "ask", input={"run_id": thread["thread_id"], "question": "Where am I?", "as_of": 2**63 - 1})
    assert past["answer"] == answer["answer"]
    assert past["as_of"] == 3
    assert past["note"] == f"step {2**63 - 1} is past the run's last step, 3: answered as of it"


def test_with_an_api_key_configured_requests_without_it_are_refused(tmp_path):
    from langgraph_sdk import get_sync_client

    with langgraph_dev(tmp_path, ARIADNE_SERVER_API_KEY="s3cret") as url:
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
    assert not interrupted.get("done")
    assert interrupted["step"] < 25
    # resume: a new run on the same thread with no input continues from the last checkpoint
    client.runs.wait(thread["thread_id"], "agent", input=None)
    final = client.threads.get_state(thread["thread_id"])["values"]
    assert final["done"] is True
    assert final["step"] > interrupted["step"]
    recorded = [r["trail"] for r in RunDir.open(work / "runs", thread["thread_id"]).steps()]
    assert interrupted["trail"] == recorded[interrupted["step"]]
    assert final["trail"] == recorded[-1]


def server_error(client, graph: str, payload: dict | None, context: dict | None = None) -> str:
    """Run ``graph`` on a new thread; the run must end in error: return its one-line message."""
    thread = client.threads.create()
    # (a 50-step episode is given a recursion limit too small for it: BAD_RUNS' last case)
    config = {"recursion_limit": 100} if (payload or {}).get("max_steps") == 50 else None
    out = client.runs.wait(thread["thread_id"], graph, input=payload, context=context, config=config, raise_error=False)
    assert [r["status"] for r in client.runs.list(thread["thread_id"])] == ["error"]
    message = out["__error__"]["message"]
    assert "\n" not in message
    assert "internal error" not in message
    return message


BAD_RUNS = [
    ("agent", {"env": "nosuch:x", "max_steps": 3}, None, "unknown game spec prefix 'nosuch'"),
    *([] if arigraph_games_missing() else [("agent", {"env": "arigraph:nope", "max_steps": 3}, None, "nope")]),  # else: not found
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
    # what a client may not choose, and values of the wrong type: one line each, never a Python error
    ("agent", {"env": "cooking:1", "seed": 1, "max_steps": 2}, {"run_dir": "/tmp/elsewhere"}, "'run_dir' is the server's setting"),
    ("agent", {"env": "cooking:1", "seed": 1, "max_steps": 2}, {"model": "openai:gpt-4o-mini", "base_url": "http://127.0.0.1:9/v1"},
     "'base_url' is the server's setting"),
    ("agent", {"env": "cooking:1", "seed": 1, "max_steps": 2}, {"max_replans": "abc"}, "'max_replans' must be an integer or null, got 'abc'"),
    ("agent", {"env": "cooking:1", "seed": 1, "max_steps": 2}, {"preset": ["react"]}, "'preset' must be one of ariadne"),
    ("agent", {"env": "cooking:1", "seed": 1, "max_steps": 2, "run_id": 7}, None, "invalid run id 7"),
    ("agent", {"env": "cooking:1", "seed": 1, "max_steps": 2, "run_id": "../up"}, None, "invalid run id '../up'"),
    ("agent", {"env": 5}, None, "game spec must look like PREFIX:NAME, got 5"),
    ("agent", {"env": "cooking:1", "seed": 1}, None, "the episode input needs 'max_steps'"),
    ("agent", {"env": "cooking:1", "seed": 1, "max_steps": 2}, {"switch_overrides": {"thoughts": "/etc/passwd"}},
     "switch 'thoughts' takes the name of a built-in thought graph"),
    ("agent", {"env": "cooking:1", "seed": 1, "max_steps": 2}, {"switch_overrides": {"episodic_k": 10**9}}, "switch 'episodic_k' takes int from 0 to 100"),
    ("ask", {"run_id": ["x"], "question": "Where am I?"}, None, "ask needs a run_id (text), got ['x']"),
    ("ask", {"run_id": "x", "question": "Where am I?", "as_of": "later"}, None, "as_of must be a step number"),
    ("ask", {"run_id": "x", "question": "Where am I?"}, {"run_dir": "/tmp"}, "'run_dir' is the server's setting"),
    # a recursion limit that cannot reach the episode's end is refused before the first step
    ("agent", {"env": "cooking:1", "seed": 1, "max_steps": 50}, None, "needs a recursion limit of at least"),
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


def reconnected(client, thread: str, within: float = 120.0) -> dict:
    """The thread's state once the server's connection pool is back after a database restart: the pool retries
    with a growing pause, so the first requests may fail for some seconds (on a busy machine, tens of seconds)."""
    from langgraph_sdk.errors import InternalServerError

    deadline = time.monotonic() + within
    while True:
        try:
            return client.threads.get_state(thread)
        except InternalServerError:
            if time.monotonic() > deadline:
                raise
            time.sleep(2)


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


def test_the_server_serves_every_graphs_schemas(server):
    """Studio's input, output and context forms (they were null: pydantic refused typing.TypedDict)."""
    from langgraph_sdk import get_sync_client

    url, _ = server
    client = get_sync_client(url=url)
    for assistant in client.assistants.search():
        schemas = client.assistants.get_schemas(assistant["assistant_id"])
        for kind in ("input_schema", "output_schema", "context_schema"):
            assert schemas[kind], (assistant["graph_id"], kind)
            assert schemas[kind]["properties"], (assistant["graph_id"], kind)
        assert "enum" in schemas["context_schema"]["properties"]["preset"]
        if assistant["graph_id"] == "agent":
            assert {"score", "won", "step"} <= set(schemas["output_schema"]["properties"])
            # the form a person fills: what is required, described, and no field of the CLI's own runs
            assert schemas["input_schema"]["required"] == ["env", "max_steps"]
            split = schemas["input_schema"]["properties"]["split"]["anyOf"]
            assert ["train", "dev", "test"] in [option.get("enum") for option in split]
            assert not {"lessons", "script"} & set(schemas["input_schema"]["properties"])


def test_a_finished_episode_returns_its_result_and_streams_its_steps(server):
    from langgraph_sdk import get_sync_client

    url, _ = server
    client = get_sync_client(url=url)
    thread = client.threads.create()["thread_id"]
    # ariadne_full: a critic judges each command, so verdicts are streamed too
    events = [part.data for part in client.runs.stream(thread, "agent", input={"env": "cooking:1", "seed": 1, "max_steps": 5},
                                                        context={"preset": "ariadne_full"}, stream_mode="custom")
              if part.event == "custom"]
    assert [e["step"] for e in events if e.get("event") == "step"] == [0, 1, 2, 3, 4, 5]
    outcomes = [e for e in events if e["event"] == "step"]
    assert all(e["observation"] for e in outcomes)
    assert outcomes[-1]["done"] is True
    # each step's plan, verdicts and command are streamed after the step before and before its own outcome
    commands = [(i, e) for i, e in enumerate(events) if e["event"] == "command"]
    assert [e["step"] for _, e in commands] == [1, 2, 3, 4, 5]
    for i, command in commands:
        outcome = next(e for e in events[i:] if e["event"] == "step")
        assert outcome["step"] == command["step"]
        assert outcome["last_action"] == command["command"]
        before = events[: events.index(outcome)]
        decided = before[max(j for j, e in enumerate(before) if e["event"] == "step") + 1 :]
        assert decided
        assert all(e["step"] == command["step"] for e in decided)
        assert {e["event"] for e in decided} >= {"verdict", "command"}
    assert any(e["event"] == "plan" and e["steps"] for e in events)
    result = client.runs.wait(client.threads.create()["thread_id"], "agent", input={"env": "cooking:1", "seed": 1, "max_steps": 2})
    assert result["step"] == 2
    assert "history" not in result
    assert "belief" not in result


def test_memory_from_reads_the_servers_store(server):
    """The Store langgraph.json declares is the CLI's long-term memory: a thread seeded from a namespace."""
    from langgraph_sdk import get_sync_client

    from ariadnegraph.memory import WorldMemory

    url, work = server
    client = get_sync_client(url=url)
    thread = client.threads.create()["thread_id"]
    client.runs.wait(thread, "agent", input={"env": "cooking:1", "seed": 1, "max_steps": 2}, context={"memory_from": "chef"})
    assert client.threads.get_state(thread)["values"]["lessons"] == [CHEF_LESSON]
    run = RunDir.open(work / "runs", thread)
    assert run.meta()["recalled"] == {"from": "chef/cooking", "facts": 2, "lessons": 1}
    with WorldMemory.open(run.memory_path) as memory:
        assert {f.triplet for f in memory.as_of(0).facts.values() if f.source is None} == set(CHEF_FACTS)


def history_before(client, thread: str, step: int) -> dict:
    """The checkpoint where step ``step``'s command is about to be played."""
    return next(s for s in client.threads.get_history(thread, limit=1000)
                if s["next"] == ["environment"] and s["values"].get("step") == step - 1)


def test_forks_of_a_finished_and_of_a_paused_thread_keep_the_run_one_history(server):
    """Studio's "edit and re-run": an earlier checkpoint edited (update_state) and continued. The run's
    files and memory follow the branch, and every reader accepts the run."""
    from langgraph_sdk import get_sync_client

    from tests.integration.test_forks import DETOUR, consistent_history

    url, work = server
    client = get_sync_client(url=url)
    game = {"env": "cooking:1", "seed": 1, "max_steps": 8}
    finished = client.threads.create()["thread_id"]
    client.runs.wait(finished, "agent", input=game)
    paused = client.threads.create()["thread_id"]
    client.runs.wait(paused, "agent", input=game, interrupt_after=["memory_update"])
    while client.threads.get_state(paused)["values"]["step"] < 5:
        client.runs.wait(paused, "agent", input=None, interrupt_after=["memory_update"])
    for thread in (finished, paused):
        fork = client.threads.update_state(thread, {"command": DETOUR}, checkpoint_id=history_before(client, thread, 3)["checkpoint"]["checkpoint_id"])
        client.runs.wait(thread, "agent", input=None, checkpoint_id=fork["checkpoint"]["checkpoint_id"])
        final = client.threads.get_state(thread)["values"]
        steps = consistent_history(work / "runs", thread)
        assert steps[3]["action"] == DETOUR
        assert final["done"]
        assert final["trail"] == steps[-1]["trail"]


def test_a_thread_created_again_with_the_same_id_leaves_the_old_run_as_it_was(server):
    from langgraph_sdk import get_sync_client

    url, work = server
    client = get_sync_client(url=url)
    thread = client.threads.create(thread_id=str(uuid.uuid4()))["thread_id"]  # (langgraph dev keeps threads between runs)
    client.runs.wait(thread, "agent", input={"env": "cooking:1", "seed": 1, "max_steps": 3})
    run = work / "runs" / thread
    before = {p: p.read_bytes() for p in run.rglob("*") if p.is_file()}
    client.threads.delete(thread)
    for _ in range(50):  # the deletion may land a moment after the call returns
        try:
            client.threads.create(thread_id=thread)
            break
        except httpx.HTTPStatusError:
            time.sleep(0.2)
    out = client.runs.wait(thread, "agent", input={"env": "cooking:2", "seed": 4, "max_steps": 3}, raise_error=False)
    assert "has already played 3 steps" in out["__error__"]["message"]
    assert {p: p.read_bytes() for p in run.rglob("*") if p.is_file()} == before


def test_a_person_approves_or_replaces_each_command(server):
    from langgraph_sdk import get_sync_client

    url, work = server
    client = get_sync_client(url=url)
    thread = client.threads.create()["thread_id"]
    context = {"approve_commands": True}
    client.runs.wait(thread, "agent", input={"env": "cooking:1", "seed": 1, "max_steps": 3}, context=context)

    def question() -> dict:
        interrupts = client.threads.get_state(thread)["interrupts"]
        assert len(interrupts) == 1
        return interrupts[0]["value"]

    first = question()
    assert first["step"] == 1
    assert first["command"]
    assert first["valid"]
    schema = client.threads.get_state(thread)["interrupts"][0]["response_schema"]
    assert "replace" in json.dumps(schema)
    assert "stop" in json.dumps(schema)
    client.runs.wait(thread, "agent", command={"resume": "accept"})  # approval stays on with no context
    second = question()
    assert second["step"] == 2
    assert second["command"] != "look"
    client.runs.wait(thread, "agent", command={"resume": "reject"})  # not an answer: asked again, nothing played
    assert question()["error"].startswith("answer 'accept', 'stop'")
    assert question()["step"] == 2
    client.runs.wait(thread, "agent", command={"resume": {"type": "replace", "command": "look"}})
    client.runs.wait(thread, "agent", command={"resume": {"type": "accept"}})
    # a person stops another thread's episode at its first question: nothing played, the result says so
    stopped = client.threads.create()["thread_id"]
    client.runs.wait(stopped, "agent", input={"env": "cooking:1", "seed": 1, "max_steps": 3}, context=context)
    client.runs.wait(stopped, "agent", command={"resume": "stop"})
    ended = client.threads.get_state(stopped)
    assert ended["values"]["stopped"]
    assert ended["values"]["step"] == 0
    assert not ended["interrupts"]
    assert RunDir.open(work / "runs", stopped).meta()["result"]["stopped"] is True
    values = client.threads.get_state(thread)["values"]
    actions = [r["action"] for r in RunDir.open(work / "runs", thread).steps()]
    assert values["done"]
    assert actions == [None, first["command"], "look", actions[3]]
    assert values["step"] == 3
    assert not client.threads.get_state(thread)["interrupts"]


def test_the_servers_recursion_limit_fits_long_episodes(server):
    """LangGraph's default (10,011 on a server) ends an episode after ~700 steps; langgraph.json raises it
    for the longest episode, and the environment node checks the budget at the start."""
    from langgraph_sdk import get_sync_client

    url, _ = server
    client = get_sync_client(url=url)
    thread = client.threads.create()["thread_id"]
    client.runs.wait(thread, "agent", input={"env": "crafter", "seed": 1, "max_steps": 10_000}, interrupt_after=["environment"])
    assert client.threads.get_state(thread)["values"]["step"] == 0  # started: the budget held


def test_the_servers_key_and_the_providers_key_go_nowhere_else(tmp_path):
    """With the server's access key, a provider's key, an operator-chosen model endpoint and its key all set,
    the endpoint (a loopback listener) receives only its own key; a client cannot point the model elsewhere,
    neither when a run starts nor when it resumes a paused thread (whose next node calls the model at once);
    no secret is written to the run's files or to the server's threads and checkpoints."""
    from langgraph_sdk import get_sync_client

    from ariadnegraph.testing.openai_server import serve

    operator_endpoint, operator_url = serve()
    client_endpoint, client_url = serve()  # where a client would like the model requests to go
    secrets = ("server-auth-secret", "sk-operator-provider-key", "operator-model-key")
    try:
        with langgraph_dev(tmp_path, ARIADNE_SERVER_API_KEY=secrets[0], OPENAI_API_KEY=secrets[1], ARIADNE_MODEL_API_KEY=secrets[2],
                           ARIADNE_MODEL="openai:scripted", ARIADNE_BASE_URL=operator_url) as url:
            client = get_sync_client(url=url, api_key="server-auth-secret")
            thread = client.threads.create()["thread_id"]
            client.runs.wait(thread, "agent", input={"env": "cooking:1", "seed": 1, "max_steps": 2})
            assert client.threads.get_state(thread)["values"]["step"] == 2
            refused = client.runs.wait(client.threads.create()["thread_id"], "agent", input={"env": "cooking:1", "seed": 1, "max_steps": 2},
                                       context={"base_url": client_url}, raise_error=False)
            assert "'base_url' is the server's setting" in refused["__error__"]["message"]
            # a thread paused where the next node asks the model, resumed with the client's endpoint
            paused = client.threads.create()["thread_id"]
            client.runs.wait(paused, "agent", input={"env": "cooking:1", "seed": 1, "max_steps": 2}, interrupt_after=["memory_update"])
            resumed = client.runs.wait(paused, "agent", input=None, context={"base_url": client_url}, raise_error=False)
            assert "'base_url' is the server's setting" in resumed["__error__"]["message"]
            # a key that is not UTF-8 is refused like any wrong key, without a traceback
            raw = urllib.request.Request(f"{url}/assistants/search", data=b"{}", headers={"Content-Type": "application/json"})
            raw.add_unredirected_header("x-api-key", b"\xff\xfe".decode("latin-1"))
            with pytest.raises(urllib.error.HTTPError) as bad:
                urllib.request.urlopen(raw, timeout=10)
            assert bad.value.code == 401
        keys = {request["authorization"] for request in operator_endpoint.requests}
        log = "".join(p.read_text(errors="replace") for p in tmp_path.glob("server-*.log"))
    finally:
        operator_endpoint.close()
        client_endpoint.close()
    assert keys == {"Bearer operator-model-key"}, keys
    assert not client_endpoint.requests
    assert "UnicodeDecodeError" not in log
    # every file the server and the runs wrote: run.json, trajectories, memories, the server's threads and checkpoints
    written = [p for p in tmp_path.rglob("*") if p.is_file() and not p.name.startswith("server-")]
    assert any(".langgraph_api" in p.parts for p in written)
    assert any(p.name == "run.json" for p in written)
    for path in written:
        data = path.read_bytes()
        assert not any(secret.encode() in data for secret in secrets), path


def test_the_retired_key_variable_keeps_the_server_closed(tmp_path):
    """ARIADNE_API_KEY used to be both the server's key and the models' key: it is refused, not ignored."""
    from langgraph_sdk import get_sync_client

    with langgraph_dev(tmp_path, ARIADNE_API_KEY="old-secret") as url:
        with pytest.raises(httpx.HTTPStatusError) as refused:
            get_sync_client(url=url, api_key="old-secret").assistants.search()
        assert refused.value.response.status_code == 401
        assert "ARIADNE_SERVER_API_KEY" in refused.value.response.text


@pytest.mark.arigraph_games
def test_the_server_outlives_postgres_restarts_and_never_plays_a_step_without_its_checkpoint(tmp_path):
    """langgraph.postgres.json: PostgreSQL restarted between episodes, and stopped mid-episode. New and old
    threads finish once it is back; the interrupted episode stopped at the step whose checkpoint failed."""
    from langgraph_sdk import get_sync_client

    from ariadnegraph.agent.integrity import checked_copies
    from tests.servers import PostgresServer

    try:
        database = PostgresServer().start()
    except RuntimeError as exc:
        pytest.skip(str(exc))
    try:
        with langgraph_dev(tmp_path, config="langgraph.postgres.json", ARIADNE_CHECKPOINTER=database.url) as url:
            client = get_sync_client(url=url)
            # between episodes: a thread paused before the restart continues after it, and a new thread plays
            before = client.threads.create()["thread_id"]
            client.runs.wait(before, "agent", input={"env": "cooking:1", "seed": 1, "max_steps": 3}, interrupt_after=["memory_update"])
            database.stop()
            database.start()
            reconnected(client, before)
            client.runs.wait(before, "agent", input=None)
            assert client.threads.get_state(before)["values"]["step"] == 3
            after = client.threads.create()["thread_id"]
            client.runs.wait(after, "agent", input={"env": "cooking:1", "seed": 1, "max_steps": 2})
            assert client.threads.get_state(after)["values"]["step"] == 2
            # mid-episode: stopped once step 3 is seen
            long = client.threads.create()["thread_id"]
            run = client.runs.create(long, "agent", input={"env": "arigraph:clean", "max_steps": 40}, stream_mode="custom")
            for part in client.runs.join_stream(long, run["run_id"]):
                if part.event == "custom" and part.data.get("step", 0) >= 3:
                    database.stop()
                    break
            client.runs.join(long, run["run_id"])
            assert client.runs.get(long, run["run_id"])["status"] == "error"
            database.start()
            checkpointed = reconnected(client, long)["values"]["step"]
            recorded = len(list(RunDir.open(tmp_path / "runs", long).steps()))
            assert recorded <= checkpointed + 2  # at most the step whose checkpoint failed (played again on resume)
            client.runs.wait(long, "agent", input=None)  # the same thread continues from its last checkpoint
            final = client.threads.get_state(long)["values"]
            assert final["done"]
            assert final["step"] == 40
            fresh = client.threads.create()["thread_id"]  # and a new thread plays
            client.runs.wait(fresh, "agent", input={"env": "cooking:1", "seed": 1, "max_steps": 2})
            assert client.threads.get_state(fresh)["values"]["step"] == 2
        with checked_copies(tmp_path / "runs", [before, after, long, fresh]):
            pass  # every reader accepts every run
    finally:
        database.remove()


# --- the server decides who writes what (issue 35) --------------------------------------------------------


def store_is_read_only_to_clients(client, store: Path) -> None:
    """A client reads the agents' namespaces and nothing else, and writes no namespace at all: the Store file
    holds afterwards what the operator saved."""
    from langgraph_sdk.errors import PermissionDeniedError

    from ariadnegraph.memory.longterm import LongTermMemory, Namespace

    chef = Namespace("chef", "cooking")
    with LongTermMemory(store) as memory:
        before = (memory.facts(chef), memory.lessons(chef), memory.namespaces())
    planted = {"triplet": ["treasure", "in", "oven"], "sources": ["a client"]}
    for write in (lambda: client.store.put_item(list(chef.facts), "treasure|in|oven", planted),
                  lambda: client.store.put_item(list(chef.lessons), "1", {"text": 5}),  # a malformed row
                  lambda: client.store.put_item(["elsewhere"], "k", {"any": "thing"}),  # a namespace no agent reads
                  lambda: client.store.delete_item(list(chef.facts), "cookbook|on|counter")):
        with pytest.raises(PermissionDeniedError) as refused:
            write()
        assert "the long-term Store is the operator's" in refused.value.response.text
    with pytest.raises(PermissionDeniedError):
        client.store.search_items(["elsewhere"])
    with pytest.raises(PermissionDeniedError):
        client.store.get_item(["elsewhere"], "k")
    # what the operator allows: the agents' namespaces, listed and read
    assert all(ns[0] == "ariadne" for ns in client.store.list_namespaces()["namespaces"])
    assert client.store.get_item(list(chef.facts), "cookbook|on|counter")["value"]["triplet"] == ["cookbook", "on", "counter"]
    assert {tuple(i["value"]["triplet"]) for i in client.store.search_items(list(chef.facts))["items"]} == set(CHEF_FACTS)
    with LongTermMemory(store) as memory:
        assert (memory.facts(chef), memory.lessons(chef), memory.namespaces()) == before
        assert not memory.skipped


def test_clients_read_the_agents_namespaces_of_the_store_and_write_none(server):
    """Without an access key (with one: test_with_an_api_key_clients_still_write_no_store)."""
    from langgraph_sdk import get_sync_client

    url, work = server
    client = get_sync_client(url=url)
    store_is_read_only_to_clients(client, work / "store.sqlite")
    # a thread seeded from the namespace gets the operator's facts, nothing planted
    thread = client.threads.create()["thread_id"]
    client.runs.wait(thread, "agent", input={"env": "cooking:1", "seed": 1, "max_steps": 2}, context={"memory_from": "chef"})
    assert RunDir.open(work / "runs", thread).meta()["recalled"] == {"from": "chef/cooking", "facts": 2, "lessons": 1}


def test_with_an_api_key_clients_still_write_no_store(tmp_path):
    from langgraph_sdk import get_sync_client

    from ariadnegraph.memory.longterm import LongTermMemory, Namespace

    with LongTermMemory(tmp_path / "store.sqlite") as memory:
        memory.add_facts(Namespace("chef", "cooking"), CHEF_FACTS, source="by hand")
    with langgraph_dev(tmp_path, ARIADNE_SERVER_API_KEY="s3cret", ARIADNE_STORE=str(tmp_path / "store.sqlite")) as url:
        store_is_read_only_to_clients(get_sync_client(url=url, api_key="s3cret"), tmp_path / "store.sqlite")


def processes_in(work: Path) -> set[int]:
    """The server's processes and the games they started: every process working in ``work``."""
    import psutil

    found = set()
    for process in psutil.process_iter(["pid"]):
        with contextlib.suppress(psutil.Error):
            if process.cwd() == str(work):
                found.add(process.pid)
    return found


def lock_is_free(run_dir: Path, run_id: str) -> bool:
    """Whether another writer (this process: a CLI `play --resume`, say) can take the run's lock."""
    from ariadnegraph.runs import RunBusy

    run = RunDir.open(run_dir, run_id)
    try:
        run.acquire_writer()
    except RunBusy:
        return False
    run.release_writer()
    return True


def test_a_thread_paused_for_approval_holds_no_game_or_lock_and_resumes_or_is_deleted(server):
    """A paused episode releases its game, memory and lock; its next run replays the game from the files."""
    from langgraph_sdk import get_sync_client

    url, work = server
    client = get_sync_client(url=url)
    context = {"approve_commands": True}
    serving = processes_in(work)
    paused = [client.threads.create()["thread_id"] for _ in range(2)]
    for thread in paused:
        client.runs.wait(thread, "agent", input={"env": "cooking:1", "seed": 1, "max_steps": 3}, context=context)
        assert client.threads.get_state(thread)["interrupts"][0]["value"]["step"] == 1
    assert processes_in(work) <= serving  # no game left running for a paused thread
    assert all(lock_is_free(work / "runs", thread) for thread in paused)
    # one paused thread resumed to its end (each answer rebuilds the game from the files), the other deleted
    kept, deleted = paused
    for _ in range(3):
        client.runs.wait(kept, "agent", command={"resume": "accept"}, context=context)
    values = client.threads.get_state(kept)["values"]
    assert values["done"]
    assert values["step"] == 3
    assert len(list(RunDir.open(work / "runs", kept).steps())) == 4
    client.threads.delete(deleted)
    assert processes_in(work) <= serving
    assert lock_is_free(work / "runs", deleted)


def cancelled_with_rollback(client, thread: str, after_steps: int, **run) -> None:
    """A background run cancelled with ``action="rollback"`` once ``after_steps`` steps were played; returns once
    the server has rolled it back (the run is deleted)."""
    started = client.runs.create(thread, "agent", stream_mode="custom", **run)
    seen = 0
    for part in client.runs.join_stream(thread, started["run_id"]):
        if part.event == "custom" and part.data.get("event") == "step":
            seen += 1
            if seen > after_steps:
                client.runs.cancel(thread, started["run_id"], wait=True, action="rollback")
                break
    for _ in range(600):  # the rollback lands once the run's last node is done
        if all(r["run_id"] != started["run_id"] for r in client.runs.list(thread)):
            return
        time.sleep(0.1)
    pytest.fail("the rolled back run is still listed")


def recorded_steps(work: Path, thread: str) -> int:
    return [r["step"] for r in RunDir.open(work / "runs", thread).steps()][-1]


def test_a_rolled_back_run_leaves_files_that_agree_with_the_thread_which_continues(server):
    from langgraph_sdk import get_sync_client

    url, work = server
    client = get_sync_client(url=url)
    game = {"env": "cooking:2", "seed": 2, "max_steps": 6}
    # the thread's first run rolled back: the thread has no state, the run nothing past step 0; the same input plays it
    first = client.threads.create()["thread_id"]
    cancelled_with_rollback(client, first, 2, input=game)
    assert not client.threads.get_state(first)["values"]
    assert recorded_steps(work, first) == 0
    client.runs.wait(first, "agent", input=game)
    # a later run rolled back: the thread is back where it was, and so are the files; the thread continues
    later = client.threads.create()["thread_id"]
    client.runs.wait(later, "agent", input=game, interrupt_after=["memory_update"])
    assert client.threads.get_state(later)["values"]["step"] == 0
    cancelled_with_rollback(client, later, 2, input=None)
    assert client.threads.get_state(later)["values"]["step"] == 0 == recorded_steps(work, later)
    client.runs.wait(later, "agent", input=None)
    for thread in (first, later):
        values = client.threads.get_state(thread)["values"]
        assert values["done"], thread
        assert values["step"] == 6 == recorded_steps(work, thread), thread
        assert values["trail"] == list(RunDir.open(work / "runs", thread).steps())[-1]["trail"]
        assert lock_is_free(work / "runs", thread)


def test_a_new_episode_on_a_thread_that_has_one_is_refused_before_anything_changes(server):
    """A finished thread, and a paused one, given a new input: one-line refusal (409); the thread's state and the
    run's files stay as they were, and the paused thread still continues."""
    from langgraph_sdk import get_sync_client

    url, work = server
    client = get_sync_client(url=url)
    game = {"env": "cooking:1", "seed": 1, "max_steps": 3}
    finished = client.threads.create()["thread_id"]
    client.runs.wait(finished, "agent", input=game)
    paused = client.threads.create()["thread_id"]
    client.runs.wait(paused, "agent", input=game, interrupt_after=["memory_update"])
    for thread, where in ((finished, "finished"), (paused, "at step 0")):
        state = client.threads.get_state(thread)
        files = {p: p.read_bytes() for p in (work / "runs" / thread).rglob("*") if p.is_file()}
        for new_input in (game, {"env": "cooking:2", "seed": 7, "max_steps": 3}):
            with pytest.raises(httpx.HTTPStatusError) as refused:
                client.runs.wait(thread, "agent", input=new_input)
            detail = refused.value.response.json()["detail"]
            assert refused.value.response.status_code == 409
            assert "\n" not in detail
            assert detail == (f"thread {thread} already plays run {thread} ({where}): continue it with no input, or start "
                              "a new episode on a new thread")
            after = client.threads.get_state(thread)
            assert (after["values"], after["next"], after["checkpoint"]) == (state["values"], state["next"], state["checkpoint"])
        assert {p: p.read_bytes() for p in (work / "runs" / thread).rglob("*") if p.is_file()} == files
    client.runs.wait(paused, "agent", input=None)
    values = client.threads.get_state(paused)["values"]
    assert values["done"]
    assert values["step"] == 3 == recorded_steps(work, paused)


def test_the_readmes_client_prints_an_episode_as_it_plays(server, tmp_path):
    """The README's SDK client, run as written against the server (its URL the test server's)."""
    url, _ = server
    readme = (Path(__file__).parents[2] / "README.md").read_text()
    section = readme[readme.index("**Watching an episode from a client.**") :]
    code = section[section.index("```python\n") + len("```python\n") : section.index("```\n", section.index("```python"))]
    assert 'url="http://127.0.0.1:8123"' in code
    assert len(code.splitlines()) <= 10  # the ten-line client
    script = tmp_path / "watch.py"
    script.write_text(code.replace("http://127.0.0.1:8123", url))
    printed = subprocess.run([sys.executable, str(script)], capture_output=True, text=True, timeout=600, check=True).stdout
    lines = printed.splitlines()
    assert lines[0].startswith("step 0 (0/")
    assert any(line.startswith("  command: ") for line in lines)
    assert [line.split()[1] for line in lines if line.startswith("step ")][:4] == ["0", "1", "2", "3"]


def test_a_server_runs_trace_carries_the_episodes_tags_and_names_its_model_calls(tmp_path):
    """The server's runs get no config of the CLI's: the node wrapper tags every node run with the episode (preset,
    game, seed, model) and names each model call after its node and role, as the CLI's traces have them."""
    from langgraph_sdk import get_sync_client

    from tests.integration.test_langsmith_tracing import Recorder, traced_runs

    Recorder.bodies = []
    sink = ThreadingHTTPServer(("127.0.0.1", 0), Recorder)
    threading.Thread(target=sink.serve_forever, daemon=True).start()
    try:
        with langgraph_dev(tmp_path, LANGSMITH_TRACING="true", LANGSMITH_API_KEY="test-key",
                           LANGSMITH_ENDPOINT=f"http://127.0.0.1:{sink.server_address[1]}") as url:
            client = get_sync_client(url=url)
            client.runs.wait(client.threads.create()["thread_id"], "agent", input={"env": "cooking:1", "seed": 1, "max_steps": 2})
            deadline = time.time() + 60  # the tracer sends in the background
            while time.time() < deadline and not any(b"planner (planner)" in b for b in Recorder.bodies):
                time.sleep(0.5)
    finally:
        sink.shutdown()
    runs = traced_runs(Recorder.bodies)
    nodes = [r for r in runs.values() if r["metadata"].get("langgraph_node") == r.get("name") == "planner"]
    assert nodes
    assert all({"preset:ariadne", "env:cooking:1", "seed:1", "model:scripted"} <= r.get("tags", set()) for r in nodes)
    # the game's step and score ride on each node run, as on the CLI's
    assert all({"step", "score"} <= set(r["metadata"]) for r in nodes), nodes
    assert {r["metadata"]["step"] for r in nodes} <= {0, 1}
    assert any(r.get("name") == "planner (planner)" and r.get("run_type") == "llm" for r in runs.values())


def test_the_readmes_server_commands_run_as_written(tmp_path):
    """The README's LangGraph server block, as a newcomer pastes it: its install line names the extra that brings
    `langgraph` (installed here by the test command's own install), and its serve line, run by a shell in a folder laid
    out as the checkout (only the port changed, 8123 may be taken), serves both graphs."""
    import tomllib

    from langgraph_sdk import get_sync_client

    readme = (ROOT / "README.md").read_text()
    section = readme[readme.index("## LangGraph server") :]
    start = section.index("```bash\n") + len("```bash\n")
    install, serve = (line.split("  #")[0].strip() for line in section[start : section.index("```", start)].splitlines())
    assert install == 'pip install -e ".[server]"'
    extras = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]["optional-dependencies"]
    assert any(need.startswith("langgraph-cli[inmem]") for need in extras["server"])
    assert serve.startswith("LANGGRAPH_CLI_NO_ANALYTICS=1 LANGGRAPH_NO_VERSION_CHECK=true langgraph dev ")
    assert " --port 8123 " in f"{serve} "
    for name in ("ariadnegraph", "langgraph.json", "pyproject.toml"):
        (tmp_path / name).symlink_to(ROOT / name)

    def as_written(port: int) -> list[str]:
        return ["bash", "-c", f"{serve.replace('--port 8123', f'--port {port}')} --no-reload"]

    path = f"{Path(LANGGRAPH).parent}{os.pathsep}{os.environ['PATH']}"  # (an activated environment's `langgraph`)
    with langgraph_dev(tmp_path, serve=as_written, PATH=path, ARIADNE_MODEL="scripted") as url:
        client = get_sync_client(url=url)
        assert {a["graph_id"] for a in client.assistants.search()} == {"agent", "ask"}
        result = client.runs.wait(client.threads.create()["thread_id"], "agent",
                                  input={"env": "cooking:1", "seed": 1, "max_steps": 2})  # fmt: skip
        assert result["step"] == 2, result
