"""The one line ``ariadne`` prints for an error it expects (``ariadne: error: ...``), or None for a bug.

An error class is looked up only in a module already imported: an error of a module a command never imported cannot
have been raised, so a command that plays nothing (``runs list``, ``--help``) does not import the game, memory,
model and database stacks just to name their errors (they took seconds)."""

from __future__ import annotations

import sqlite3
import sys

from ..config import FULL_DISK, ConfigError, is_full_disk

# (module, class names): the errors whose message is the line, as raised (bad input, a damaged file, a refusal)
_MESSAGE_ERRORS = (
    ("ariadnegraph.envs.base", ("EnvError",)),
    ("ariadnegraph.fetch", ("FetchError",)),
    ("ariadnegraph.memory.store", ("MemoryCorrupted", "MemoryWriteFailed", "VectorServerUnavailable")),
    ("ariadnegraph.agent.session", ("ReplayMismatch",)),
    ("ariadnegraph.models.structured", ("StructuredOutputError",)),
    ("ariadnegraph.models.local", ("LocalModelError",)),
    ("ariadnegraph.agent.checkpoints", ("CheckpointerUnavailable",)),
)
# what a model or embeddings provider raises once its client's retries are spent: LangChain's typed model errors,
# every openai.OpenAIError, the HTTP errors of httpx under them
_PROVIDER_ERRORS = (
    ("langchain_core.exceptions", ("ModelError",)),
    ("openai", ("OpenAIError",)),
    ("httpx", ("HTTPError", "InvalidURL")),
)
_DATABASE_ERRORS = (("psycopg", ("Error",)),)  # PostgreSQL went away mid-episode: the run resumes later


def loaded(table: tuple[tuple[str, tuple[str, ...]], ...]) -> tuple[type[BaseException], ...]:
    """The classes of ``table`` whose modules this process has imported."""
    found: list[type[BaseException]] = []
    for module, names in table:
        if (imported := sys.modules.get(module)) is not None:
            found += [cls for name in names if isinstance(cls := getattr(imported, name, None), type)]
    return tuple(found)


def error_line(exc: BaseException, own: tuple[type[BaseException], ...] = ()) -> str | None:
    """What ``ariadne: error:`` says of ``exc`` (``own``: the CLI's own error classes), or None for an error the CLI
    does not expect (a bug: its traceback is shown)."""
    expected = (*own, ConfigError, *loaded(_MESSAGE_ERRORS), FileNotFoundError, FileExistsError, ValueError)
    if isinstance(exc, (*expected, OverflowError)):
        return " ".join(str(exc).split()) or type(exc).__name__
    if isinstance(exc, OSError):  # a run or output directory that is a file, read-only, or on a full disk
        return os_message(exc)
    if isinstance(exc, sqlite3.Error):  # a checkpoint or Store write refused by the disk (full, read-only)
        return FULL_DISK if is_full_disk(exc) else f"storage failed: {' '.join(str(exc).split())}"
    if isinstance(exc, loaded(_DATABASE_ERRORS)):
        return f"PostgreSQL failed: {' '.join(str(exc).split())[:300]}"
    if isinstance(exc, loaded((("ariadnegraph.models.chat", ("MalformedReply",)),))):
        return f"model provider failed: {' '.join(str(exc).split())}"
    if isinstance(exc, loaded(_PROVIDER_ERRORS)):
        return provider_message(exc)
    if isinstance(exc, loaded((("langsmith.utils", ("LangSmithError",)),))):  # the eval's results are already saved
        said = " ".join(str(exc).split())[:300]
        return f"LangSmith failed: {said} (what was played is saved; what was not sent is sent next time)"
    return None


def provider_message(exc: BaseException) -> str:
    message = " ".join(str(exc).split())[:300] or type(exc).__name__
    try:
        request = getattr(exc, "request", None)
    except RuntimeError:  # httpx: an error raised before its request was attached
        request = None
    where = (
        f" ({request.method} {request.url})"
        if request is not None and getattr(request, "url", None) is not None
        else ""
    )
    return f"model provider failed: {type(exc).__name__}: {message}{where}"


def os_message(exc: OSError) -> str:
    """An OS error on a file the user named (run or output directory): what failed, and where."""
    where = f": {exc.filename}" if exc.filename else ""
    return f"{FULL_DISK if is_full_disk(exc) else exc.strerror or ' '.join(str(exc).split())}{where}"
