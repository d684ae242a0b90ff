"""The agent over the wire: langchain-openai against the scripted model behind an OpenAI-compatible
server on a loopback port (``ariadnegraph.testing.openai_server``), exactly as against OpenAI or vLLM.

Offline: the server binds 127.0.0.1 only. Injected faults get one small test each here; what the agent
does about them is tested elsewhere.
"""

from __future__ import annotations

import json
import os
import socket
import subprocess
import sys
import time
import urllib.error
import urllib.request
from pathlib import Path

import openai
import pytest
from langchain_core.messages import AIMessage, HumanMessage, SystemMessage
from langchain_openai import ChatOpenAI

from ariadnegraph import prompting as p
from ariadnegraph.memory import WorldMemory
from ariadnegraph.models import call_structured, load_chat_model
from ariadnegraph.nodes.schemas import Critique, Plan
from ariadnegraph.testing.openai_server import ChatCompletionsServer, FaultPlan, serve, to_langchain_messages
from ariadnegraph.testing.scripted import ScriptedChatModel
from ariadnegraph.tools.kg_tools import KG_TOOLS, TOOL_NAMES, KGReader, call_kg_tool

ARIADNE = str(Path(sys.executable).parent / "ariadne")
GOAL = "Prepare the meal from the recipe and eat it"


@pytest.fixture
def server():
    server, _ = serve()
    yield server
    server.close()


def wire_model(server: ChatCompletionsServer, *, max_retries: int = 0, timeout: float = 10.0):
    return load_chat_model("openai:scripted", base_url=server.url, api_key="test", timeout=timeout, max_retries=max_retries)


def planner_prompt() -> list:
    return [SystemMessage(content="You plan."), HumanMessage(content=p.render_sections({
        p.GOAL: GOAL, p.OBSERVATION: "-= Kitchen =-\nYou see a table. On the table you make out a cookbook.",
        p.LOCATION: "Kitchen", p.INVENTORY: "(unknown)", p.ADMISSIBLE: ["examine cookbook", "go east", "look"],
        p.BELIEF: "", p.MEMORY: [], p.EXPLORATION: [], p.NOTES: [], p.PLAN: [], p.FEEDBACK: "(none)", p.HISTORY: []}))]


def critic_prompt() -> list:
    return [SystemMessage(content="You criticise."), HumanMessage(content=p.render_sections({
        p.GOAL: GOAL, p.OBSERVATION: "You can't go that way.", p.ADMISSIBLE: ["go east"], p.BELIEF: "",
        p.LAST_ACTION: "go north", p.EXPECTED: "Garden", p.ACTUAL: "You can't go that way.", p.PROPOSED_ACTION: "go east"}))]


def http(server: ChatCompletionsServer, method: str, path: str, body: object = None, raw: bytes | None = None, key: str = "test"):
    """(status, headers, body bytes) of one plain HTTP request."""
    data = raw if raw is not None else (json.dumps(body).encode() if body is not None else None)
    request = urllib.request.Request(f"http://127.0.0.1:{server.port}{path}", data=data, method=method,
                                     headers={"Content-Type": "application/json", "Authorization": f"Bearer {key}"})
    try:
        with urllib.request.urlopen(request, timeout=10) as response:
            return response.status, response.headers, response.read()
    except urllib.error.HTTPError as exc:
        return exc.code, exc.headers, exc.read()


def chat_body(**extra) -> dict:
    return {"model": "scripted", "messages": [{"role": "user", "content": "hello"}], **extra}


# -- (1) the model roles over the wire ----------------------------------------------------------------
def test_structured_outputs_travel_as_json_schema_with_the_servers_usage(server):
    model = wire_model(server)
    for schema, prompt in ((Plan, planner_prompt()), (Critique, critic_prompt())):
        result = call_structured(model, schema, prompt)
        local = call_structured(ScriptedChatModel(), schema, prompt)
        assert isinstance(result.value, schema)
        assert result.value == local.value
        assert result.tries == 1
        assert not result.fell_back
        seen = server.requests[-1]
        # langchain-openai's default for ChatOpenAI: response_format json_schema named after the class, no tools.
        assert seen["response_format"] == schema.__name__
        assert seen["tools"] == []
        assert seen["status"] == 200
        assert not result.usage.estimated
        assert (result.usage.prompt_tokens, result.usage.completion_tokens) == (
            seen["usage"]["prompt_tokens"], seen["usage"]["completion_tokens"])
        assert result.usage.prompt_tokens == local.usage.prompt_tokens > 0
    assert server.chat_requests == 2


def test_function_calling_structured_output_also_works(server):
    out = wire_model(server).with_structured_output(Plan, method="function_calling", include_raw=True).invoke(planner_prompt())
    assert out["parsing_error"] is None
    assert out["parsed"].steps[0].action == "examine cookbook"
    assert out["raw"].tool_calls[0]["name"] == "Plan"
    assert server.requests[-1]["tools"] == ["Plan"]
    assert server.requests[-1]["response_format"] is None


def _qa_loop(model, tools, messages, kg: KGReader, turns: int = 4) -> list:
    bound = model.bind_tools(tools)
    for _ in range(turns):
        reply = bound.invoke(messages)
        messages = [*messages, reply]
        if not reply.tool_calls:
            break
        messages += [call_kg_tool(c, kg) for c in reply.tool_calls]
    return messages


def test_kg_tools_return_tool_calls_and_the_loop_matches_the_local_model(server):
    memory = WorldMemory()
    memory.observe(1, "-= Kitchen =-", [("player", "in", "kitchen"), ("kitchen", "has exit", "north"),
                                        ("red potato", "on", "counter"), ("counter", "in", "kitchen")])
    tools = list(KG_TOOLS)
    prompt = [SystemMessage(content="Answer from the knowledge graph."),
              HumanMessage(content=p.render_sections({p.QUESTION: "Where is the red potato?"}))]

    first = wire_model(server).bind_tools(tools).invoke(prompt)
    assert first.tool_calls
    assert {c["name"] for c in first.tool_calls} <= set(TOOL_NAMES)
    assert first.tool_calls[0]["name"] == "where_is"
    assert first.tool_calls[0]["args"] == {"entity": "red potato"}
    assert all(isinstance(c["args"], dict) and c["id"] for c in first.tool_calls)
    assert server.requests[-1]["tools"] == list(TOOL_NAMES)
    assert first.usage_metadata["input_tokens"] == server.requests[-1]["usage"]["prompt_tokens"]

    remote = _qa_loop(wire_model(server), tools, prompt, KGReader(memory))
    local = _qa_loop(ScriptedChatModel(), tools, prompt, KGReader(memory))
    assert isinstance(remote[-1], AIMessage)
    assert not remote[-1].tool_calls
    assert remote[-1].content
    assert [type(m).__name__ for m in remote] == [type(m).__name__ for m in local]
    assert remote[-1].content == local[-1].content
    assert "counter" in remote[-1].content
    assert [[(c["name"], c["args"]) for c in m.tool_calls] for m in remote if isinstance(m, AIMessage)] == \
           [[(c["name"], c["args"]) for c in m.tool_calls] for m in local if isinstance(m, AIMessage)]


@pytest.mark.filterwarnings("ignore:Pydantic serializer warnings")  # the openai SDK's own, on parsed streams
def test_streamed_replies_as_server_sent_events(server):
    model = ChatOpenAI(model="scripted", base_url=server.url, api_key="test", streaming=True, stream_usage=True, max_retries=0)
    chunks = list(model.stream([HumanMessage(content="hello there")]))
    assert "".join(c.content for c in chunks) == "(scripted) hello there"
    reply = model.invoke([HumanMessage(content="hello there")])
    assert reply.usage_metadata["total_tokens"] == server.requests[-1]["usage"]["total_tokens"] > 0
    memory = WorldMemory()
    memory.observe(1, "-= Kitchen =-", [("red potato", "on", "counter")])
    called = model.bind_tools(list(KG_TOOLS)).invoke([HumanMessage(content=p.render_sections({p.QUESTION: "Where is the red potato?"}))])
    assert called.tool_calls[0]["name"] == "where_is"
    assert called.tool_calls[0]["args"] == {"entity": "red potato"}
    assert isinstance(call_structured(model, Plan, planner_prompt()).value, Plan)
    assert all(r["stream"] and r["status"] == 200 for r in server.requests)


def test_models_endpoint_bad_requests_and_api_key():
    server, url = serve(api_key="sekrit")
    try:
        client = openai.OpenAI(base_url=url, api_key="sekrit", max_retries=0)
        assert [m.id for m in client.models.list()] == ["scripted"]
        with pytest.raises(openai.AuthenticationError):
            openai.OpenAI(base_url=url, api_key="wrong", max_retries=0).models.list()
        with pytest.raises(openai.BadRequestError):
            client.chat.completions.create(model="scripted", messages=[])
        assert http(server, "POST", "/v1/chat/completions", raw=b"{not json", key="sekrit")[0] == 400
        assert http(server, "POST", "/v1/chat/completions", raw=b"{not json")[0] == 401
        assert http(server, "GET", "/v1/nowhere")[0] == 404
    finally:
        server.close()
    with ChatCompletionsServer() as bare:  # not serving: only the conversion is used
        response, _ = bare.complete(chat_body(messages=[{"role": "developer", "content": "x"}, {"role": "user", "content": [{"type": "text", "text": "hi"}]}]))
        assert response["choices"][0]["message"]["content"] == "(scripted) hi"
    converted = to_langchain_messages([
        {"role": "assistant", "content": None, "tool_calls": [{"id": "c1", "type": "function", "function": {"name": "where_is", "arguments": '{"entity": "knife"}'}}]},
        {"role": "tool", "tool_call_id": "c1", "content": "knife is on counter"}])
    assert converted[0].tool_calls[0]["args"] == {"entity": "knife"}
    assert converted[1].tool_call_id == "c1"


# -- faults (one small test per kind) -------------------------------------------------------------
def test_fault_specs_by_constructor_and_admin_endpoint(server):
    status, _, body = http(server, "POST", "/admin/faults", {"after": 5, "kind": "429", "times": 2})
    assert status == 200
    assert json.loads(body)["faults"][0]["after"] == 5
    assert http(server, "POST", "/admin/faults", {"kind": "bogus"})[0] == 400
    assert http(server, "POST", "/admin/faults", {"kind": "500", "colour": "red"})[0] == 400
    assert json.loads(http(server, "GET", "/admin/faults")[2])["faults"][0]["kind"] == "429"  # a bad spec changes nothing
    assert json.loads(http(server, "DELETE", "/admin/faults")[2])["faults"] == []
    plan = FaultPlan([{"after": 1, "kind": "500", "times": None}])
    assert [plan.next({}) is not None for _ in range(4)] == [False, True, True, True]
    with ChatCompletionsServer(faults=[{"kind": "empty_choices"}]) as other:
        assert other.faults.faults[0].kind == "empty_choices"


def test_fault_429_with_retry_after_then_recovers(server):
    server.faults.set([{"after": 1, "kind": "429", "times": 2, "retry_after": 0.05}])
    model = wire_model(server, max_retries=2)
    assert model.invoke("one").content
    assert model.invoke("two").content
    assert [r["status"] for r in server.requests] == [200, 429, 429, 200]
    server.faults.set([{"kind": "429", "retry_after": 2}])
    status, headers, body = http(server, "POST", "/v1/chat/completions", chat_body())
    assert status == 429
    assert headers["Retry-After"] == "2"
    assert headers["retry-after-ms"] == "2000"
    assert json.loads(body)["error"]["code"] == "rate_limit_exceeded"
    server.faults.set([{"kind": "429"}])
    with pytest.raises(openai.RateLimitError):
        wire_model(server).invoke("three")


def test_fault_500(server):
    server.faults.set([{"kind": "500"}])
    with pytest.raises(openai.InternalServerError):
        wire_model(server).invoke("hi")
    server.faults.set([{"kind": "500"}])
    assert wire_model(server, max_retries=1).invoke("hi").content  # the client's retry gets through


def test_fault_delay(server):
    server.faults.set([{"kind": "delay", "seconds": 0.3}])
    start = time.monotonic()
    assert wire_model(server).invoke("hi").content
    assert time.monotonic() - start >= 0.3
    server.faults.set([{"kind": "delay", "seconds": 1.0}])
    with pytest.raises(openai.APITimeoutError):
        wire_model(server, timeout=0.2).invoke("hi")


def test_fault_truncated_json(server):
    _, _, whole = http(server, "POST", "/v1/chat/completions", chat_body())
    server.faults.set([{"kind": "truncated"}])
    status, _, cut = http(server, "POST", "/v1/chat/completions", chat_body())
    assert status == 200
    assert 0 < len(cut) < len(whole)
    with pytest.raises(ValueError):
        json.loads(cut)


def test_fault_reply_ignoring_the_schema(server):
    server.faults.set([{"kind": "ignore_schema", "times": 2}])
    schema = {"type": "json_schema", "json_schema": {"name": "Plan", "schema": Plan.model_json_schema()}}
    status, _, body = http(server, "POST", "/v1/chat/completions", chat_body(response_format=schema))
    message = json.loads(body)["choices"][0]["message"]
    assert status == 200
    assert "tool_calls" not in message
    with pytest.raises(ValueError):
        Plan.model_validate_json(message["content"])
    tools = [{"type": "function", "function": {"name": "Plan", "parameters": Plan.model_json_schema()}}]
    message = json.loads(http(server, "POST", "/v1/chat/completions", chat_body(tools=tools, tool_choice="required"))[2])["choices"][0]["message"]
    assert "tool_calls" not in message
    assert message["content"]


def test_fault_empty_choices(server):
    server.faults.set([{"kind": "empty_choices"}])
    status, _, body = http(server, "POST", "/v1/chat/completions", chat_body())
    assert status == 200
    assert json.loads(body)["choices"] == []
    assert json.loads(body)["usage"]["total_tokens"] > 0


def test_fault_disconnect(server):
    server.faults.set([{"kind": "disconnect"}])
    with pytest.raises(openai.APIConnectionError):
        wire_model(server).invoke("hi")
    server.faults.set([{"kind": "disconnect"}])
    assert wire_model(server, max_retries=1).invoke("hi").content


# -- (2)/(3) the CLI through the server ---------------------------------------------------------------
def cli_env() -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("ARIADNE_") or k == "ARIADNE_CACHE_DIR"}
    env.update(OPENAI_API_KEY="test", NO_PROXY="127.0.0.1,localhost", no_proxy="127.0.0.1,localhost")
    return env


def actions(run_dir: Path, run_id: str) -> list:
    lines = (run_dir / run_id / "trajectory.jsonl").read_text().splitlines()
    return [json.loads(line)["action"] for line in lines]


def test_cli_plays_through_the_server_like_the_local_model(server, tmp_path):
    common = ["play", "--env", "cooking:1", "--seed", "1", "--max-steps", "12", "--json", "--preset", "ariadne_full"]  # every role
    runs = {"local": tmp_path / "local", "wire": tmp_path / "wire"}
    commands = {
        "local": [ARIADNE, *common, "--model", "scripted", "--run-dir", str(runs["local"])],
        "wire": [ARIADNE, *common, "--model", "openai:scripted", "--base-url", server.url, "--run-dir", str(runs["wire"])],
    }
    out = {}
    for name, command in commands.items():  # one after the other: the server shares the 2 cores
        result = subprocess.run(command, capture_output=True, text=True, timeout=120, env=cli_env())
        assert result.returncode == 0, result.stderr[-2000:]
        out[name] = json.loads(result.stdout.strip().splitlines()[-1])
    local, wire = out["local"], out["wire"]
    assert wire["model"] == "openai:scripted"
    for key in ("score", "max_score", "won", "steps", "llm_calls", "fallbacks", "prompt_tokens", "completion_tokens"):
        assert wire[key] == local[key], key  # the wire loses nothing the scripted model reads or counts
    assert actions(runs["wire"], wire["run_id"]) == actions(runs["local"], local["run_id"])
    assert wire["steps"] > 0
    assert len(actions(runs["wire"], wire["run_id"])) == wire["steps"] + 1
    assert server.chat_requests == wire["llm_calls"] > 0
    assert {r["status"] for r in server.requests} == {200}
    kinds = {r["response_format"] for r in server.requests} | {t for r in server.requests for t in r["tools"]}
    assert {"Plan", "Critique"} <= kinds
    assert set(TOOL_NAMES) & kinds


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def test_cli_with_no_server_fails_in_one_line_after_bounded_retries(tmp_path):
    url = f"http://127.0.0.1:{free_port()}/v1"
    start = time.monotonic()
    result = subprocess.run([ARIADNE, "play", "--env", "cooking:1", "--seed", "1", "--max-steps", "3", "--model", "openai:scripted",
                             "--base-url", url, "--run-dir", str(tmp_path / "runs")],
                            capture_output=True, text=True, timeout=90, env=cli_env())
    assert time.monotonic() - start < 60
    assert result.returncode == 2, result.stderr[-2000:]
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1, result.stderr[-2000:]
    assert lines[0].startswith("ariadne: error:"), result.stderr[-2000:]
    assert "onnection" in lines[0]


def test_server_runs_as_a_module():
    process = subprocess.Popen([sys.executable, "-m", "ariadnegraph.testing.openai_server", "--port", "0"],
                               stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=cli_env())
    try:
        line = process.stdout.readline().strip()
        assert line.startswith("serving OpenAI chat completions on http://127.0.0.1:"), process.stderr.read() if process.poll() is not None else line
        url = line.rsplit(" ", 1)[-1]
        client = openai.OpenAI(base_url=url, api_key="test", max_retries=0)
        reply = client.chat.completions.create(model="scripted", messages=[{"role": "user", "content": "ping"}])
        assert reply.choices[0].message.content == "(scripted) ping"
        assert reply.usage.total_tokens > 0
    finally:
        process.terminate()
        process.wait(timeout=10)


# -- keys and the README's recipes -----------------------------------------------------------------------
KEY = "sk-loopback-0f3c9e7d2b"  # what a server was started with; must reach it and be written nowhere
DECOY = "sk-provider-key-never-sent"  # OPENAI_API_KEY: OpenAI's, never another server's


def keyless_env() -> dict[str, str]:
    return {**cli_env(), "OPENAI_API_KEY": DECOY}


def files_holding(folder: Path, secret: str) -> list[str]:
    return [str(path) for path in folder.rglob("*") if path.is_file() and secret.encode() in path.read_bytes()]


def one_json_line(result: subprocess.CompletedProcess) -> dict:
    assert result.returncode == 0, result.stderr[-2000:]
    return json.loads(result.stdout.strip().splitlines()[-1])


def test_api_key_reaches_the_server_on_play_ask_and_eval_and_is_written_nowhere(tmp_path):
    server, url = serve(api_key=KEY)
    try:
        runs = tmp_path / "runs"
        refused = subprocess.run([ARIADNE, "play", "--env", "cooking:1", "--max-steps", "2", "--model", "openai:scripted",
                                  "--base-url", url, "--run-dir", str(runs)], capture_output=True, text=True, timeout=120, env=keyless_env())
        assert refused.returncode == 2, refused.stderr[-2000:]
        assert refused.stderr.count("\n") == 1, refused.stderr[-2000:]  # without the key: 401, one line
        assert refused.stderr.startswith("ariadne: error: model provider failed:")
        assert "401" in refused.stderr
        played = one_json_line(subprocess.run(
            [ARIADNE, "play", "--env", "cooking:1", "--max-steps", "3", "--model", "openai:scripted", "--base-url", url, "--api-key", KEY,
             "--run-dir", str(runs), "--json"], capture_output=True, text=True, timeout=120, env=keyless_env()))
        assert played["steps"] == 3
        assert played["llm_calls"] > 0
        asked = subprocess.run([ARIADNE, "ask", played["run_id"], "Where am I?", "--run-dir", str(runs), "--model", "openai:scripted",
                                "--base-url", url, "--api-key", KEY], capture_output=True, text=True, timeout=120, env=keyless_env())
        assert asked.returncode == 0, asked.stderr[-2000:]
        assert asked.stdout.strip(), asked.stderr[-2000:]
        after_ask = len(server.requests)
        out = tmp_path / "eval"
        evaluated = subprocess.run([ARIADNE, "eval", "stma-cooking", "--preset", "react", "--model", "openai:scripted", "--base-url", url,
                                    f"--api-key={KEY}", "--levels", "1", "--games", "1", "--max-steps", "2", "--out", str(out)],
                                   capture_output=True, text=True, timeout=300, env=keyless_env())
        assert evaluated.returncode == 0, evaluated.stderr[-2000:]
        seen = [request["authorization"] for request in server.requests]
    finally:
        server.close()
    assert after_ask > played["llm_calls"]
    assert len(seen) > after_ask
    assert set(seen) == {f"Bearer {KEY}"}
    assert "--api-key=***" in (out / "report.md").read_text()  # the command line is shown without the key
    assert files_holding(runs, KEY) == []
    assert files_holding(out, KEY) == []
    assert files_holding(runs, DECOY) == []
    assert files_holding(out, DECOY) == []


def readme_recipes() -> dict[str, list[str]]:
    """The README's one-line recipes for servers people run, by the server named in the comment above each."""
    import shlex

    text = (Path(__file__).parents[2] / "README.md").read_text()
    block = text.split("#### A server you already run", 1)[1].split("```bash", 1)[1].split("```", 1)[0]
    recipes, server = {}, None
    for line in block.strip().splitlines():
        if line.startswith("#"):
            server = line[1:].split("(")[0].strip()
        elif line.startswith("ariadne "):
            recipes[server] = shlex.split(line)[1:]
    return recipes


def test_the_readmes_server_recipes_play_as_written_against_a_loopback_server(tmp_path):
    recipes = readme_recipes()
    assert set(recipes) == {"Ollama", "vLLM", "llama.cpp"}
    for name, words in recipes.items():
        key = words[words.index("--api-key") + 1] if "--api-key" in words else None
        server, url = serve(api_key=key)  # a server started with a key refuses any other
        try:
            written = words[words.index("--base-url") + 1]
            assert written.startswith("http://localhost:"), written
            assert written.endswith("/v1"), written
            command = [ARIADNE, *(url if word == written else word for word in words),
                       "--max-steps", "2", "--run-dir", str(tmp_path / name), "--json"]
            result = one_json_line(subprocess.run(command, capture_output=True, text=True, timeout=120, env=keyless_env()))
            requests = list(server.requests)
        finally:
            server.close()
        model = words[words.index("--model") + 1]
        assert result["steps"] == 2, name
        assert result["model"] == model, name
        assert len(requests) == result["llm_calls"] > 0, name
        assert {r["model"] for r in requests} == {model.removeprefix("openai:")}, name  # the server's own model name
        assert {r["authorization"] for r in requests} == {f"Bearer {key or 'not-needed'}"}, name
        assert {r["status"] for r in requests} == {200}, name
