"""ScienceWorld's JVMs: a process-wide pool of Java processes running its py4j gateway, reused across
episodes, and calls into them with a deadline (the adapter, :mod:`ariadnegraph.envs.scienceworld_env`,
leases one per game).

One JVM runs one game at a time (the Scala side keeps global state); at most
``ARIADNE_SCIENCEWORLD_MAX_JVMS`` (default 4) run at once. A JVM is replaced when it died or when its
resident memory passes ``ARIADNE_SCIENCEWORLD_JVM_MAX_MB`` (default 1536) at an episode boundary. JVMs
start with ``-Xmx1g -XX:+UseSerialGC`` (``ARIADNE_SCIENCEWORLD_JAVA_OPTS`` overrides): with Java's default
collector and heap the JVM sits at 2-3 GB after a few episodes; with these it stays near 0.5 GB.
"""

from __future__ import annotations

import atexit
import logging
import shlex
import threading
import time
from collections.abc import Callable
from typing import Any

from ariadnegraph.config import SCIENCEWORLD_JAVA_OPTS_ENV, setting
from ariadnegraph.envs.base import EnvCrashed, EnvError, EnvTimeout, one_line

logger = logging.getLogger(__name__)

DEFAULT_JVM_MAX_MB = 1536.0
DEFAULT_MAX_JVMS = 4
DEFAULT_JAVA_OPTS = ("-Xmx1g", "-XX:+UseSerialGC")
ENV_MAX_MB = "ARIADNE_SCIENCEWORLD_JVM_MAX_MB"
ENV_MAX_JVMS = "ARIADNE_SCIENCEWORLD_MAX_JVMS"


def _env_float(name: str, default: float) -> float:
    value = setting(name)
    if value is None:
        return default
    try:
        return float(value)
    except ValueError:
        logger.warning("ignoring %s=%r (not a number)", name, value)
        return default


class _Py4JLogging:
    """Stands in for the ``logging`` module inside ``py4j.java_gateway``.

    py4j reports a lost connection with ``logging.info``/``logging.exception`` on the *root*
    logger, which runs ``logging.basicConfig()`` as a side effect and prints tracebacks; we route
    those calls to the ``py4j.java_gateway`` logger instead. Our own errors say what happened.
    """

    _CALLS = ("debug", "info", "warning", "warn", "error", "exception", "critical", "log")

    def __getattr__(self, name: str) -> Any:
        if name in self._CALLS:
            return getattr(logging.getLogger("py4j.java_gateway"), name)
        return getattr(logging, name)


def _quiet_py4j() -> None:
    import py4j.java_gateway as java_gateway

    if java_gateway.logging is logging:
        java_gateway.logging = _Py4JLogging()
    py4j_logger = logging.getLogger("py4j")
    if py4j_logger.level == logging.NOTSET:  # leave an explicit choice alone
        py4j_logger.setLevel(logging.CRITICAL)


class _Jvm:
    """One Java process running ScienceWorld's py4j gateway, and its ``PythonInterface``."""

    def __init__(self, java_opts: tuple[str, ...], serial: int):
        from py4j.java_gateway import GatewayParameters, JavaGateway, launch_gateway
        from scienceworld.constants import BASEPATH, JAR_PATH

        _quiet_py4j()
        self.serial = serial
        started = time.monotonic()
        try:
            # die_on_exit: the JVM exits when our end of its stdin closes, so a dead Python never
            # leaves a JVM behind.
            port, proc = launch_gateway(
                classpath=JAR_PATH, die_on_exit=True, cwd=BASEPATH, return_proc=True, javaopts=list(java_opts)
            )
        except FileNotFoundError as exc:
            raise EnvCrashed(
                f"cannot start the ScienceWorld JVM: java not found ({one_line(exc)}); install Java 17"
            ) from exc
        except Exception as exc:  # the JVM exited before printing its port (bad options, no memory)
            raise EnvCrashed(
                f"cannot start the ScienceWorld JVM (options {' '.join(java_opts)}): {one_line(exc)}"
            ) from exc
        self.proc = proc
        self.pid: int = proc.pid
        try:
            import psutil

            self._ps: Any = psutil.Process(self.pid)
        except Exception:  # already gone; alive() will say so
            self._ps = None
        try:
            self.gateway = JavaGateway(
                gateway_parameters=GatewayParameters(auto_field=True, port=port), java_process=proc
            )
            self.server = self.gateway.jvm.scienceworld.runtime.pythonapi.PythonInterface()
        except Exception as exc:
            self.kill()
            raise EnvCrashed(f"cannot connect to the ScienceWorld JVM (pid {self.pid}): {one_line(exc)}") from exc
        self.start_seconds = time.monotonic() - started
        logger.info("ScienceWorld JVM pid %d started in %.2fs", self.pid, self.start_seconds)

    def alive(self) -> bool:
        # Popen.poll() alone is not enough: py4j's ProcessConsumer thread sits in proc.wait(),
        # and poll() answers None while that thread holds the wait lock.
        if self.proc.returncode is not None or self.proc.poll() is not None or self._ps is None:
            return False
        try:
            import psutil

            # is_running() also notices a recycled pid (it compares creation times)
            return self._ps.is_running() and self._ps.status() != psutil.STATUS_ZOMBIE
        except Exception:
            return False

    def wait_dead(self, seconds: float) -> bool:
        """True once the JVM is gone, polling up to ``seconds``."""
        deadline = time.monotonic() + seconds
        while self.alive():
            if time.monotonic() >= deadline:
                return False
            time.sleep(0.02)
        return True

    def rss_mb(self) -> float | None:
        """Resident memory of the java process (MiB), or None when it is gone."""
        try:
            import psutil

            return psutil.Process(self.pid).memory_info().rss / 2**20
        except Exception:
            return None

    def _close_gateway(self) -> None:
        try:
            # A disconnected client sends nothing more: no garbage-collection messages to a dead
            # JVM from JavaObject finalizers, and an in-flight call fails without retrying.
            self.gateway._gateway_client.is_connected = False
        except Exception:
            pass
        try:
            self.gateway.close()
        except Exception:
            pass

    def _close_pipes(self) -> None:
        for stream in (self.proc.stdin, self.proc.stdout, self.proc.stderr):
            try:
                if stream is not None:
                    stream.close()
            except Exception:
                pass

    def kill(self) -> None:
        """Stop the JVM now (SIGKILL) and drop the connection. Idempotent."""
        if hasattr(self, "gateway"):
            self._close_gateway()
        try:
            if self.proc.poll() is None:
                self.proc.kill()
            self.proc.wait(timeout=10)
        except Exception:
            pass
        self._close_pipes()

    def shutdown(self) -> None:
        """Let the JVM exit on its own (closing its stdin), killing it if it lingers."""
        if hasattr(self, "gateway"):
            self._close_gateway()
        self._close_pipes()
        try:
            self.proc.wait(timeout=3)
        except Exception:
            self.kill()


class JvmPool:
    """Process-wide ScienceWorld JVMs, reused across episodes.

    ``acquire()`` hands out an idle healthy JVM or starts one; ``release()`` takes it back (at most
    ``max_idle`` stay idle); ``discard()`` kills it. A JVM is healthy while its process lives and
    its RSS is at most ``max_rss_mb`` (default: ``$ARIADNE_SCIENCEWORLD_JVM_MAX_MB`` or 1536, read at
    each check). ``call()`` runs a function against a JVM's ``PythonInterface`` with a deadline.
    """

    def __init__(
        self,
        *,
        max_rss_mb: float | None = None,
        java_opts: tuple[str, ...] | list[str] | None = None,
        max_jvms: int | None = None,
        max_idle: int = 1,
    ):
        self._max_rss_mb = max_rss_mb
        self._java_opts = tuple(java_opts) if java_opts is not None else None
        self._max_jvms = max_jvms
        self.max_idle = max_idle
        self._lock = threading.RLock()
        self._idle: list[_Jvm] = []
        self._busy: set[_Jvm] = set()
        self._starting = 0
        self._serial = 0
        self.stats: dict[str, int] = {
            "started": 0,
            "reused": 0,
            "died": 0,
            "over_rss": 0,
            "timeouts": 0,
            "java_errors": 0,
        }

    # settings -------------------------------------------------------------------------------
    @property
    def max_rss_mb(self) -> float:
        if self._max_rss_mb is not None:
            return float(self._max_rss_mb)
        return _env_float(ENV_MAX_MB, DEFAULT_JVM_MAX_MB)

    @max_rss_mb.setter
    def max_rss_mb(self, value: float | None) -> None:
        self._max_rss_mb = value

    @property
    def java_opts(self) -> tuple[str, ...]:
        if self._java_opts is not None:
            return self._java_opts
        env = setting(SCIENCEWORLD_JAVA_OPTS_ENV)  # (from the environment only: config.PROGRAM_VARIABLES)
        return tuple(shlex.split(env)) if env is not None else DEFAULT_JAVA_OPTS

    @property
    def max_jvms(self) -> int:
        if self._max_jvms is not None:
            return self._max_jvms
        return max(1, int(_env_float(ENV_MAX_JVMS, DEFAULT_MAX_JVMS)))

    # leases ---------------------------------------------------------------------------------
    def healthy(self, jvm: _Jvm) -> bool:
        if not jvm.alive():
            self.stats["died"] += 1
            logger.warning("ScienceWorld JVM pid %d is gone; starting another", jvm.pid)
            return False
        rss = jvm.rss_mb()
        if rss is None:
            self.stats["died"] += 1
            return False
        if rss > self.max_rss_mb:
            self.stats["over_rss"] += 1
            logger.info(
                "ScienceWorld JVM pid %d uses %.0f MiB > %.0f MiB; restarting it", jvm.pid, rss, self.max_rss_mb
            )
            return False
        return True

    def acquire(self) -> _Jvm:
        """A healthy JVM for one game, reusing an idle one when possible."""
        while True:
            with self._lock:
                jvm = self._idle.pop() if self._idle else None
                if jvm is None:
                    if len(self._busy) + self._starting >= self.max_jvms:
                        raise EnvError(
                            f"{self.max_jvms} ScienceWorld games are already running; close() finished envs "
                            f"or raise ${ENV_MAX_JVMS}"
                        )
                    self._starting += 1
                    self._serial += 1
                    serial = self._serial
            if jvm is None:
                break
            if self.healthy(jvm):
                with self._lock:
                    self._busy.add(jvm)
                self.stats["reused"] += 1
                return jvm
            jvm.kill()
        try:
            jvm = _Jvm(self.java_opts, serial)
        finally:
            with self._lock:
                self._starting -= 1
        with self._lock:
            self._busy.add(jvm)
            self.stats["started"] += 1
        return jvm

    def renew(self, jvm: _Jvm | None) -> _Jvm:
        """Keep a leased JVM for the next episode if it is healthy, else replace it."""
        if jvm is not None:
            if self.healthy(jvm):
                self.stats["reused"] += 1
                return jvm
            self.discard(jvm)
        return self.acquire()

    def release(self, jvm: _Jvm | None) -> None:
        """Give a JVM back after a game; it stays idle for the next one if healthy."""
        if jvm is None:
            return
        with self._lock:
            self._busy.discard(jvm)
            keep = len(self._idle) < self.max_idle and jvm.alive()
            if keep:
                self._idle.append(jvm)
        if not keep:
            jvm.shutdown() if jvm.alive() else jvm.kill()

    def discard(self, jvm: _Jvm | None) -> None:
        """Kill a JVM (timed out, crashed, or broken) and forget it."""
        if jvm is None:
            return
        with self._lock:
            self._busy.discard(jvm)
            if jvm in self._idle:
                self._idle.remove(jvm)
        jvm.kill()

    def pids(self) -> list[int]:
        with self._lock:
            return sorted(j.pid for j in [*self._idle, *self._busy])

    def close(self) -> None:
        """Stop every JVM of this pool (idle and leased)."""
        with self._lock:
            jvms = [*self._idle, *self._busy]
            self._idle.clear()
            self._busy.clear()
        for jvm in jvms:
            jvm.kill()

    # calls ----------------------------------------------------------------------------------
    def call(self, jvm: _Jvm, fn: Callable[[Any], Any], *, timeout: float, what: str) -> Any:
        """Run ``fn(server)`` in a daemon thread; kill the JVM past ``timeout`` seconds.

        Raises :class:`EnvTimeout` (JVM killed), or :class:`EnvCrashed` (JVM died, lost its
        connection, or threw a Java exception; the JVM is killed in every case).
        """
        box: dict[str, Any] = {}
        finished = threading.Event()

        def run() -> None:
            try:
                box["value"] = fn(jvm.server)
            except BaseException as exc:  # noqa: BLE001 - handed to the caller
                box["error"] = exc
            finally:
                finished.set()

        threading.Thread(target=run, name=f"scienceworld-{jvm.pid}", daemon=True).start()
        if not finished.wait(timeout):
            self.stats["timeouts"] += 1
            self.discard(jvm)  # also unblocks the worker thread (its socket closes)
            raise EnvTimeout(
                f"ScienceWorld did not answer {what} within {timeout:g}s; its JVM (pid {jvm.pid}) was stopped"
            )
        if "error" not in box:
            return box["value"]
        exc = box["error"]
        from py4j.protocol import Py4JJavaError

        if isinstance(exc, Py4JJavaError) and jvm.alive():
            self.stats["java_errors"] += 1
            try:
                detail = exc.java_exception.toString()
            except Exception:
                detail = str(exc).split("\n", 2)[1] if "\n" in str(exc) else str(exc)
            self.discard(jvm)
            raise EnvCrashed(f"ScienceWorld failed on {what}: {one_line(detail, 200)}") from exc
        # the socket closes a moment before the process is reaped: give a dying JVM time to go
        dead = jvm.wait_dead(1.0)
        self.discard(jvm)
        if dead:
            self.stats["died"] += 1
            raise EnvCrashed(f"the ScienceWorld JVM (pid {jvm.pid}) died during {what}") from exc
        raise EnvCrashed(f"lost the ScienceWorld JVM (pid {jvm.pid}) during {what}: {one_line(exc, 160)}") from exc


_POOL: JvmPool | None = None
_POOL_LOCK = threading.Lock()


def jvm_pool() -> JvmPool:
    """The process-wide pool every :class:`ScienceWorldTextEnv` uses by default."""
    global _POOL
    with _POOL_LOCK:
        if _POOL is None:
            _POOL = JvmPool()
            atexit.register(_POOL.close)
        return _POOL
