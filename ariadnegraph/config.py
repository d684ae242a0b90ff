"""Where ariadnegraph finds things on disk: the one place for paths and environment variables.

Every setting has an environment variable so a deployment (LangGraph server, CI) can set it
without code edits. Agent behaviour settings (models, presets) live with the agent, not here.
"""

from __future__ import annotations

import errno
import os
import sys
from fnmatch import fnmatchcase
from pathlib import Path

PACKAGE_DIR = Path(__file__).resolve().parent
REPO_DIR = PACKAGE_DIR.parent

GAMES_DIR_ENV = "ARIADNE_GAMES_DIR"
CACHE_DIR_ENV = "ARIADNE_CACHE_DIR"
LOCAL_MODELS_DIR_ENV = "ARIADNE_LOCAL_MODELS_DIR"
LOCAL_ENGINE_ENV = "ARIADNE_LOCAL_ENGINE"  # the llama.cpp server local models run on: wheel (default) or built
LLAMA_SERVER_ENV = "ARIADNE_LLAMA_SERVER"  # a llama-server program run for local models instead of the engine's
SCIENCEWORLD_JAVA_OPTS_ENV = "ARIADNE_SCIENCEWORLD_JAVA_OPTS"  # the options ScienceWorld's JVMs start with
STORE_ENV = "ARIADNE_STORE"
EMBEDDINGS_ENV = "ARIADNE_EMBEDDINGS"  # embeddings of new memories: hashing (default), e5, or provider:model
CHECKPOINTER_ENV = "ARIADNE_CHECKPOINTER"  # sqlite (a file per run, the default) or a postgres:// URL
MODEL_API_KEY_ENV = "ARIADNE_MODEL_API_KEY"  # the key sent to a --base-url server (never a context field)
SERVER_API_KEY_ENV = "ARIADNE_SERVER_API_KEY"  # the LangGraph server's own access key (server/auth.py)
RUN_DIR_ENV = "ARIADNE_RUN_DIR"  # where runs are written and read (--run-dir sets it for the command)
# The model a run uses when none is named (``ariadne play``, the server's graphs; ``$ARIADNE_MODEL`` wins): the local
# model the benchmark tables show winning, pulled on first use. ``scripted`` (the test double) is only chosen by name.
DEFAULT_MODEL = "local:qwen2.5-coder-1.5b"
DEFAULT_RUN_DIR = "runs"
MEMQA_PER_TYPE = 2  # memory-QA questions per ability type and run: EMemBench's max_per_type (A.6)
MEMQA_ANSWERERS = ("in-context", "full-history", "memory")  # memory QA's answerers, asked unless --answerer says
# EMemBench's memory agents (§4.1), each the real library, installed with the extra of this name: asked when named
MEMQA_MEMORY_AGENTS = ("mem0", "langmem")
MEMQA_EXTRA = "memagents"
STORE_FILE = "memory-store.sqlite"


# Variables that choose code this process or a program it starts runs: a program, the folder a program is run from,
# options that load code, what a loader, Python, a JVM, pip, git, tw-make, a compiler or a shell loads ('*' ends a
# family's prefix). A folder's .env comes with whatever was cloned or unpacked there, so these are read from the
# environment only, the user's own: read_env_file leaves them unset and says so in one line, and every other setting
# in the file still applies (refusing the whole file would stop every command in that folder over a line it ignores).
PROGRAM_VARIABLES = (
    LLAMA_SERVER_ENV,  # run when a local model starts
    LOCAL_MODELS_DIR_ENV,  # the built llama-server is run from it (ARIADNE_LOCAL_ENGINE=built)
    SCIENCEWORLD_JAVA_OPTS_ENV,  # -javaagent: loads code into the JVM, -XX:OnError= runs a command
    "PATH",
    "LD_*",
    "DYLD_*",
    "GCONV_PATH",
    "PYTHON*",  # PYTHONPATH, PYTHONHOME, PYTHONSTARTUP; PYTHONWARNINGS imports the modules it names
    "JAVA_HOME",  # py4j starts $JAVA_HOME/bin/java
    "JAVA_TOOL_OPTIONS",
    "JDK_JAVA_OPTIONS",
    "_JAVA_OPTIONS",
    "PIP_*",  # the engine's build downloads an sdist, whose build code pip runs: the index names the package
    "GIT_*",  # provenance runs git: GIT_CONFIG_* can set core.fsmonitor, a command git runs
    "INFORM_HOME",  # tw-make runs the Inform 7 compilers found there
    "CC",
    "CXX",
    "CMAKE_*",  # the engine's build: its compilers and a toolchain file cmake runs
    "BASH_ENV",
    "ENV",
)


def is_program_variable(name: str) -> bool:
    """Whether the variable ``name`` chooses code to run (:data:`PROGRAM_VARIABLES`)."""
    return any(fnmatchcase(name, pattern) for pattern in PROGRAM_VARIABLES)


def setting(name: str) -> str | None:
    """The environment variable ``name`` as a setting: its value without surrounding blanks, None when it is unset
    or blank. Every ARIADNE_* setting is read here, so a blank one (``ARIADNE_MODEL=" "``, an emptied line of a
    .env) takes the default as an unset one does, never a blank model, path, URL or key."""
    value = (os.environ.get(name) or "").strip()
    return value or None


class ConfigError(ValueError):
    """A setting points at something that does not exist or cannot be used."""


FULL_DISK = "the disk is full"  # how every command names a write refused for want of space
_NO_SPACE = (errno.ENOSPC, errno.EDQUOT)
_SQLITE_FULL = 13  # sqlite3.SQLITE_FULL: "database or disk is full"


class DiskFull(OSError):
    """A write failed for want of space (ENOSPC, a quota, SQLite's SQLITE_FULL): nothing is damaged by it,
    and the command can be run again once there is room."""

    def __init__(self, where: str | Path) -> None:
        super().__init__(errno.ENOSPC, FULL_DISK, str(where))


_NO_SPACE_TEXT = ("database or disk is full", "No space left on device", "(os error 28)")  # SQLite's, Rust's (Chroma)
_SQLITE_IOERR = 10  # the primary code of SQLite's I/O errors (SQLITE_IOERR_SHMSIZE, _WRITE, _FSYNC, ...)
LOW_SPACE = 1 << 20  # bytes: a filesystem with less free space than this is full to a write that fails


def is_full_disk(exc: BaseException | None, where: str | Path | None = None) -> bool:
    """Whether ``exc`` (or what caused it) is a write refused for want of space, never a damaged file.

    SQLite reports some writes a full disk refuses as an I/O error ("disk I/O error": growing the
    shared-memory file of a write-ahead log, a short write), without the system's errno; with ``where``
    (the file or folder written), such an error on a filesystem with less than :data:`LOW_SPACE` free
    counts as a full disk too."""
    seen, io_error = 0, False
    while exc is not None and seen < 8:
        if isinstance(exc, OSError) and exc.errno in _NO_SPACE:
            return True
        if getattr(exc, "sqlite_errorcode", None) == _SQLITE_FULL or any(t in str(exc) for t in _NO_SPACE_TEXT):
            return True
        code = getattr(exc, "sqlite_errorcode", None)
        io_error = io_error or (isinstance(code, int) and code & 0xFF == _SQLITE_IOERR) or "disk I/O error" in str(exc)
        exc, seen = exc.__cause__ or exc.__context__, seen + 1
    return io_error and where is not None and free_space(where) < LOW_SPACE


def free_space(where: str | Path) -> int:
    """Bytes free to this user on the filesystem of ``where`` (its nearest existing folder); a large number
    when it cannot be told."""
    path = Path(where)
    for folder in (path, *path.parents):
        try:
            stat = os.statvfs(folder)
        except OSError:
            continue
        return stat.f_bavail * stat.f_frsize
    return 1 << 62


ENV_FILE = ".env"  # settings a folder keeps for what runs from it (.env.example lists them)


def read_env_file(folder: str | Path = ".") -> list[str]:
    """The settings of ``folder``'s ``.env`` (python-dotenv's format), for the variables the environment does not
    set: the environment wins, and a command's flags win over both (they set the environment after this). Read by
    the CLI before anything else and by the LangGraph server's modules as it starts. A variable that chooses code to
    run (:data:`PROGRAM_VARIABLES`) is never taken from it: one warning line names what was left unset. Returns the
    names it set; a file that cannot be read (not UTF-8 text, unreadable) is a ConfigError naming it."""
    from dotenv import dotenv_values

    path = Path(folder) / ENV_FILE
    if not path.is_file():
        return []
    try:
        values = dotenv_values(path)
    except UnicodeDecodeError:
        where = _first_non_utf8(path)
        raise ConfigError(f"{path.resolve()} is not UTF-8 text{where}: save it as UTF-8, or move it away") from None
    except OSError as exc:
        raise ConfigError(f"cannot read {path.resolve()}: {exc.strerror or exc}") from None
    wanted = {name: value for name, value in values.items() if value is not None and name not in os.environ}
    ignored = sorted(name for name, value in wanted.items() if is_program_variable(name) and value.strip())
    if ignored:
        them = "it" if len(ignored) == 1 else "them"
        print(
            f"ariadne: warning: {path.resolve()} sets {', '.join(ignored)}, which choose{'s' * (them == 'it')} a "
            f"program to run: ignored (a folder's .env may come with what was cloned there); set {them} in your "
            f"environment to use {them}",
            file=sys.stderr,
        )
    added = {name: value for name, value in wanted.items() if not is_program_variable(name)}
    os.environ.update(added)
    return list(added)


def _first_non_utf8(path: Path) -> str:
    """Where ``path``'s text stops being UTF-8, as a user finds it in an editor (the decoder's own offset counts from
    the chunk it was reading)."""
    raw = path.read_bytes()
    try:
        raw.decode("utf-8")
    except UnicodeDecodeError as exc:
        line = raw.count(b"\n", 0, exc.start) + 1
        return f" (line {line}: byte 0x{raw[exc.start]:02x})"
    return ""


def games_dir() -> Path:
    """The folder that holds game collections (e.g. ``arigraph/games.toml``).

    ``$ARIADNE_GAMES_DIR`` wins; otherwise ``../shared/games`` next to the checkout (the project's
    layout), then next to the current directory. Games are never copied into the repository.
    """
    configured = setting(GAMES_DIR_ENV)
    if configured:
        path = Path(configured).expanduser()
        if not path.is_dir():
            raise ConfigError(f"{GAMES_DIR_ENV}={configured} is not a directory")
        return path
    for candidate in (REPO_DIR.parent / "shared" / "games", Path.cwd().parent / "shared" / "games"):
        if candidate.is_dir():
            return candidate
    raise ConfigError(f"no games directory found: set {GAMES_DIR_ENV}, or run `ariadne games fetch arigraph`")


def cache_dir() -> Path:
    """Writable cache for generated games and other derived files (``$ARIADNE_CACHE_DIR``)."""
    configured = setting(CACHE_DIR_ENV)
    base = Path(configured).expanduser() if configured else Path.home() / ".cache" / "ariadnegraph"
    base.mkdir(parents=True, exist_ok=True)
    return base


def local_models_dir() -> Path:
    """Where pulled model weights and the built llama.cpp server live (``$ARIADNE_LOCAL_MODELS_DIR``).

    Apart from the cache of generated games on purpose: weights (GBs) and the server build (about
    20 minutes) are made once per machine and shared by every checkout, CI run and test session.
    """
    configured = setting(LOCAL_MODELS_DIR_ENV)
    base = Path(configured).expanduser() if configured else Path.home() / ".cache" / "ariadnegraph" / "local"
    base.mkdir(parents=True, exist_ok=True)
    return base


def run_dir(explicit: str | Path | None = None) -> Path:
    """The folder holding one subfolder per run: ``explicit`` (``--run-dir``), else ``$ARIADNE_RUN_DIR``, else
    ``runs`` in the current directory. Every command and the agent's context read it here."""
    configured = explicit or setting(RUN_DIR_ENV) or DEFAULT_RUN_DIR
    path = Path(configured).expanduser()
    if path.exists() and not path.is_dir():
        raise ConfigError(f"the run directory {path} is a file, not a folder")
    return path


def memory_store_path(explicit: str | Path | None = None) -> Path:
    """The long-term memory Store (SQLite): ``explicit`` (``--store``), else ``$ARIADNE_STORE``, else
    ``~/.local/share/ariadnegraph/memory-store.sqlite``. Data, not cache: it is what agents learned."""
    configured = explicit or setting(STORE_ENV)
    path = (
        Path(configured).expanduser() if configured else Path.home() / ".local" / "share" / "ariadnegraph" / STORE_FILE
    )
    if path.is_dir():
        raise ConfigError(f"the memory store {path} is a directory, not a file")
    return path


def checkpointer_url() -> str | None:
    """Where new runs keep their LangGraph checkpoints: None for the run's own SQLite file (the default),
    else the PostgreSQL URL of ``$ARIADNE_CHECKPOINTER`` (``--checkpointer`` sets it for the process and
    the eval workers it starts). Run metadata always stays in the run directory."""
    value = setting(CHECKPOINTER_ENV)
    if value is None or value == "sqlite":
        return None
    if not value.startswith(("postgres://", "postgresql://")):
        raise ConfigError(f"{CHECKPOINTER_ENV} takes sqlite or a postgres://... URL, got '{value[:60]}'")
    return value


def model_api_key() -> str | None:
    """The key for an OpenAI-compatible server at ``base_url`` (``$ARIADNE_MODEL_API_KEY``). A provider's own
    variable (``OPENAI_API_KEY``) is for that provider alone and is never sent to another URL; the server's
    access key (``$ARIADNE_SERVER_API_KEY``) is never sent to any model."""
    return setting(MODEL_API_KEY_ENV)


def redacted(url: str) -> str:
    """A URL without its password (what run.json may record)."""
    from urllib.parse import urlsplit, urlunsplit

    parts = urlsplit(url)
    if parts.password is None:
        return url
    netloc = f"{parts.username}:***@{parts.hostname}" + (f":{parts.port}" if parts.port else "")
    return urlunsplit(parts._replace(netloc=netloc))


def embeddings_setting() -> str | None:
    """The embeddings new memories are built with (``--embeddings`` sets ``$ARIADNE_EMBEDDINGS``);
    None: the memory layer's default. A reopened memory always uses the embeddings it was built with."""
    return setting(EMBEDDINGS_ENV)
