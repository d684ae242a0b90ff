"""What the agent does when its model provider misbehaves, over the real OpenAI wire path.

Each fault of :mod:`ariadnegraph.testing.openai_server` is injected mid-episode into ``ariadne play --model
openai:scripted --base-url ...``. Transient faults are absorbed (retries with backoff, repair or
re-ask) and the episode ends exactly as an undisturbed one; persistent ones end the command in one
line after a bounded number of tries, with the finished steps saved, and ``--resume`` then finishes
the episode with the same result as an undisturbed run.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from ariadnegraph.testing.openai_server import serve

ARIADNE = str(Path(sys.executable).parent / "ariadne")
EPISODE = ["--env", "cooking:1", "--seed", "1", "--max-steps", "6", "--preset", "ariadne_full"]  # every role calls the model
MID_EPISODE = 15  # chat requests let through before the fault: the agent is a few steps in


@pytest.fixture(scope="module")
def server():
    server, _ = serve()
    yield server
    server.close()


def cli_env(**extra: str) -> dict[str, str]:
    import os

    env = {k: v for k, v in os.environ.items() if not k.startswith("ARIADNE_") or k == "ARIADNE_CACHE_DIR"}
    env.update(OPENAI_API_KEY="test", NO_PROXY="127.0.0.1,localhost", no_proxy="127.0.0.1,localhost",
               ARIADNE_MAX_RETRIES="2", ARIADNE_REQUEST_TIMEOUT="1.5", **extra)
    return env


def ariadne(*args: str, timeout: float = 180) -> subprocess.CompletedProcess:
    return subprocess.run([ARIADNE, *args], capture_output=True, text=True, timeout=timeout, env=cli_env())


def play(server, run_dir: Path) -> subprocess.CompletedProcess:
    return ariadne("play", *EPISODE, "--model", "openai:scripted", "--base-url", server.url, "--run-dir", str(run_dir), "--json")


def summary(result: subprocess.CompletedProcess) -> dict:
    assert result.returncode == 0, result.stderr[-2000:]
    return json.loads(result.stdout.strip().splitlines()[-1])


def actions(run_dir: Path, run_id: str) -> list:
    return [json.loads(line)["action"] for line in (run_dir / run_id / "trajectory.jsonl").read_text().splitlines()]


@pytest.fixture(scope="module")
def undisturbed(server, tmp_path_factory):
    run_dir = tmp_path_factory.mktemp("undisturbed")
    server.faults.clear()
    result = summary(play(server, run_dir))
    assert result["steps"] == 6
    assert result["fallbacks"] == 0
    return result, actions(run_dir, result["run_id"])


def same_episode(result: dict, run_dir: Path, undisturbed) -> None:
    reference, reference_actions = undisturbed
    for key in ("score", "max_score", "won", "steps", "fallbacks"):
        assert result[key] == reference[key], key
    assert actions(run_dir, result["run_id"]) == reference_actions


TRANSIENT = {
    "429": ({"kind": "429", "times": 2, "retry_after": 0.4}, "retried after Retry-After"),
    "500": ({"kind": "500", "times": 2}, "retried by the client"),
    "timeout": ({"kind": "delay", "seconds": 3.0, "times": 1}, "timed out, then retried"),
    "disconnect": ({"kind": "disconnect", "times": 2}, "retried as a connection error"),
    "truncated": ({"kind": "truncated", "times": 2}, "unreadable body, retried with backoff"),
    "empty_choices": ({"kind": "empty_choices", "times": 2}, "unreadable reply, retried with backoff"),
    "fenced": ({"kind": "fenced", "times": 5}, "JSON found inside the fence: repaired, no extra call"),
    "ignore_schema": ({"kind": "ignore_schema", "times": 1}, "re-asked with the error"),
}


@pytest.mark.parametrize("name", list(TRANSIENT))
def test_a_transient_fault_mid_episode_leaves_the_episode_unchanged(name, server, tmp_path, undisturbed):
    fault, _ = TRANSIENT[name]
    server.faults.set([{**fault, "after": MID_EPISODE}])
    result = summary(play(server, tmp_path))
    fired = server.faults.faults[0].fired
    requests = list(server.requests)[-server.faults.count:]
    server.faults.clear()
    assert fired == fault["times"], "the fault did not hit the episode"
    same_episode(result, tmp_path, undisturbed)
    reference = undisturbed[0]
    if name in ("fenced",):
        assert result["llm_calls"] == reference["llm_calls"]  # read as it was, not asked again
    if name == "ignore_schema":
        hit = next(r for r in requests if r["fault"])
        # a structured reply is asked again (one more call); a QA turn takes the text as its answer
        assert result["llm_calls"] == reference["llm_calls"] + (1 if hit["response_format"] else 0)
    if name == "429":
        spoiled = [r for r in requests if r["fault"]]
        after = requests[requests.index(spoiled[-1]) + 1]
        assert after["time"] - spoiled[-1]["time"] >= 0.4  # the client waited as told
    if name in ("truncated", "empty_choices"):
        spoiled = [r for r in requests if r["fault"]]
        assert spoiled[1]["n"] == spoiled[0]["n"] + 1  # the same call, sent again
        assert spoiled[1]["time"] - spoiled[0]["time"] >= 0.2  # with backoff


PERSISTENT = {
    "500": {"kind": "500", "times": None},
    "timeout": {"kind": "delay", "seconds": 3.0, "times": None},
    "empty_choices": {"kind": "empty_choices", "times": None},
}


@pytest.mark.parametrize("name", list(PERSISTENT))
def test_a_persistent_fault_gives_up_in_one_line_and_resume_finishes_the_same(name, server, tmp_path, undisturbed):
    server.faults.set([{**PERSISTENT[name], "after": MID_EPISODE}])
    failed = play(server, tmp_path)
    tries = server.faults.faults[0].fired
    server.faults.clear()
    assert failed.returncode == 2
    lines = failed.stderr.strip().splitlines()
    assert len(lines) == 1, failed.stderr[-2000:]
    assert lines[0].startswith("ariadne: error: model provider failed"), failed.stderr[-2000:]
    assert tries == 3  # the first try and ARIADNE_MAX_RETRIES=2 more, then it stopped
    (run_id,) = [p.name for p in tmp_path.iterdir()]
    saved = actions(tmp_path, run_id)
    assert 1 < len(saved) < 7  # steps finished before the fault are on disk
    resumed = summary(ariadne("play", "--resume", run_id, "--run-dir", str(tmp_path), "--json"))
    assert resumed["run_id"] == run_id
    same_episode(resumed, tmp_path, undisturbed)
    assert actions(tmp_path, run_id)[: len(saved)] == saved
