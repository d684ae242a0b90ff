"""The keeper of a shared local model server: it stops the server once no process uses it.

A server of a local model is shared by every process that uses it (runs, eval workers, another checkout's ``play``,
``ariadne models serve``): each holds a *lease* while it does, a shared ``flock`` on the server's lease file, which
the kernel drops when the process ends, however it ends (SIGKILL too). The server runs as the child of this small
process, not of the process that started it, so it outlives its starter while others use it; and it dies with its
keeper (parent-death signal), so a killed keeper leaves no server either.

Whether a server is unused is decided under the model's start lock, the lock a user holds to join (find the
registered server and take its lease) or to start one: once the decision is taken, no one can join the server being
stopped. Who leaves last stops the server at once (:func:`ariadnegraph.models.local.server.LocalServer.leave`); the
keeper looks every :data:`LOOK_EVERY` seconds for users that died without leaving.

Run by :func:`main` with ``--start-lock F --users F --registry F --slots D --log F -- SERVER COMMAND...``: it
starts the server, prints its pid on one line and keeps it until it is unused, ends by itself (crashed, killed), or
the keeper is sent SIGTERM.
"""

from __future__ import annotations

import argparse
import contextlib
import fcntl
import json
import os
import shutil
import signal
import subprocess
import sys
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import IO

from .children import die_with_parent

LOOK_EVERY = 1.0  # seconds between the keeper's looks for users that died without leaving
STOP_WAIT = 10.0  # seconds a server has to end after SIGTERM before it is killed


@contextlib.contextmanager
def start_lock(path: Path, *, wait: bool = True) -> Iterator[bool]:
    """Hold the model's start lock (users join, start and leave under it); with ``wait`` False, yield False at once
    when another process holds it."""
    with path.open("a") as handle:
        try:
            fcntl.flock(handle, fcntl.LOCK_EX | (0 if wait else fcntl.LOCK_NB))
        except BlockingIOError:
            yield False
            return
        try:
            yield True
        finally:
            fcntl.flock(handle, fcntl.LOCK_UN)


def take_lease(users: Path) -> IO[str]:
    """A lease on the server whose lease file is ``users``, held until the returned file is closed (or the process
    ends). Taken under the start lock, so never while the server is being stopped."""
    handle = users.open("a")
    fcntl.flock(handle, fcntl.LOCK_SH)
    return handle


def unused(users: Path) -> bool:
    """Whether no process holds a lease on the server (a missing lease file: none can). Call under the start lock."""
    try:
        handle = users.open("r")
    except FileNotFoundError:
        return True
    with handle:
        try:
            fcntl.flock(handle, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            return False
        return True


def unregister(registry: Path, pid: int) -> None:
    """Remove the registry entry if it names this server (a newer server may have replaced it). Under the start
    lock."""
    with contextlib.suppress(OSError, ValueError, AttributeError):
        if json.loads(registry.read_text()).get("pid") == pid:
            registry.unlink()


def forget(users: Path, slots: Path) -> None:
    """The files of a server that ended: its lease file and its slot leases (named for this server alone, so a server
    started since on the same port keeps its own)."""
    users.unlink(missing_ok=True)
    shutil.rmtree(slots, ignore_errors=True)


def stop(server: subprocess.Popen) -> None:
    if server.poll() is None:
        server.terminate()
        try:
            server.wait(timeout=STOP_WAIT)
        except subprocess.TimeoutExpired:
            server.kill()
            server.wait()


class _Stopped(Exception):
    """SIGTERM, SIGINT or SIGHUP reached the keeper: whoever sent it decided (and unregistered) already."""


def _stopped(*_: object) -> None:
    raise _Stopped


def keep(args: argparse.Namespace, command: Sequence[str]) -> int:
    users, registry, lock, slots = Path(args.users), Path(args.registry), Path(args.start_lock), Path(args.slots)
    for sig in (signal.SIGTERM, signal.SIGINT, signal.SIGHUP):
        signal.signal(sig, _stopped)
    with open(args.log, "ab") as log:
        server = subprocess.Popen(
            list(command), stdout=log, stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL, preexec_fn=die_with_parent
        )
    print(server.pid, flush=True)  # the starter reads it, then waits for the server to answer
    with open(os.devnull, "w") as null:
        os.dup2(null.fileno(), sys.stdout.fileno())  # the starter's pipe may close with it
    try:
        while True:
            try:
                server.wait(timeout=LOOK_EVERY)  # reaps the server at once when it ends
                break  # ended by itself: crashed, killed
            except subprocess.TimeoutExpired:
                pass
            with start_lock(lock, wait=False) as held:  # busy: someone joins or starts; look again later
                if held and unused(users):
                    unregister(registry, server.pid)
                    stop(server)
                    forget(users, slots)
                    return 0
        with start_lock(lock):  # the server ended under its users: they start another
            unregister(registry, server.pid)
    except _Stopped:
        pass
    finally:
        stop(server)
    forget(users, slots)
    return 0


def main(argv: Sequence[str] | None = None) -> int:
    argv = list(sys.argv[1:] if argv is None else argv)
    split = argv.index("--") if "--" in argv else len(argv)
    parser = argparse.ArgumentParser(prog="keeper")
    for flag in ("--start-lock", "--users", "--registry", "--slots", "--log"):
        parser.add_argument(flag, required=True)
    args = parser.parse_args(argv[:split])
    command = argv[split + 1 :]
    if not command:
        parser.error("no server command after --")
    return keep(args, command)


if __name__ == "__main__":
    sys.exit(main())
