"""The `ariadne` command: real subprocesses, offline, every user error is one line and writes nothing."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

ARIADNE = str(Path(sys.executable).parent / "ariadne")


def run(*args: str, cwd: Path | None = None) -> subprocess.CompletedProcess:
    return subprocess.run([ARIADNE, *args], capture_output=True, text=True, timeout=300, cwd=cwd, env=os.environ.copy())


def assert_one_line_error(result: subprocess.CompletedProcess, fragment: str) -> None:
    assert result.returncode == 2, result.stderr
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1, result.stderr
    assert lines[0].startswith("ariadne: error:"), result.stderr
    assert fragment in lines[0]


@pytest.mark.arigraph_games
def test_games_list_names_every_game_and_generator():
    result = run("games", "list")
    assert result.returncode == 0, result.stderr
    specs = [line.split()[0] for line in result.stdout.splitlines()]
    for spec in ("arigraph:hunt", "arigraph:hunt_hard", "arigraph:cook", "arigraph:cook_hard", "arigraph:cook_hardest",
                 "arigraph:clean", "arigraph:cook_1_9_2", "arigraph:cook_rl_baseline"):
        assert spec in specs
    joined = " ".join(specs)
    for prefix in ("cooking:", "treasure:", "coin:", "file:"):
        assert prefix in joined
    assert sum(s.startswith("scienceworld:") for s in specs) == 30
    assert "scienceworld:boil" in specs


@pytest.mark.parametrize(
    ("spec", "fragment"),
    [("cooking:9", "level"), ("file:/nope.z8", "/nope.z8"), ("nosuch:x", "nosuch"),
     pytest.param("arigraph:nope", "nope", marks=pytest.mark.arigraph_games)],
)
def test_play_with_a_bad_env_fails_in_one_line_and_writes_nothing(tmp_path, spec, fragment):
    result = run("play", "--env", spec, "--run-dir", str(tmp_path / "runs"))
    assert_one_line_error(result, fragment)
    assert not (tmp_path / "runs").exists() or not any((tmp_path / "runs").iterdir())


@pytest.mark.parametrize(("damage", "said"), [("story-cut-short", "is cut short"), ("story-garbled", "is damaged"),
                                             ("json-of-another-game", "mine.json is not the .json of mine.z8")])
def test_a_file_game_cut_short_or_with_another_games_json_is_refused_before_a_run_exists(tmp_path, damage, said):
    """Only starting the game shows a .json that is not the story's own: it is started before the run is written."""
    import shutil

    from ariadnegraph.envs import make

    story, other = (make(f"cooking:{level}", seed=1).path for level in (1, 3))
    game = tmp_path / "mine.z8"
    shutil.copyfile(story, game)
    shutil.copyfile((other if damage == "json-of-another-game" else story).with_suffix(".json"), game.with_suffix(".json"))
    if damage == "story-cut-short":
        game.write_bytes(story.read_bytes()[:20_000])
    if damage == "story-garbled":  # one bit of the story flipped: it would play until the game reached it
        data = bytearray(story.read_bytes())
        data[len(data) // 2] ^= 1
        game.write_bytes(bytes(data))
    result = run("play", "--env", f"file:{game}", "--max-steps", "2", "--run-dir", str(tmp_path / "runs"))
    assert_one_line_error(result, said)
    assert not (tmp_path / "runs").exists() or not any((tmp_path / "runs").iterdir())


def test_games_make_prints_the_cached_game_path(tmp_path):
    result = run("games", "make", "cooking", "--level", "1", "--seed", "11", "--out", str(tmp_path))
    assert result.returncode == 0, result.stderr
    path = Path(result.stdout.strip().splitlines()[-1])
    assert path.suffix == ".z8"
    assert path.is_file()
    assert path.parent == tmp_path
    assert_one_line_error(run("games", "make", "cooking", "--level", "9"), "level")


def test_games_fetch_offline_fails_clearly_and_changes_nothing(tmp_path):
    result = run("games", "fetch", "arigraph", "--dest", str(tmp_path / "games"))
    assert_one_line_error(result, "cannot download arigraph games")
    assert not (tmp_path / "games").exists()


def without_provider_keys() -> dict[str, str]:
    return {k: v for k, v in os.environ.items() if k not in ("OPENAI_API_KEY", "ARIADNE_MODEL_API_KEY", "ARIADNE_BASE_URL")}


def test_provider_embeddings_without_a_key_are_one_line_on_play_and_eval(tmp_path):
    embeddings = "openai:text-embedding-3-small"
    for command in (["play", "--env", "cooking:1", "--max-steps", "2", "--run-dir", str(tmp_path / "runs")],
                    ["eval", "stma-cooking", "--preset", "react", "--levels", "1", "--games", "1", "--out", str(tmp_path / "out")]):
        result = subprocess.run([ARIADNE, *command, "--embeddings", embeddings], capture_output=True, text=True, timeout=300,
                                env=without_provider_keys())
        assert_one_line_error(result, f"embeddings '{embeddings}' cannot be built: Missing credentials")
        assert "Traceback" not in result.stderr
    assert not (tmp_path / "out").exists()
    assert not (tmp_path / "runs").exists() or not any((tmp_path / "runs").iterdir())


def test_an_api_key_without_a_server_to_send_it_to_is_refused(tmp_path):
    result = subprocess.run([ARIADNE, "play", "--env", "cooking:1", "--model", "openai:gpt-4o-mini", "--api-key", "sk-x",
                             "--run-dir", str(tmp_path / "runs")], capture_output=True, text=True, timeout=120, env=without_provider_keys())
    assert_one_line_error(result, "--api-key is the key of the --base-url server")
    assert not (tmp_path / "runs").exists()


def provider_failures() -> dict[str, BaseException]:
    import httpx
    import openai
    from langchain_core.exceptions import ModelError

    request = httpx.Request("POST", "http://127.0.0.1:9/v1/chat/completions")
    return {
        "OpenAIError": openai.OpenAIError("Missing credentials. Please pass an `api_key`"),
        "AuthenticationError": openai.AuthenticationError("Incorrect API key provided", response=httpx.Response(401, request=request),
                                                          body=None),
        "APIConnectionError": openai.APIConnectionError(request=request),
        "APITimeoutError": openai.APITimeoutError(request=request),
        "ContentFilterFinishReasonError": openai.ContentFilterFinishReasonError(),
        "httpx.ConnectError": httpx.ConnectError("[Errno 111] Connection refused", request=request),
        "httpx.ReadTimeout": httpx.ReadTimeout("timed out", request=request),
        "httpx.HTTPStatusError": httpx.HTTPStatusError("502 Bad Gateway", request=request, response=httpx.Response(502, request=request)),
        "httpx.InvalidURL": httpx.InvalidURL("Invalid port: 'x'"),
        "httpx.ConnectError without its request": httpx.ConnectError("[Errno 111] Connection refused"),
        "ModelError": ModelError("the provider refused the request"),
    }


@pytest.mark.parametrize("name", list(provider_failures()))
def test_every_provider_error_class_ends_in_one_line(monkeypatch, capsys, name):
    from ariadnegraph import cli
    from ariadnegraph.cli import play

    def fail(args):
        raise provider_failures()[name]

    monkeypatch.setattr(play, "play_command", fail)
    assert cli.main(["play", "--env", "cooking:1"]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1, err
    assert err.startswith("ariadne: error: model provider failed:"), err
