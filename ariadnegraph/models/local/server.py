"""A llama.cpp server for one local model, on a free loopback port, shared by every process that uses it.

``ensure_server`` is what ``--model local:NAME`` calls: it joins a healthy server of that model that is already
registered (``ariadne models serve NAME``, another run or checkout, an eval's parent), else starts one. Servers are
registered in ``<local models dir>/servers/NAME.json``; the model's start lock around "find and join, or start"
keeps two processes from starting the same one. Each process that uses a server holds a lease on it while it does,
and the server runs under a keeper process that stops it once no lease is held (:mod:`.keeper`): it lives while
anyone uses it, whoever started it, and stops when its last user leaves or dies. A request whose server vanished
(killed, crashed) starts it again and is sent there (:func:`replace_vanished`, called by the slot leases'
transport); a server that cannot be started again stops the run in one line, and the run resumes later.

The server keeps ``SLOTS`` slots over one shared KV cache of ``KV_POOL_CONTEXTS`` model contexts: callers
pin each agent role to a slot (``id_slot``), so consecutive calls of a role reuse the prompt prefix they
share while the pool has room for it; a request holds a lease on its slot while in flight (:mod:`.slots`), since
processes and threads that share a server pin the same slot numbers.
"""

from __future__ import annotations

import atexit
import contextlib
import json
import os
import secrets
import signal
import socket
import subprocess
import sys
import threading
import time
import urllib.error
import urllib.request
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import IO

import psutil

from . import keeper
from .catalogue import LocalModel, LocalModelError
from .engine import engine_command
from .weights import local_folder, pid_alive, pull_if_missing, weights_path, weights_refusal

HOST = "127.0.0.1"
SLOTS = 8  # one per node that calls a model (nodes.common.MODEL_NODES); other callers share them
KV_POOL_CONTEXTS = 2  # the shared KV cache holds this many full-length prompts (8 x 16k held 10 GB for a 1.1 GB model)
START_TIMEOUT = 180.0  # seconds for the weights to load and the server to answer /health
STOP_TIMEOUT = keeper.STOP_WAIT + 5.0  # seconds the last user waits for the server to end before killing it
RESTARTS_PER_REQUEST = 2  # servers started again for one request whose servers went away under it


class ServerError(LocalModelError):
    """A local model server could not be started or reached."""


def healthy(port: int) -> bool:
    """Whether a server answers /health on ``port``."""
    try:
        with urllib.request.urlopen(f"http://{HOST}:{port}/health", timeout=2.0) as response:
            return response.status == 200
    except (urllib.error.URLError, OSError, ValueError):
        return False


@dataclass
class LocalServer:
    model: LocalModel
    port: int
    pid: int
    log: Path
    slot_locks: Path  # the folder of its slot leases (:mod:`.slots`): one per server, so a restart starts clean
    users: Path | None = None  # its lease file (None: a server registered by an older version, which has none)
    keeper: int | None = None  # the pid of the process that keeps it (its parent)
    lease: IO[str] | None = None  # this process's lease on it, held while this process uses it
    started: subprocess.Popen | None = None  # the keeper, when this process started it (reaped when it ends)

    @property
    def url(self) -> str:
        """The OpenAI-compatible base URL."""
        return f"http://{HOST}:{self.port}/v1"

    def healthy(self) -> bool:
        return healthy(self.port)

    def count_tokens(self, text: str) -> int:
        """How many tokens the model reads ``text`` as (the server's own tokenizer)."""
        request = urllib.request.Request(
            f"http://{HOST}:{self.port}/tokenize",
            data=json.dumps({"content": text}).encode(),
            headers={"Content-Type": "application/json"},
        )
        with urllib.request.urlopen(request, timeout=60.0) as response:
            return len(json.load(response)["tokens"])

    def join(self) -> None:
        """Take this process's lease (under the start lock: never on a server being stopped). A server of an older
        version has no lease file: it is used as it was, and started again here if it goes away."""
        if self.users is not None and self.lease is None:
            self.lease = keeper.take_lease(self.users)

    def leave(self) -> None:
        """This process no longer uses the server: its lease goes, and if no other process holds one the server stops
        now (its memory is free for whatever runs next), decided under the start lock."""
        if self.lease is None:
            return
        self.lease.close()  # closed, not unlocked: a forked child's copy of it stays the child's
        self.lease = None
        with _start_lock(self.model):
            if self.users is None or not keeper.unused(self.users):
                return
            keeper.unregister(_registry(self.model), self.pid)
            self._end()

    def _end(self) -> None:
        """Stop the server through its keeper and wait until it is gone (killed past :data:`STOP_TIMEOUT`)."""
        self._signal(signal.SIGTERM)
        deadline = time.monotonic() + STOP_TIMEOUT
        while pid_alive(self.pid) and time.monotonic() < deadline:
            time.sleep(0.05)
        if pid_alive(self.pid):
            self._signal(signal.SIGKILL)  # the server dies with its keeper
        if self.started is not None:
            with contextlib.suppress(subprocess.TimeoutExpired):
                self.started.wait(timeout=STOP_TIMEOUT)  # reaped: no zombie left in this process
            self.started = None
        if self.users is not None:
            keeper.forget(self.users, self.slot_locks)

    def _signal(self, sig: signal.Signals) -> None:
        """Signal the keeper, if it is still this server's: a pid seen nowhere else may have been reused."""
        if self.started is not None:
            if self.started.poll() is None:
                self.started.send_signal(sig)
            return
        with contextlib.suppress(psutil.Error, OSError):
            if self.keeper is not None and psutil.Process(self.pid).ppid() == self.keeper:
                os.kill(self.keeper, sig)


def _servers_dir() -> Path:
    return local_folder("servers")


def _registry(model: LocalModel) -> Path:
    return _servers_dir() / f"{model.name}.json"


def _start_lock_path(model: LocalModel) -> Path:
    return _servers_dir() / f"{model.name}.lock"


@contextlib.contextmanager
def _start_lock(model: LocalModel) -> Iterator[None]:
    with keeper.start_lock(_start_lock_path(model)):
        yield


def free_port() -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as probe:
        probe.bind((HOST, 0))
        return probe.getsockname()[1]


def running_server(model: LocalModel) -> LocalServer | None:
    """The registered server of ``model`` if it is alive and healthy (not joined yet: see :meth:`LocalServer.join`)."""
    path = _registry(model)
    try:
        entry = json.loads(path.read_text())
        port = int(entry["port"])
        server = LocalServer(
            model,
            port,
            int(entry["pid"]),
            Path(entry["log"]),
            Path(entry.get("slots") or _servers_dir() / f"{model.name}-{port}.slots"),
            Path(entry["users"]) if entry.get("users") else None,
            int(entry["keeper"]) if entry.get("keeper") else None,
        )
    except (OSError, ValueError, KeyError, TypeError, AttributeError):
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


def _last_line(log: Path) -> str:
    lines = [line for line in log.read_text(errors="replace").splitlines() if line.strip()]
    return (lines or ["no output"])[-1][:200]


def start_server(model: LocalModel, port: int | None = None, *, register: bool = True) -> LocalServer:
    """Start a server of ``model`` under a keeper (:mod:`.keeper`), with this process's lease on it, and wait until it
    answers; raises :class:`ServerError` with the last line of its log when it dies or does not come up."""
    if (
        refusal := weights_refusal(model)
    ) is not None:  # read whole: garbled weights are named here, not by a server's nonsense
        raise ServerError(refusal)
    port = port or free_port()
    command = server_command(model, port)
    servers = _servers_dir()
    name = f"{model.name}-{port}-{secrets.token_hex(4)}"  # this server's own files: never another's on the same port
    users, slots = servers / f"{name}.users", servers / f"{name}.slots"
    log = servers / f"{model.name}.log"  # the latest start only
    log.write_text("")
    lease = keeper.take_lease(users)  # before the keeper's first look: a starting server is never unused
    launch = [
        sys.executable,
        "-c",  # not -m: the package imports the keeper's module, which would then run as a second copy of it
        "import sys; from ariadnegraph.models.local.keeper import main; sys.exit(main())",
        *("--start-lock", str(_start_lock_path(model)), "--users", str(users), "--registry", str(_registry(model))),
        *("--slots", str(slots), "--log", str(log), "--", *command),
    ]
    with log.open("a") as out:
        try:
            started = subprocess.Popen(
                launch,
                stdout=subprocess.PIPE,
                stderr=out,
                stdin=subprocess.DEVNULL,
                text=True,
                start_new_session=True,  # a user's Ctrl-C is that user's: the server is shared
            )
        except OSError as exc:
            lease.close()
            keeper.forget(users, slots)
            raise ServerError(f"cannot start the keeper of {model.name}'s server: {exc}") from exc
    assert started.stdout is not None
    pid = started.stdout.readline().strip()
    started.stdout.close()
    server = LocalServer(model, port, int(pid) if pid.isdigit() else 0, log, slots, users, started.pid, lease, started)
    deadline = time.monotonic() + START_TIMEOUT
    while not server.healthy():
        if started.poll() is not None or not pid_alive(server.pid) or time.monotonic() > deadline:
            lease.close()
            server.lease = None
            server._end()
            raise ServerError(f"llama-server for {model.name} did not start on port {port}: {_last_line(log)}")
        time.sleep(0.2)
    if register:
        _registry(model).write_text(
            json.dumps(
                {
                    "pid": server.pid,
                    "port": port,
                    "log": str(log),
                    "sha256": model.sha256,
                    "keeper": started.pid,
                    "users": str(users),
                    "slots": str(slots),
                }
            )
        )
    return server


def prepare(model: LocalModel, progress: Callable[[str], None] = lambda _: None) -> None:
    """What a server of ``model`` needs before it starts, in order: a usable engine (the setting, the wheel or a built
    binary: refused before any download), then the weights (pulled on first use)."""
    engine_command()
    pull_if_missing(model, progress)


_KNOWN: dict[str, LocalServer] = {}  # the servers this process uses, each with this process's lease
_KNOWN_LOCK = threading.Lock()


def serve_registered(model: LocalModel, port: int | None = None) -> LocalServer:
    """``ariadne models serve``: join the registered server (on ``port``, if given), else start and register one. The
    serving process is a user like any other: the server stops when it leaves, unless another process still uses
    it."""
    with _start_lock(model):
        running = running_server(model)
        if running is None:
            return start_server(model, port)
        if port is not None and port != running.port:
            raise ServerError(f"a server of {model.name} is already running at {running.url}, not on port {port}")
        running.join()
        return running


def _stderr_progress(model: LocalModel) -> Callable[[str], None]:
    return lambda line: print(f"{model.name}: {line}", file=sys.stderr, flush=True)


def _join_or_start(model: LocalModel, gone: LocalServer | None) -> LocalServer:
    """Under ``_KNOWN_LOCK``: leave ``gone`` (a server this process used that vanished), then join the registered
    server or start one (its engine checked and its weights pulled first if this machine has none)."""
    if gone is not None:
        _KNOWN.pop(model.name, None)
        gone.leave()
    with _start_lock(model):
        server = running_server(model)
        if server is not None:
            server.join()
        else:
            prepare(model, _stderr_progress(model))  # first use (eval workers, the LangGraph server): pulled now
            server = start_server(model)
    _KNOWN[model.name] = server
    return server


def ensure_server(model: LocalModel) -> LocalServer:
    """A live server of ``model`` with this process's lease on it: the one this process already uses, one registered
    by another process, or one started now. Called before every model call, so the usual path is a dictionary lookup
    and a signal-0 check."""
    with _KNOWN_LOCK:
        known = _KNOWN.get(model.name)
        if known is not None and pid_alive(known.pid):
            return known
        return _join_or_start(model, known)


def replace_vanished(model: LocalModel, port: int, met: int = 1) -> LocalServer | None:
    """The server to send a request to after it could not reach, or was cut off by, the server on ``port`` (the
    ``met``-th server to go away under it): that server went away (it no longer answers /health), so the registered
    one is joined or one started again. None when it still answers: the failure was not its going away. Raises
    :class:`ServerError` when no server can start again, or when servers keep going away under the same request (one
    that crashes on it)."""
    with _KNOWN_LOCK:
        known = _KNOWN.get(model.name)
        if known is not None and known.port != port and pid_alive(known.pid):
            return known  # another thread replaced it already
        if healthy(port):
            return None
        if met > RESTARTS_PER_REQUEST:
            raise ServerError(
                f"the server of {model.name} went away under the same request {met} times, the last on port {port} "
                f"(its log: {_servers_dir() / f'{model.name}.log'})"
            )
        try:
            return _join_or_start(model, known)
        except LocalModelError as exc:
            raise ServerError(
                f"the server of {model.name} on port {port} went away and could not start again: {exc}"
            ) from exc


def leave_servers() -> None:
    """Leave every server this process uses (at exit; and where a caller wants one model's server at a time): each
    stops now unless another process still uses it."""
    with _KNOWN_LOCK:
        for server in _KNOWN.values():
            server.leave()
        _KNOWN.clear()


def _forget_in_child() -> None:
    """In a forked child: the parent's servers and leases stay the parent's (the child joins on its own if it asks
    for a model), and a lock another thread held at the fork is not left held."""
    global _KNOWN_LOCK
    _KNOWN_LOCK = threading.Lock()
    for server in _KNOWN.values():
        if server.lease is not None:
            server.lease.close()  # this copy only: the parent's lease stays held
        server.lease = server.started = None
    _KNOWN.clear()


atexit.register(leave_servers)
os.register_at_fork(after_in_child=_forget_in_child)


def wait_for_signal(ready: Callable[[], None] = lambda: None) -> None:
    """Block until SIGINT or SIGTERM (``ariadne models serve`` in the foreground); ``ready`` runs once both are caught
    (what it announces may make a caller send one at once)."""
    stop = threading.Event()
    for sig in (signal.SIGINT, signal.SIGTERM):
        signal.signal(sig, lambda *_: stop.set())
    ready()
    while not stop.wait(1.0):
        pass
