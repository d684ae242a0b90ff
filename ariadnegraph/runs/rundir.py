"""A run's folder (:class:`RunDir`): its files, the one writer's lock, reading and appending their lines, copies
for readers; run ids; output paths a command may write."""

from __future__ import annotations

import fcntl
import json
import os
import re
import secrets
import shutil
import stat
import threading
import time
from collections.abc import Iterator, Mapping
from contextlib import AbstractContextManager, contextmanager, suppress
from dataclasses import dataclass
from pathlib import Path
from typing import Any, cast

from ..config import DiskFull, is_full_disk
from .gate import WRITES_LOCK, WriteGate
from .records import ObservedStep, OracleRecord, RunMeta, StepRecord, oracle_record, step_record

RUN_ID_CHARS = 128  # the longest run id: a folder name, with room for a trial's suffix under the file system's 255


RUN_ID_PATTERN = re.compile(rf"^[A-Za-z0-9][A-Za-z0-9._-]{{0,{RUN_ID_CHARS - 1}}}$")


META_FILE = "run.json"


TRAJECTORY_FILE = "trajectory.jsonl"


ORACLE_FILE = "oracle.jsonl"


CHECKPOINTS_FILE = "checkpoints.sqlite"


MEMORY_DIR = "memory"


CALLS_FILE = "calls.jsonl"


# Files a reader's copy leaves out: the model-call log (large, read by no command), generated pages, the write gate.
_NOT_COPIED = {CALLS_FILE, "report.html", WRITES_LOCK}


def game_label(meta: Mapping[str, Any]) -> str:
    """A run's game as readers name it: the env spec with its seed, variation and split where it has them
    ('cooking:1, seed 1'; 'scienceworld:melt, variation 3')."""
    return str(meta.get("env")) + "".join(
        f", {k} {meta[k]}" for k in ("seed", "variation", "split") if meta.get(k) is not None
    )


def score_text(score: float | None, max_score: float | None) -> str:
    """A score as the CLI prints it: '10/13', '1234/5000', '0.571/1' (a fraction to three places, not 0.571429), '?'
    when unknown."""
    if score is None:
        return "?"
    shown = str(int(score)) if float(score).is_integer() else f"{round(score, 3):g}"
    return f"{shown}/{max_score or 0:g}"


class RunNotFound(ValueError):
    """No run with that id under the run directory. (A ValueError, not an OSError: the run id is the
    bad input, and the LangGraph server shows a ValueError's message to the client.)"""


class RunCorrupted(ValueError):
    """A run directory whose files cannot be read as written; nothing is changed when it is found."""


class RunNotPlayed(ValueError):
    """A run cut short during its first step (a kill, a full disk): nothing a reader shows is recorded yet."""

    def __init__(self, run_id: str) -> None:
        super().__init__(
            f"run {run_id} has recorded no step yet (it was cut short during its first step): "
            f"`ariadne play --resume {run_id}` plays it"
        )


class AmbiguousRun(ValueError):
    """A run id prefix that more than one run starts with."""


class RunBusy(ValueError):
    """Another process (or another server thread) is writing the run."""


# run_id -> value type(s) run.json must hold; what resume and the readers rely on.
_META_TYPES: dict[str, tuple[type, ...]] = {
    "run_id": (str,),
    "env": (str,),
    "max_steps": (int,),
    "context": (dict,),
    "seed": (int, type(None)),
    "variation": (int, type(None)),
    "thread_id": (str, type(None)),
    "split": (str, type(None)),
}


_CONTEXT_TYPES: dict[str, tuple[type, ...]] = {"model": (str,), "preset": (str,)}


# What every trajectory line must hold (older keys are optional).
_STEP_TYPES: dict[str, tuple[type, ...]] = {"action": (str, type(None)), "observation": (str,), "trail": (str,)}


def check_run_id(run_id: object) -> str:
    """A run id a run directory can be named by (one path component: no '/', no '..'), or ValueError."""
    if isinstance(run_id, str) and len(run_id) > RUN_ID_CHARS:
        raise ValueError(f"run id '{run_id:.40}...' is {len(run_id):,} characters long: at most {RUN_ID_CHARS}")
    if not isinstance(run_id, str) or not RUN_ID_PATTERN.match(run_id):
        raise ValueError(
            f"invalid run id {run_id!r:.60}: use 1-{RUN_ID_CHARS} letters, digits, '.', '_' or '-', starting with a "
            f"letter or digit"
        )
    return run_id


def new_run_id(env_spec: str) -> str:
    slug = re.sub(r"[^A-Za-z0-9]+", "-", env_spec).strip("-")[:40] or "run"
    return f"{time.strftime('%Y%m%d-%H%M%S')}-{slug}-{secrets.token_hex(3)}"


class OutputRefused(ValueError):
    """An output path a command does not write: one inside a run's folder (a run's files are written by its
    one writer only), or a folder where a file is asked for. Refused before anything is written."""


def _is_run_folder(folder: Path) -> bool:
    """A folder named like a run that holds its run.json (or the run.json.tmp of a creation cut short)."""
    return bool(RUN_ID_PATTERN.match(folder.name)) and (
        (folder / META_FILE).is_file() or (folder / (META_FILE + ".tmp")).is_file()
    )


def run_folder_of(path: str | Path) -> Path | None:
    """The run folder ``path`` is in or is, wherever it lies (any run directory, an eval's runs), with every
    symbolic link followed (a link to a run's file is that file); None when it is in none."""
    resolved = Path(os.path.realpath(Path(path).expanduser()))
    return next((folder for folder in (resolved, *resolved.parents) if _is_run_folder(folder)), None)


def check_output(given: str | Path, what: str, *, folder: bool = False, own: Path | None = None) -> Path:
    """The path a command writes ``what`` (an option, e.g. ``--html``) to, checked before anything is
    written: never in a run's folder or onto a run's file (OutputRefused), except ``own``, the one file
    a command designates as its output there (a run's report.html); and for a file (``folder`` False) not
    an existing folder or a path ending in a separator: the caller has no name to give the file, so
    the user is asked for one rather than a name being made up."""
    text = str(given)
    if not text.strip():
        raise OutputRefused(f"{what} is empty: give a {'folder' if folder else 'file'}")
    path = Path(text).expanduser()
    if own is not None and os.path.realpath(path) == os.path.realpath(own):
        return path
    run = run_folder_of(path)
    if run is not None:
        raise OutputRefused(
            f"{what} {text} is in the folder of run {run.name} ({run}), whose files only the run itself writes; "
            "give a path outside it"
        )
    if not folder and (text.endswith(("/", os.sep)) or path.is_dir()):
        raise OutputRefused(f"{what} {text} is a folder: give a file name (e.g. {text.rstrip('/' + os.sep)}/NAME)")
    if folder and (path.exists() or path.is_symlink()) and not path.is_dir():
        kind = "a link to nothing" if not path.exists() else "a file"
        raise OutputRefused(f"{what} {text} is {kind}, not a folder: give a folder (a new one is made)")
    existing = next((p for p in path.parents if p.exists()), None)  # the folders below it are made on writing
    if existing is not None and not existing.is_dir():
        raise OutputRefused(f"{what} {text}: {existing} is a file, not a folder")
    if not folder:
        _written_in_place(path, f"{what} {text}")  # a socket or a disk refused before anything is read or written
    return path


def _written_in_place(path: Path, named: str) -> bool:
    """Whether an output at ``path`` is written into where it is, not replaced: a named pipe or a character device
    (/dev/null, a terminal), a link to one, or a file this process holds open named through its descriptors
    (/dev/stdout, /proc/self/fd/1: a shell's redirection). Renaming a file over such a path would destroy it (the
    pipe's reader gets nothing; run as root, a device node or /dev/stdout of the whole machine becomes a file). What
    takes no file's text is refused (OutputRefused): a socket, and a block device (a disk, whose blocks the text would
    overwrite). A regular file, a new path or a link to either is not written in place (write_output)."""
    try:
        mode = os.stat(path).st_mode  # (links followed: /dev/stdout is a link to the terminal, the pipe or the file)
    except (FileNotFoundError, NotADirectoryError):
        return False
    if stat.S_ISSOCK(mode) or stat.S_ISBLK(mode):
        kind = "a socket" if stat.S_ISSOCK(mode) else "a block device (a disk)"
        raise OutputRefused(f"{named} is {kind}, which takes no file: give a file, a pipe or /dev/stdout")
    return stat.S_ISFIFO(mode) or stat.S_ISCHR(mode) or (stat.S_ISREG(mode) and _names_an_open_file(path))


# A process's open files by descriptor: /proc/self/fd/1, /proc/1234/task/5/fd/1, /dev/fd/1, /dev/stdout.
_OPEN_FILE_NAME = re.compile(r"^/proc/(self|thread-self|\d+)(/task/\d+)?/fd/\d+$|^/dev/(fd/\d+|stdin|stdout|stderr)$")


def _names_an_open_file(path: Path) -> bool:
    """Whether ``path``, or a link on the way from it, names a file by a process's descriptor (the links followed one
    at a time, each folder resolved): the file a shell redirected to, whose name is the machine's, not the user's."""
    hop = os.path.join(os.path.realpath(os.path.dirname(os.path.abspath(path))), os.path.basename(path))
    for _ in range(40):  # (the kernel's own limit on links followed)
        if _OPEN_FILE_NAME.match(hop):
            return True
        if not os.path.islink(hop):
            return False
        target = os.path.join(os.path.dirname(hop), os.readlink(hop))
        hop = os.path.join(os.path.realpath(os.path.dirname(target)), os.path.basename(target))
    return False


def write_output(path: Path, text: str) -> None:
    """``text`` as the file ``path`` (checked by :func:`check_output`): every output file a command writes is written
    here. A pipe, a character device or a file named by a descriptor, or a link to one, is written in place
    (:func:`_written_in_place`). Anything else is replaced whole or not at all: written beside it under a fresh name,
    then renamed over it, so a failure names ``path``, the file the user asked for, and leaves no partial file behind.

    A link to a regular file (or to nothing) is replaced by the file, never written through: a link can be planted
    where a command writes unasked (a run's report.html in a cloned run directory, a shared /tmp), and writing
    through it would overwrite whatever it names (~/.bashrc) with text a run's game chose."""
    try:
        if _written_in_place(path, str(path)):
            _write_in_place(path, text)
            return
    except OSError as exc:
        raise _naming(exc, path) from None
    tmp = path.with_name(f".{path.name}.{secrets.token_hex(4)}.tmp")
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        tmp.write_text(text, encoding="utf-8")
        os.replace(tmp, path)
    except BaseException as exc:
        with suppress(OSError):
            tmp.unlink()
        if isinstance(exc, OSError):
            raise _naming(exc, path) from None
        raise


def _write_in_place(path: Path, text: str) -> None:
    """``text`` written into what ``path`` names (:func:`_written_in_place`): opened as it is, never created or
    truncated (a redirected stdout is appended to, as the shell left it), and checked once open to be what was judged
    (a path swapped for a regular file meanwhile is left as it is)."""
    fd = os.open(path, os.O_WRONLY | os.O_APPEND | os.O_NOCTTY)  # a pipe's open waits for its reader, as a shell's does
    with open(fd, "w", encoding="utf-8") as handle:
        mode = os.fstat(fd).st_mode
        if not (stat.S_ISFIFO(mode) or stat.S_ISCHR(mode) or (stat.S_ISREG(mode) and _names_an_open_file(path))):
            raise OutputRefused(f"{path} changed while it was opened: nothing written; write it again")
        handle.write(text)


def _naming(exc: OSError, path: Path) -> OSError:
    """``exc`` naming ``path``, the file the user asked for (not a temporary name beside it)."""
    return OSError(exc.errno, exc.strerror, str(path)) if exc.errno is not None else exc


def copy_folder(source: Path, target: Path, what: str) -> None:
    """``source`` copied to ``target`` for a reader (what a copy leaves out left out). A file that vanished or changed
    under the copy (a run deleted, or written by a writer that takes no gate) is one line naming ``what``, not the
    list of every file's error ``shutil.copytree`` gathers; a full disk is DiskFull naming the copy."""
    try:
        shutil.copytree(source, target, ignore=lambda folder, names: [n for n in names if n in _NOT_COPIED])
    except (shutil.Error, OSError) as exc:
        failures = exc.args[0] if isinstance(exc, shutil.Error) and exc.args and isinstance(exc.args[0], list) else []
        if is_full_disk(exc) or any(is_full_disk(OSError(str(f[-1]))) for f in failures):
            raise DiskFull(target) from None
        source_file, reason = (failures[0][0], failures[0][-1]) if failures else (exc.filename or source, exc.strerror)
        said = " ".join(str(reason or type(exc).__name__).split())[:120]
        if "No such file" in said:  # removed or replaced while the copy was made
            raise RunBusy(
                f"{what} changed while it was copied for reading ({source_file}: {said}); try again"
            ) from None
        raise RunCorrupted(f"{what} could not be copied for reading ({source_file}: {said})") from None


def _unfinished_creation(path: Path) -> bool:
    """A run directory whose creation was cut (killed, a full disk) before its run.json: nothing but a
    half-written run.json may be in it, so creating the run again under the same id is safe."""
    return (
        path.is_dir()
        and not (path / META_FILE).exists()
        and all(p.name in (META_FILE + ".tmp", WRITES_LOCK) for p in path.iterdir())
    )


@dataclass(frozen=True)
class RunDir:
    """Paths and append-only files of one run."""

    path: Path

    @property
    def run_id(self) -> str:
        return self.path.name

    @property
    def meta_path(self) -> Path:
        return self.path / META_FILE

    @property
    def trajectory_path(self) -> Path:
        return self.path / TRAJECTORY_FILE

    @property
    def oracle_path(self) -> Path:
        return self.path / ORACLE_FILE

    @property
    def checkpoints_path(self) -> Path:
        return self.path / CHECKPOINTS_FILE

    @property
    def memory_path(self) -> Path:
        return self.path / MEMORY_DIR

    @classmethod
    def create(cls, root: str | Path, run_id: str, meta: RunMeta) -> "RunDir":
        check_run_id(run_id)
        check_output(root, "the run directory", folder=True)  # runs inside a run would be its files
        path = Path(root) / run_id
        if path.exists() and not _unfinished_creation(path):
            raise FileExistsError(f"run '{run_id}' already exists in {root}")
        path.mkdir(parents=True, exist_ok=True)
        run = cls(path)
        run.write_meta(meta)
        return run

    @classmethod
    def open(cls, root: str | Path, run_id: str) -> "RunDir":
        path = Path(root) / run_id
        if not RUN_ID_PATTERN.match(run_id) or not path.is_dir():
            raise RunNotFound(f"no run '{run_id}' in {root}")
        if _unfinished_creation(path):
            raise RunNotFound(
                f"run '{run_id}' in {root} was never created (cut short before its {META_FILE}: a full disk, a kill); "
                "play it again under its id (--run-id)"
            )
        if not (path / META_FILE).is_file():
            raise RunCorrupted(f"run {run_id}: {META_FILE} is missing")
        return cls(path)

    def meta(self) -> RunMeta:
        """run.json, checked for the keys and types the code relies on (RunCorrupted otherwise)."""
        try:
            meta = json.loads(self.meta_path.read_text())
        except (ValueError, UnicodeDecodeError) as exc:
            raise RunCorrupted(
                f"run {self.run_id}: {META_FILE} is damaged ({' '.join(str(exc).split())[:80]})"
            ) from None
        if not isinstance(meta, dict):
            raise RunCorrupted(f"run {self.run_id}: {META_FILE} is damaged (not an object)")
        problems = _wrong_types(meta, _META_TYPES, required=("env", "context"))
        if not problems and isinstance(meta["context"], dict):
            problems = [f"context.{p}" for p in _wrong_types(meta["context"], _CONTEXT_TYPES, required=("model",))]
        if problems:
            raise RunCorrupted(
                f"run {self.run_id}: {META_FILE} is damaged ({', '.join(problems)} missing or of the wrong type)"
            )
        return cast(RunMeta, meta)

    @contextmanager
    def writer(self) -> Iterator["RunDir"]:
        """Hold the run's one-writer lock while the block runs; :class:`RunBusy` if another process
        holds it. Re-entrant within a process (the episode's session takes it again inside play)."""
        _acquire(self)
        try:
            yield self
        finally:
            _release(self)

    def acquire_writer(self) -> "RunDir":
        """Take the writer lock until :meth:`release_writer` (a session's lifetime)."""
        _acquire(self)
        return self

    def release_writer(self) -> None:
        if holds_writer(self):
            _release(self)

    def writing(self) -> AbstractContextManager[None]:
        """Hold the run's write gate while the block writes its files (runs/gate.py): what every writer of a run's
        files (this class, its checkpoints, its memory) writes under, so a reader never copies half a write."""
        return WriteGate(self.path).writing()

    def reading(self) -> AbstractContextManager[None]:
        """Hold the run's write gate shared while the block copies its files: no write is under way meanwhile."""
        return WriteGate(self.path).reading()

    def copy_to(self, root: Path) -> "RunDir":
        """A private copy of the run under ``root`` for reading: opening SQLite or Chroma files writes
        to them (journals, checkpoints of the write-ahead log), so readers open the copy instead. The copy is
        the run as it stood between two of its writer's writes (``reading``)."""
        target = root / self.run_id
        with self.reading():
            copy_folder(self.path, target, f"run {self.run_id}")
        return RunDir(target)

    def write_meta(self, meta: RunMeta | dict[str, Any]) -> None:
        # Write-then-rename: a crash leaves the old file or the new one, never half of one.
        tmp = self.meta_path.with_suffix(".json.tmp")
        with self.writing(), _named(self.meta_path):
            tmp.write_text(json.dumps(meta, indent=2, sort_keys=True))
            os.replace(tmp, self.meta_path)

    def append_step(self, record: StepRecord, oracle: OracleRecord | None = None) -> None:
        """Record one finished step (and the game's ground truth for it, if given), synced to disk."""
        with self.writing():
            if oracle is not None:
                # Not synced: it can be rebuilt by replaying the actions; the trajectory line is the record.
                _append_line(self.oracle_path, {"step": record["step"], **oracle}, sync=False)
            _append_line(self.trajectory_path, dict(record))

    def record_step(
        self,
        step: int,
        action: str | None,
        observed: ObservedStep,
        reason: str | None = None,
        trail: str | None = None,
        decided: dict[str, Any] | None = None,
    ) -> StepRecord:
        """Record a step the game answered: its trajectory line and its oracle line. Returns the trajectory line."""
        record = step_record(step, action, observed, reason, trail, decided)
        self.append_step(record, oracle_record(observed, first=step == 0))
        return record

    def truncate_steps(self, last_step: int) -> None:
        """Drop recorded steps after ``last_step``, and a torn last line; -1 drops them all."""
        with self.writing():
            for path in (self.trajectory_path, self.oracle_path):
                _truncate_lines(path, last_step)

    def steps(self) -> Iterator[StepRecord]:
        """Recorded steps in order; a torn last line (crash mid-write) is ignored."""
        return cast(Iterator[StepRecord], _read_lines(self.trajectory_path, _STEP_TYPES))

    def oracle_steps(self) -> Iterator[dict[str, Any]]:
        """The game's ground truth per recorded step (evaluation only), in order: an OracleRecord's keys, and the
        game's own counters beside them (so read as a plain mapping)."""
        return _read_lines(self.oracle_path, {})

    def torn(self, path: Path) -> bool:
        """Whether ``path`` ends in a line cut off by a crash mid-write."""
        return path.is_file() and path.stat().st_size > 0 and not _ends_with_newline(path)


def _wrong_types(
    record: dict[str, Any], types: dict[str, tuple[type, ...]], required: tuple[str, ...] = ()
) -> list[str]:
    wrong = [key for key in required if key not in record]
    for key, allowed in types.items():
        value = record.get(key)
        if key in record and (not isinstance(value, allowed) or (isinstance(value, bool) and bool not in allowed)):
            wrong.append(key)
    return wrong


# One-writer lock: per process, the folder's file descriptor (flock'd) and how many holders share it.
_HELD: dict[Path, tuple[int, int]] = {}


_HELD_LOCK = threading.Lock()


def _acquire(run: RunDir) -> None:
    key = run.path.resolve()
    with _HELD_LOCK:
        if key in _HELD:
            descriptor, holders = _HELD[key]
            _HELD[key] = (descriptor, holders + 1)
            return
        descriptor = os.open(key, os.O_RDONLY | os.O_DIRECTORY)
        try:
            fcntl.flock(descriptor, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            os.close(descriptor)
            raise RunBusy(
                f"run {run.run_id} is being written by another process (a play, resume, eval or server run);"
                " wait for it to end"
            ) from None
        _HELD[key] = (descriptor, 1)


def _release(run: RunDir) -> None:
    key = run.path.resolve()
    with _HELD_LOCK:
        descriptor, holders = _HELD.get(key, (-1, 0))
        if holders > 1:
            _HELD[key] = (descriptor, holders - 1)
        elif holders == 1:
            del _HELD[key]
            os.close(descriptor)  # closing the descriptor drops the flock


def holds_writer(run: RunDir) -> bool:
    """Whether this process holds the run's writer lock."""
    with _HELD_LOCK:
        return run.path.resolve() in _HELD


def _ends_with_newline(path: Path) -> bool:
    with path.open("rb") as handle:
        handle.seek(-1, os.SEEK_END)
        return handle.read(1) == b"\n"


def _append_line(path: Path, record: dict[str, Any], sync: bool = True) -> None:
    with _named(path), path.open("a") as handle:
        handle.write(json.dumps(record, sort_keys=True, default=str) + "\n")
        handle.flush()
        if sync:
            os.fsync(handle.fileno())


@contextmanager
def _named(path: Path) -> Iterator[None]:
    """A write of a run's file refused for want of space is DiskFull naming the file (a failed write() or
    close() names none)."""
    try:
        yield
    except OSError as exc:
        if is_full_disk(exc):
            raise DiskFull(path) from exc
        raise


def _read_lines(path: Path, types: dict[str, tuple[type, ...]]) -> Iterator[dict[str, Any]]:
    """The records of a JSON-lines step file; steps must run 0, 1, 2, ... (a gap, a repeat or a step
    out of order is damage: two writers, or a file edited or cut)."""
    if not path.exists():
        return
    with path.open("rb") as handle:
        for number, raw in enumerate(handle, 1):
            if not raw.endswith(b"\n"):
                break  # torn by a crash mid-write
            try:
                record = json.loads(raw.decode())
            except ValueError:  # bad JSON or bad UTF-8
                record = None
            if (
                not isinstance(record, dict)
                or type(record.get("step")) is not int
                or record["step"] != number - 1
                or _wrong_types(record, types)
            ):
                raise RunCorrupted(f"run {path.parent.name}: {path.name} line {number} is damaged")
            yield record


def _truncate_lines(path: Path, last_step: int) -> None:
    if not path.exists():
        return
    records = list(_read_lines(path, {}))
    kept = [r for r in records if r["step"] <= last_step]
    torn = path.stat().st_size > 0 and not _ends_with_newline(path)
    if len(kept) == len(records) and not torn:
        return
    tmp = path.with_suffix(".jsonl.tmp")
    tmp.write_text("".join(json.dumps(r, sort_keys=True) + "\n" for r in kept))
    os.replace(tmp, path)
