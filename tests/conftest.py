"""Shared test fixtures. Every test runs offline; generated files go to a per-session cache."""

from __future__ import annotations

import os

import pytest

os.environ.setdefault("ANONYMIZED_TELEMETRY", "False")
os.environ.setdefault("LANGSMITH_TRACING", "false")
# The plumbing tests (resume, faults, servers, traces, reports, evals) drive every role: a run that names no
# preset plays ariadne_full here. The default preset, ariadne, turns most model roles off; its own tests
# name it and clear this (tests/integration/test_ariadne.py).
os.environ.setdefault("ARIADNE_PRESET", "ariadne_full")


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
