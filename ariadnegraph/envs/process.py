"""A child process that hosts one game object and answers calls with a deadline.

Game interpreters can hang on some inputs (TextWorld#161) or die in C code; running the game in a
child lets either reach the caller as :class:`EnvTimeout` / :class:`EnvCrashed` within the timeout
instead of freezing the agent. Generic: the factory builds any object with the called methods.
"""

from __future__ import annotations

import functools
import multiprocessing as mp
import os
import signal
import sys
import weakref
from collections.abc import Callable
from multiprocessing.connection import Connection
from typing import Any

from .base import EnvCrashed, EnvError, EnvSpecError, EnvTimeout, one_line

START_TIMEOUT = 60.0  # importing textworld and loading a large game's .json
_PRELOAD = ["textworld", "ariadnegraph.envs.textworld_env"]
_ORPHAN_CHECK_SECONDS = 5.0  # an idle game process checks this often whether its parent still exists


def default_start_method() -> str:
    """``fork`` on Linux: a game process starts in ~5 ms and scripts need no ``__main__`` guard.

    ``spawn``/``forkserver`` re-import the caller's main script in the child (a script without the
    guard would start its games again) and take ~0.8 s per process. The forked child only loads
    the game (textworld is imported in the parent first, so the child takes no import locks) and
    a wedged start still ends in :class:`EnvTimeout`. Elsewhere (macOS forks badly) ``spawn``.
    """
    return "fork" if sys.platform.startswith("linux") else "spawn"


def check_start_method(start_method: str | None) -> mp.context.BaseContext:
    """The multiprocessing context for ``start_method``; EnvSpecError if the platform has none."""
    return _context(start_method)


def _context(start_method: str | None) -> mp.context.BaseContext:
    method = start_method or default_start_method()
    if method not in mp.get_all_start_methods():
        raise EnvSpecError(f"start_method must be one of {', '.join(mp.get_all_start_methods())}, got {method!r}")
    context = mp.get_context(method)
    if method == "forkserver":
        _preload_forkserver(context)
    return context


@functools.cache
def _preload_forkserver(context: mp.context.BaseContext) -> None:
    # Takes effect only if the fork server has not started yet: an import cache, nothing else.
    context.set_forkserver_preload(_PRELOAD)


def _describe_exit(code: int | None) -> str:
    if code is None:
        return "no exit status"
    if code < 0:
        try:
            return f"signal {signal.Signals(-code).name}"
        except ValueError:
            return f"signal {-code}"
    return f"exit status {code}"


def _serve(conn: Connection, factory: Callable[[], Any], parent_end: Connection) -> None:
    """Child main loop: build the game, then answer ``(method, args)`` requests until closed."""
    parent_end.close()  # a forked child holds the parent's end too: without this, no EOF if it dies
    signal.signal(signal.SIGINT, signal.SIG_IGN)  # Ctrl-C is the parent's to handle
    try:
        game = factory()
    except BaseException as exc:  # noqa: BLE001 - everything must reach the parent
        conn.send(("error", type(exc).__name__, one_line(exc)))
        return
    conn.send(("ok", None))
    parent = os.getppid()
    while True:
        try:
            if not conn.poll(_ORPHAN_CHECK_SECONDS):
                if os.getppid() != parent:
                    break  # the parent died without closing us (other forks may hold our pipe open)
                continue
            method, args = conn.recv()
        except (EOFError, OSError):
            break  # the parent is gone
        if method == "__close__":
            close = getattr(game, "close", None)
            if close is not None:
                try:
                    close()
                except Exception:  # noqa: BLE001 - closing is best effort
                    pass
            conn.send(("ok", None))
            break
        try:
            reply: tuple[Any, ...] = ("ok", getattr(game, method)(*args))
        except Exception as exc:  # noqa: BLE001
            reply = ("error", type(exc).__name__, one_line(exc))
        try:
            conn.send(reply)
        except Exception as exc:  # noqa: BLE001 - e.g. an unpicklable result
            conn.send(("error", type(exc).__name__, one_line(exc)))


def _stop(process: mp.process.BaseProcess, conn: Connection) -> None:
    if process.is_alive():
        process.kill()
        process.join(2.0)
    conn.close()


class GameProcess:
    """Hosts any object with methods (``reset``, ``step``, ...) in a child process and forwards calls.

    ``factory`` builds the object inside the child; it must be picklable (a module-level class or
    function, or a :func:`functools.partial` of one) unless ``start_method="fork"``. A call that does
    not answer within its timeout kills the child and raises :class:`EnvTimeout`; a child that dies
    raises :class:`EnvCrashed`; an exception inside the child also raises :class:`EnvCrashed`
    (the game's state is unknown after it) and stops the child. After any of these, start a new
    process. Not thread-safe: one caller at a time.
    """

    def __init__(
        self,
        factory: Callable[[], Any],
        *,
        start_method: str | None = None,
        start_timeout: float = START_TIMEOUT,
        label: str = "game",
    ) -> None:
        context = _context(start_method)
        self._conn, child_conn = context.Pipe()
        self._process = context.Process(  # type: ignore[attr-defined]
            target=_serve, args=(child_conn, factory, self._conn), daemon=True, name=f"ariadne-{label}"
        )
        self._process.start()
        child_conn.close()
        self._finalizer = weakref.finalize(self, _stop, self._process, self._conn)
        try:
            self._receive(start_timeout, "starting the game")
        except BaseException:
            self.kill()
            raise

    @property
    def alive(self) -> bool:
        return self._finalizer.alive and self._process.is_alive()

    @property
    def pid(self) -> int | None:
        return self._process.pid

    def call(self, method: str, *args: Any, timeout: float, what: str | None = None) -> Any:
        """Run ``method(*args)`` on the hosted object and return its (picklable) result."""
        what = what or method
        if not self._finalizer.alive:
            raise EnvError(f"game process is stopped; cannot run {what}")
        try:
            try:
                self._conn.send((method, args))
            except OSError:
                code = self._reap()
                raise EnvCrashed(f"game process died ({_describe_exit(code)}) before {what}") from None
            return self._receive(timeout, what)
        except EnvError:
            raise
        except BaseException:
            self.kill()  # interrupted (Ctrl-C): its reply would arrive as the answer to the next call
            raise

    def _receive(self, timeout: float, what: str) -> Any:
        try:
            ready = self._conn.poll(timeout)
        except (EOFError, OSError):
            ready = True  # the pipe is closed: recv below reports the death
        if not ready:
            self.kill()
            raise EnvTimeout(f"{what} did not answer within {timeout}s; game stopped")
        try:
            reply = self._conn.recv()
        except Exception:  # noqa: BLE001 - EOF, a torn message: the child is gone either way
            code = self._reap()
            raise EnvCrashed(f"game process died ({_describe_exit(code)}) during {what}") from None
        if reply[0] == "ok":
            return reply[1]
        self.kill()
        raise EnvCrashed(f"game failed during {what}: {reply[1]}: {reply[2]}; game stopped")

    def _reap(self) -> int | None:
        self._process.join(2.0)
        code = self._process.exitcode
        self.kill()
        return code

    def kill(self) -> None:
        """Stop the child at once (SIGKILL)."""
        self._finalizer()

    def close(self, timeout: float = 2.0) -> None:
        """Ask the hosted object to close, then stop the child; safe to call twice."""
        if not self._finalizer.alive:
            return
        if self._process.is_alive():
            try:
                self._conn.send(("__close__", ()))
                if self._conn.poll(timeout):
                    self._conn.recv()
                self._process.join(timeout)
            except (EOFError, OSError):
                pass
        self._finalizer()
