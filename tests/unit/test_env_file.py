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

