"""A llama.cpp server for one local model, on a free loopback port.

``ensure_server`` is what ``--model local:NAME`` calls: it reuses a healthy server of that model that
is already registered (``ariadne models serve NAME``, or another process of the same run, as eval
workers reuse their parent's), else starts one owned by this process and stopped when the process
exits. Servers are registered in ``<local models dir>/servers/NAME.json``; a file lock around
"find or start" keeps two processes from starting the same one. A reused server goes away with its
owner: a run using it then stops with one provider error line and resumes later.

The server keeps ``SLOTS`` slots over one shared KV cache of ``KV_POOL_CONTEXTS`` model contexts: callers
pin each agent role to a slot (``id_slot``), so consecutive calls of a role reuse the prompt prefix they
share while the pool has room for it; a request holds a lease on its slot while in flight (:mod:`.slots`), since
processes and threads that share a server pin the same slot numbers.
"""

from __future__ import annotations

import atexit
import contextlib
import ctypes
import ctypes.util
import fcntl
import json
import signal
import socket
import subprocess
import sys
import threading
import time
import urllib.error
import urllib.request
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path

from ...config import local_models_dir
from .catalogue import LocalModel, LocalModelError
from .engine import engine_command
from .weights import pid_alive, pull_if_missing, weights_path, weights_refusal

HOST = "127.0.0.1"
SLOTS = 8  # one per node that calls a model (nodes.common.MODEL_NODES); other callers share them
KV_POOL_CONTEXTS = 2  # the shared KV cache holds this many full-length prompts (8 x 16k held 10 GB for a 1.1 GB model)
START_TIMEOUT = 180.0  # seconds for the weights to load and the server to answer /health


class ServerError(LocalModelError):
    """A local model server could not be started or reached."""


@dataclass
class LocalServer:
    model: LocalModel
    port: int
    pid: int
    log: Path
    process: subprocess.Popen | None = None  # set when this process started it (and so stops it)

    @property
    def url(self) -> str:
        """The OpenAI-compatible base URL."""
        return f"http://{HOST}:{self.port}/v1"

    @property
    def slot_locks(self) -> Path:
        """The folder of this server's slot leases (:mod:`.slots`): one per server, so a restart starts clean."""
        return _servers_dir() / f"{self.model.name}-{self.port}.slots"

    @property
    def owned(self) -> bool:
        return self.process is not None

    def healthy(self) -> bool:
        try:
            with urllib.request.urlopen(f"http://{HOST}:{self.port}/health", timeout=2.0) as response:
                return response.status == 200
        except (urllib.error.URLError, OSError, ValueError):
            return False

    def count_tokens(self, text: str) -> int:
        """How many tokens the model reads ``text`` as (the server's own tokenizer)."""
        request = urllib.request.Request(
            f"http://{HOST}:{self.port}/tokenize",
            data=json.dumps({"content": text}).encode(),
            headers={"Content-Type": "application/json"},
        )
        with urllib.request.urlopen(request, timeout=60.0) as response:
            return len(json.load(response)["tokens"])

    def stop(self) -> None:
        """Stop the server if this process started it; a reused one is left to its owner."""
        if self.process is None:
            return
        if self.process.poll() is None:
            self.process.terminate()
            try:
                self.process.wait(timeout=10)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait()
        _unregister(self)
        self.process = None


def _servers_dir() -> Path:
    path = local_models_dir() / "servers"
    path.mkdir(parents=True, exist_ok=True)
    return path


def _registry(model: LocalModel) -> Path:
    return _servers_dir() / f"{model.name}.json"


def _unregister(server: LocalServer) -> None:
    path = _registry(server.model)
    with contextlib.suppress(OSError, ValueError):
        if json.loads(path.read_text()).get("pid") == server.pid:
            path.unlink()


@contextlib.contextmanager
def _start_lock(model: LocalModel) -> Iterator[None]:
    with (_servers_dir() / f"{model.name}.lock").open("w") as handle:
        fcntl.flock(handle, fcntl.LOCK_EX)
        try:
            yield
        finally:
            fcntl.flock(handle, fcntl.LOCK_UN)


def free_port() -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as probe:
        probe.bind((HOST, 0))
        return probe.getsockname()[1]


def running_server(model: LocalModel) -> LocalServer | None:
    """The registered server of ``model`` if it is alive and healthy."""
    path = _registry(model)
    try:
        entry = json.loads(path.read_text())
        server = LocalServer(model, int(entry["port"]), int(entry["pid"]), Path(entry["log"]))
    except (OSError, ValueError, KeyError, TypeError):
        return None
    if entry.get("sha256") != model.sha256 or not pid_alive(server.pid) or not server.healthy():
        return None
    return server


def server_command(model: LocalModel, port: int) -> list[str]:
    return [
        *engine_command(),
        "--model",
        str(weights_path(model)),
        "--alias",
        model.name,
        "--host",
        HOST,
        "--port",
        str(port),
        "--parallel",
        str(SLOTS),
        # One KV pool shared by the slots (a role's cached prefix stays until the pool needs the room), sized
        # for the prompts in flight at once, not SLOTS x the longest: a run asks one role at a time.
        "--kv-unified",
        "--ctx-size",
        str(KV_POOL_CONTEXTS * model.context),
        # By default a new request saves every idle slot to RAM and clears it, and a request pinned to a slot
        # never loads it back: roles that take turns (planner, then actor) would each find their slot empty.
        # Without this, an idle slot keeps its prefix until the pool needs the room.
        "--no-cache-idle-slots",
        "--no-webui",
    ]


def _load_prctl():
    with contextlib.suppress(OSError, AttributeError):
        return ctypes.CDLL(ctypes.util.find_library("c") or "libc.so.6", use_errno=True).prctl
    return None


_PRCTL = _load_prctl()  # loaded here: a child between fork and exec must not load libraries
_PR_SET_PDEATHSIG = 1
# The parent-death signal fires when the *thread* that forked the server ends, so servers are forked
# by this one long-lived thread, not by whichever graph worker thread first asked for a model.
_LAUNCHER = ThreadPoolExecutor(max_workers=1, thread_name_prefix="llama-server-launcher")


def _die_with_parent() -> None:
    """In the child before exec: stop the server when the process that started it dies, even by
    SIGKILL, so a killed run leaves no server behind (it holds nothing worth saving)."""
    if _PRCTL is not None:
        _PRCTL(_PR_SET_PDEATHSIG, int(signal.SIGKILL))


def start_server(model: LocalModel, port: int | None = None, *, register: bool = True) -> LocalServer:
    """Start a server of ``model`` and wait until it answers; raises :class:`ServerError` with the
    last line of its log when it dies or does not come up."""
    if (
        refusal := weights_refusal(model)
    ) is not None:  # read whole: garbled weights are named here, not by a server's nonsense
        raise ServerError(refusal)
    port = port or free_port()
    log = _servers_dir() / f"{model.name}.log"  # the latest start only: one server per model at a time
    with log.open("w") as out:
        process = _LAUNCHER.submit(
            subprocess.Popen,
            server_command(model, port),
            stdout=out,
            stderr=subprocess.STDOUT,
            stdin=subprocess.DEVNULL,
            start_new_session=True,  # Ctrl-C reaches us, and we stop it
            preexec_fn=_die_with_parent,
        ).result()
    server = LocalServer(model, port, process.pid, log, process)
    deadline = time.monotonic() + START_TIMEOUT
    while not server.healthy():
        if process.poll() is not None or time.monotonic() > deadline:
            if process.poll() is None:
                process.kill()
                process.wait()
            lines = [line for line in log.read_text(errors="replace").splitlines() if line.strip()]
            raise ServerError(
                f"llama-server for {model.name} did not start on port {port}: {(lines or ['no output'])[-1][:200]}"
            )
        time.sleep(0.2)
    if register:
        _registry(model).write_text(
            json.dumps({"pid": process.pid, "port": port, "log": str(log), "sha256": model.sha256})
        )
    return server


_KNOWN: dict[str, LocalServer] = {}  # servers this process uses: started here (owned) or reused
_KNOWN_LOCK = threading.Lock()


def serve_registered(model: LocalModel, port: int | None = None) -> LocalServer:
    """``ariadne models serve``: start and register a server unless one is already running."""
    with _start_lock(model):
        running = running_server(model)
        if running is not None:
            raise ServerError(f"a server of {model.name} is already running: {running.url}")
        return start_server(model, port)


def ensure_server(model: LocalModel) -> LocalServer:
    """A live server of ``model``: the one this process already uses, one registered by another
    process, or one started now (its weights pulled first if this machine has none) and stopped when this process
    exits (or at :func:`stop_owned_servers`).
    Called before every model call, so the usual path is a dictionary lookup and a signal-0 check."""
    with _KNOWN_LOCK:
        known = _KNOWN.get(model.name)
        if known is not None and (known.process.poll() is None if known.process else pid_alive(known.pid)):
            return known
        with _start_lock(model):
            server = running_server(model)
            if server is None:
                # first use (eval workers, the LangGraph server): pulled now
                pull_if_missing(model, lambda line: print(f"{model.name}: {line}", file=sys.stderr, flush=True))
                server = start_server(model)
        _KNOWN[model.name] = server
        return server


def stop_owned_servers() -> None:
    with _KNOWN_LOCK:
        for server in _KNOWN.values():
            server.stop()
        _KNOWN.clear()


atexit.register(stop_owned_servers)


def wait_for_signal() -> None:
    """Block until SIGINT or SIGTERM (``ariadne models serve`` in the foreground)."""
    stop = threading.Event()
    for sig in (signal.SIGINT, signal.SIGTERM):
        signal.signal(sig, lambda *_: stop.set())
    while not stop.wait(1.0):
        pass
