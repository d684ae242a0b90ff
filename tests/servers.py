"""Servers the tests start on loopback, on free ports, and stop: PostgreSQL (Debian's binaries).

``.ci/run`` starts one PostgreSQL for the whole run and exports ``ARIADNE_TEST_POSTGRES``; without it the
``postgres_url`` fixture starts its own (as the ``postgres`` user when run as root: initdb refuses root).
"""

from __future__ import annotations

import os
import shutil
import signal
import socket
import subprocess
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

TEST_POSTGRES_ENV = "ARIADNE_TEST_POSTGRES"
_BIN_DIRS = [Path(p) for p in sorted(Path("/usr/lib/postgresql").glob("*/bin"), reverse=True)]


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def _tool(name: str) -> str | None:
    return shutil.which(name) or next((str(d / name) for d in _BIN_DIRS if (d / name).is_file()), None)


def _as_postgres(command: list[str]) -> list[str]:
    return ["runuser", "-u", "postgres", "--", *command] if os.geteuid() == 0 else command


class PostgresServer:
    """A throw-away PostgreSQL on 127.0.0.1 (trust auth) that a test may stop and start again on the same
    port and data (a database restart). Raises RuntimeError when the binaries are missing."""

    def __init__(self) -> None:
        initdb, pg_ctl = _tool("initdb"), _tool("pg_ctl")
        if initdb is None or pg_ctl is None:
            raise RuntimeError("PostgreSQL is not installed (Debian: apt-get install postgresql)")
        self.pg_ctl = pg_ctl
        self.root = Path(tempfile.mkdtemp(prefix="ariadne-pg-"))
        self.data, sockets = self.root / "data", self.root / "sockets"
        sockets.mkdir()
        if os.geteuid() == 0:
            shutil.chown(self.root, "postgres")
            shutil.chown(sockets, "postgres")
        self.port = free_port()
        self.options = f"-p {self.port} -k {sockets} -c listen_addresses=127.0.0.1 -c fsync=off"
        try:
            subprocess.run(_as_postgres([initdb, "-D", str(self.data), "-A", "trust", "-U", "postgres", "--no-sync"]), check=True,
                           capture_output=True, timeout=120)
        except BaseException:
            shutil.rmtree(self.root, ignore_errors=True)
            raise

    @property
    def url(self) -> str:
        return f"postgresql://postgres@127.0.0.1:{self.port}/postgres"

    def start(self) -> "PostgresServer":
        subprocess.run(_as_postgres([self.pg_ctl, "-D", str(self.data), "-o", self.options, "-l", str(self.root / "log"), "-w", "start"]),
                       check=True, capture_output=True, timeout=120)
        return self

    def stop(self, mode: str = "fast") -> None:
        """Stop the server; ``fast`` ends every connection (as a restart does), ``immediate`` as a crash would."""
        subprocess.run(_as_postgres([self.pg_ctl, "-D", str(self.data), "-m", mode, "-w", "stop"]), capture_output=True, timeout=60)

    def remove(self) -> None:
        if self.data.exists():
            self.stop("immediate")
        shutil.rmtree(self.root, ignore_errors=True)


@contextmanager
def postgres_server() -> Iterator[str]:
    """A throw-away PostgreSQL on 127.0.0.1 (trust auth); yields its URL. Raises RuntimeError when the
    binaries are missing."""
    server = PostgresServer()
    try:
        yield server.start().url
    finally:
        server.remove()


class ChromaServer:
    """``chroma run`` on 127.0.0.1 with its data in ``path``; ``kill`` and ``start`` again on the same port."""

    def __init__(self, path: Path, port: int | None = None) -> None:
        self.path, self.port = path, port or free_port()
        self.process: subprocess.Popen | None = None

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    def start(self, timeout: float = 60) -> "ChromaServer":
        import sys
        import time
        import urllib.request

        chroma = Path(sys.executable).parent / "chroma"
        self.process = subprocess.Popen([str(chroma), "run", "--path", str(self.path), "--host", "127.0.0.1", "--port", str(self.port)],
                                        stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, start_new_session=True)
        deadline = time.time() + timeout
        while time.time() < deadline:
            try:
                urllib.request.urlopen(f"{self.url}/api/v2/heartbeat", timeout=1).read()
                return self
            except OSError:
                if self.process.poll() is not None:
                    raise RuntimeError(f"chroma run exited with {self.process.returncode}") from None
                time.sleep(0.2)
        self.kill()  # a server that never answered must not outlive the test that started it
        raise RuntimeError(f"chroma run did not answer within {timeout:g} s")

    def kill(self) -> None:
        if self.process is not None and self.process.poll() is None:
            try:
                os.killpg(self.process.pid, signal.SIGKILL)  # its own session (start_new_session): any child goes too
            except ProcessLookupError:
                pass
            self.process.wait()

    def __enter__(self) -> "ChromaServer":
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.kill()
