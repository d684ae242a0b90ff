"""A folder's .env (config.read_env_file): the CLI reads it for what the environment does not set, and the command's
flags win over both; the LangGraph server's modules read it as the server starts."""

from __future__ import annotations

import importlib
import os

import pytest

from ariadnegraph.cli import main
from ariadnegraph.config import RUN_DIR_ENV, SERVER_API_KEY_ENV, read_env_file


@pytest.fixture
def folder(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv(RUN_DIR_ENV, "")  # recorded, so what read_env_file sets is undone after the test
    monkeypatch.delenv(RUN_DIR_ENV)
    (tmp_path / ".env").write_text(f"# kept here\n{RUN_DIR_ENV}=from-dotenv\nARIADNE_TEST_SETTING='a b'\n")
    yield tmp_path
    os.environ.pop("ARIADNE_TEST_SETTING", None)


def test_the_env_file_sets_only_what_the_environment_does_not(folder, monkeypatch):
    monkeypatch.setenv("ARIADNE_TEST_SETTING", "from-environment")
    assert read_env_file() == [RUN_DIR_ENV]
    assert os.environ[RUN_DIR_ENV] == "from-dotenv"
    assert os.environ["ARIADNE_TEST_SETTING"] == "from-environment"
    assert read_env_file(folder / "nowhere") == []


@pytest.mark.parametrize(
    ("flags", "where"), [([], "from-dotenv"), (["--run-dir", "from-flag"], "from-flag")]
)
def test_the_cli_reads_the_folders_env_file_under_its_flags(folder, capsys, flags, where):
    assert main(["runs", "list", *flags]) == 0
    assert capsys.readouterr().out.strip() == f"no runs in {where}"


def test_the_server_reads_the_env_file_as_it_starts(folder, monkeypatch):
    monkeypatch.setenv(SERVER_API_KEY_ENV, "")
    monkeypatch.delenv(SERVER_API_KEY_ENV)
    (folder / ".env").write_text(f"{SERVER_API_KEY_ENV}=kept-in-dotenv\n")
    import ariadnegraph.server.auth as server_auth

    importlib.reload(server_auth)
    assert os.environ[SERVER_API_KEY_ENV] == "kept-in-dotenv"


def test_an_env_file_that_is_not_utf8_is_one_line_naming_it(folder, capsys):
    (folder / ".env").write_bytes(("# a long comment\n" * 1000 + f"{RUN_DIR_ENV}=caf\xe9\n").encode("latin-1"))
    for argv in (["runs", "list"], ["games", "list"], ["models", "list"]):
        assert main(argv) == 2
        captured = capsys.readouterr()
        assert captured.out == ""
        assert captured.err == (
            f"ariadne: error: {folder / '.env'} is not UTF-8 text (line 1001: byte 0xe9): save it as UTF-8, or move it "
            "away\n"
        )
    assert RUN_DIR_ENV not in os.environ


def test_an_env_file_never_names_a_program_to_run(folder, monkeypatch, capsys):
    """A cloned folder's .env cannot choose code: not the local model's server, the folder it is run from, a JVM's
    options, nor what the loader, Python or pip load. One warning; everything else in the file still applies."""
    from ariadnegraph.envs.jvm_pool import DEFAULT_JAVA_OPTS, JvmPool
    from ariadnegraph.models.local import engine

    evil = folder / "evil.sh"
    evil.write_text("#!/bin/sh\ntouch pwned\n")
    evil.chmod(0o755)
    programs = {
        "ARIADNE_LLAMA_SERVER": str(evil),
        "ARIADNE_LOCAL_MODELS_DIR": str(folder / "models"),
        "ARIADNE_SCIENCEWORLD_JAVA_OPTS": "-XX:OnError=./evil.sh",
        "LD_PRELOAD": "./evil.so",
        "PYTHONPATH": ".",
        "JAVA_TOOL_OPTIONS": "-javaagent:evil.jar",
        "PIP_INDEX_URL": "http://evil.example/simple",
    }
    for name in programs:
        monkeypatch.setenv(name, "")  # recorded, so whatever is set is undone after the test
        monkeypatch.delenv(name)
    (folder / ".env").write_text(
        "".join(f"{k}={v}\n" for k, v in programs.items()) + f"{RUN_DIR_ENV}=from-dotenv\nLD_LIBRARY_PATH=\n"
    )
    assert main(["runs", "list"]) == 0
    captured = capsys.readouterr()
    assert captured.out.strip() == "no runs in from-dotenv"  # the rest of the file applies
    assert captured.err == (
        f"ariadne: warning: {folder / '.env'} sets {', '.join(sorted(programs))}, which choose a program to run: "
        "ignored (a folder's .env may come with what was cloned there); set them in your environment to use them\n"
    )
    assert not any(name in os.environ for name in [*programs, "LD_LIBRARY_PATH"])
    assert engine.engine_label() != f"llama-server at {evil}"
    assert JvmPool().java_opts == DEFAULT_JAVA_OPTS
    assert not (folder / "pwned").exists()
    monkeypatch.setenv("ARIADNE_LLAMA_SERVER", str(evil))  # the user's own environment still chooses it
    assert engine.engine_label() == f"llama-server at {evil}"
