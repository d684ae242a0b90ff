"""`ariadne eval` refuses what its episodes could not use before it writes anything: a Ray address nothing
answers at (or that is not host:port / ray://host:port), embeddings that cannot be built, a PostgreSQL
checkpointer that cannot be reached. Each is one line, exit 2, and the output folder is never made."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from tests.servers import free_port

ARIADNE = str(Path(sys.executable).parent / "ariadne")
SMALL = ["eval", "stma-cooking", "--preset", "react", "--model", "scripted", "--levels", "1", "--games", "1"]


def eval_cli(out: Path, *args: str, env: dict | None = None) -> subprocess.CompletedProcess:
    return subprocess.run([ARIADNE, *SMALL, "--out", str(out), *args], capture_output=True, text=True, timeout=600,
                          env={**os.environ, **(env or {})})


def refused_in_one_line(result: subprocess.CompletedProcess, out: Path, *words: str) -> None:
    assert result.returncode == 2, result.stderr[-2000:]
    assert result.stderr.count("\n") == 1, result.stderr[-2000:]
    assert result.stderr.startswith("ariadne: error:"), result.stderr[-2000:]
    assert all(word in result.stderr for word in words), result.stderr
    assert not out.exists()  # neither OUT/.lock nor OUT/runs


def test_a_ray_address_nothing_listens_at_is_refused_before_any_write(tmp_path: Path) -> None:
    pytest.importorskip("ray")
    port = free_port()  # just freed: nothing listens there
    for address in (f"127.0.0.1:{port}", f"ray://127.0.0.1:{port}"):
        out = tmp_path / "out"
        refused_in_one_line(eval_cli(out, "--backend", "ray", "--address", address), out, f"no Ray cluster answers at {address}")


@pytest.mark.parametrize("address", ["127.0.0.1", "http://127.0.0.1:6379", "127.0.0.1:port", "127.0.0.1:70000"])
def test_a_malformed_ray_address_is_refused_before_any_write(tmp_path: Path, address: str) -> None:
    pytest.importorskip("ray")
    out = tmp_path / "out"
    refused_in_one_line(eval_cli(out, "--backend", "ray", "--address", address), out, "--address takes host:port or ray://host:port")


@pytest.mark.parametrize("embeddings", ["nonsense", "nosuchprovider:model"])
def test_bad_embeddings_are_refused_before_any_write(tmp_path: Path, embeddings: str) -> None:
    out = tmp_path / "out"
    refused_in_one_line(eval_cli(out, "--embeddings", embeddings), out, embeddings)
    refused_in_one_line(eval_cli(out, env={"ARIADNE_EMBEDDINGS": embeddings}), out, embeddings)


def test_an_unreachable_postgres_checkpointer_is_refused_before_any_write(tmp_path: Path) -> None:
    pytest.importorskip("psycopg")
    out = tmp_path / "out"
    url = f"postgresql://postgres@127.0.0.1:{free_port()}/postgres"
    refused_in_one_line(eval_cli(out, "--checkpointer", url), out, "cannot be used")
    refused_in_one_line(eval_cli(out, env={"ARIADNE_CHECKPOINTER": url}), out, "cannot be used")
