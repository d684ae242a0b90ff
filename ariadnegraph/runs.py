"""Run directories: one folder per episode with its metadata, trajectory and memory.

Layout of ``<run_dir>/<run_id>/``: ``run.json`` (what was run), ``trajectory.jsonl`` (one JSON line per
step, appended and flushed as the step finishes, so a crash never loses a finished step),
``oracle.jsonl`` (the game's ground truth at each step, for evaluation code only: the agent never
reads it), ``checkpoints.sqlite`` (LangGraph's checkpoints), ``memory/`` (the
:class:`~ariadnegraph.memory.WorldMemory` files), ``calls.jsonl`` (the model calls).

One writer per run: :meth:`RunDir.writer` holds an advisory lock on the run's folder for the whole
episode (the kernel drops it when the process dies, so a killed writer never leaves a stale lock).
Readers never write: they read a private copy (:meth:`RunDir.copy_to`).

The records of those files are typed here, their one owner: :class:`RunMeta` (run.json, built by
:func:`new_run_meta`), :class:`StepRecord` (a trajectory line) and :class:`OracleRecord` (an oracle line),
each built by one function and checked once, where it is read (:meth:`RunDir.meta`, :meth:`RunDir.steps`).
"""

from __future__ import annotations

import fcntl
import hashlib
import json
import os
import re
import secrets
import shutil
import threading
import time
from collections.abc import Iterator, Mapping, Sequence
from contextlib import contextmanager, suppress
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Protocol, TypedDict, cast

from .config import DiskFull, is_full_disk

RUN_ID_CHARS = 128  # the longest run id: a folder name, with room for a trial's suffix under the file system's 255
_RUN_ID = re.compile(rf"^[A-Za-z0-9][A-Za-z0-9._-]{{0,{RUN_ID_CHARS - 1}}}$")

META_FILE = "run.json"
TRAJECTORY_FILE = "trajectory.jsonl"
ORACLE_FILE = "oracle.jsonl"
CHECKPOINTS_FILE = "checkpoints.sqlite"
MEMORY_DIR = "memory"
CALLS_FILE = "calls.jsonl"
# Files a reader's copy leaves out: the model-call log (large, read by no command) and generated pages.
_NOT_COPIED = {CALLS_FILE, "report.html"}


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


# -- the records of a run's files ---------------------------------------------------------------------


class RunMeta(TypedDict, total=False):
    """run.json: what was played, with which settings, and (once finished) what came of it."""

    run_id: str
    env: str  # the game spec
    seed: int | None
    variation: int | None
    split: str | None
    max_steps: int
    thread_id: str  # the thread that owns the run (a CLI run's id, or its own thread in a shared PostgreSQL)
    context: dict[str, Any]  # the AgentContext's settings, as given
    lessons: list[str]  # reflections shown from the start (earlier trials, a memory namespace)
    script: list[str]  # commands played as given (a gold trajectory read into memory)
    trial: dict[str, Any]  # which trial of how many, and the reflection that followed it
    checkpoints: dict[str, Any]  # where the checkpoints are when not in the run's folder (agent/checkpoints.py)
    local_checkpoints: bool  # the checkpoints are in the run's folder (agent/integrity.py)
    seeded: dict[str, Any]  # what the memory was seeded with before the first step
    result: dict[str, Any]  # score, max_score, won, lost, steps, usage, replies (the finish node)


def new_run_meta(
    run_id: str,
    *,
    env: str,
    seed: int | None,
    variation: int | None,
    max_steps: int | None,
    context: Mapping[str, Any],
    thread_id: str,
    split: str | None = None,
    **given: Any,
) -> RunMeta:
    """A new run's run.json, the one way it is built (a CLI run and a server's first step alike); ``given``: the
    optional entries that are set (lessons, script, trial, checkpoints, local_checkpoints)."""
    meta: dict[str, Any] = {
        "run_id": run_id,
        "env": env,
        "seed": seed,
        "variation": variation,
        "max_steps": max_steps,
        "thread_id": thread_id,
        "context": dict(context),
    }
    if split is not None:
        meta["split"] = split
    meta.update({key: value for key, value in given.items() if value is not None and value != [] and value != {}})
    return cast(RunMeta, meta)


class StepRecord(TypedDict, total=False):
    """A trajectory.jsonl line: what the agent did and saw at one step, and why."""

    step: int
    action: str | None  # None at step 0
    observation: str
    score: float
    max_score: float
    done: bool
    won: bool
    location: str | None  # as the agent knows them: where the command was played from
    inventory: list[str] | None
    reason: str  # the reasoning it logged for the command (memory QA asks about it)
    trail: str  # the fingerprint of the history up to this step (next_trail)
    decided: dict[str, Any]  # what each role decided on the way to the command (per-role diagnostics)
    valid: list[str]  # the valid commands it was shown, when there are at most VALID_LOGGED


class OracleRecord(TypedDict, total=False):
    """An oracle.jsonl line: the game's ground truth at one step, for evaluation code only (no node reads it)."""

    step: int
    facts: list[list[str]]
    score: float
    max_score: float
    inventory: list[str]
    location: str | None
    walkthrough: list[str]  # step 0: the winning commands from the start
    policy: list[str]  # the winning commands from here, where the game knows them (TextWorld)
    # and the game's own counters (envs' Oracle.extra: NetHack depth, Crafter achievements, TWX validity, ...)


class GroundTruth(Protocol):
    """What the oracle line is made from (envs.Oracle)."""

    @property
    def facts(self) -> Sequence[Sequence[str]]: ...
    @property
    def walkthrough(self) -> Sequence[str]: ...
    @property
    def policy(self) -> Sequence[str]: ...
    @property
    def extra(self) -> Mapping[str, Any]: ...


class ObservedStep(Protocol):
    """What a step's lines are made from (envs.Observation)."""

    @property
    def text(self) -> str: ...
    @property
    def score(self) -> float: ...
    @property
    def max_score(self) -> float: ...
    @property
    def done(self) -> bool: ...
    @property
    def won(self) -> bool: ...
    @property
    def location(self) -> str | None: ...
    @property
    def inventory(self) -> Sequence[str] | None: ...
    @property
    def admissible_actions(self) -> Sequence[str]: ...
    @property
    def oracle(self) -> GroundTruth: ...


VALID_LOGGED = 200  # the valid commands the agent was shown are logged when there are at most this many


def step_record(
    step: int,
    action: str | None,
    observed: ObservedStep,
    reason: str | None = None,
    trail: str | None = None,
    decided: dict[str, Any] | None = None,
) -> StepRecord:
    """A step's trajectory line (``reason``, ``trail`` and ``decided`` only when there are some)."""
    record = StepRecord(
        step=step,
        action=action,
        observation=observed.text,
        score=observed.score,
        max_score=observed.max_score,
        done=observed.done,
        won=observed.won,
        location=observed.location,
        inventory=list(observed.inventory) if observed.inventory is not None else None,
    )
    if reason:
        record["reason"] = reason
    if trail:
        record["trail"] = trail
    if decided:
        record["decided"] = decided
    if 0 < len(observed.admissible_actions) <= VALID_LOGGED:
        record["valid"] = list(observed.admissible_actions)
    return record


def oracle_record(observed: ObservedStep, *, first: bool = False) -> OracleRecord:
    """The game's ground truth at a step: the walkthrough from the start is kept at step 0 (``first``); later steps
    keep the one from where the game is (``policy``) when the game gives it. The step number is added on writing."""
    oracle = observed.oracle
    extra = {k: v for k, v in oracle.extra.items() if isinstance(v, (str, int, float, bool, type(None)))}
    record = cast(
        OracleRecord,
        {
            "facts": [list(f) for f in oracle.facts],
            "score": observed.score,
            "max_score": observed.max_score,
            "inventory": list(observed.inventory or []),
            "location": observed.location,
            **extra,
        },
    )
    if first:
        record["walkthrough"] = list(oracle.walkthrough)
    if oracle.policy:
        record["policy"] = list(oracle.policy)
    return record


def next_trail(previous: str | None, action: str | None, observation: str) -> str:
    """The fingerprint of a history one step longer: each trajectory line holds the trail of the steps up
    to it, and the agent's state holds its own, so a checkpoint knows whether the run's files still
    describe its history (a fork of the thread replaces the files' later steps)."""
    text = "\x1f".join((previous or "", action or "", observation))
    return hashlib.blake2b(text.encode(), digest_size=12).hexdigest()


def check_run_id(run_id: object) -> str:
    """A run id a run directory can be named by (one path component: no '/', no '..'), or ValueError."""
    if isinstance(run_id, str) and len(run_id) > RUN_ID_CHARS:
        raise ValueError(f"run id '{run_id:.40}...' is {len(run_id):,} characters long: at most {RUN_ID_CHARS}")
    if not isinstance(run_id, str) or not _RUN_ID.match(run_id):
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
    return bool(_RUN_ID.match(folder.name)) and (
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
    existing = next((p for p in path.parents if p.exists()), None)  # the folders below it are made on writing
    if existing is not None and not existing.is_dir():
        raise OutputRefused(f"{what} {text}: {existing} is a file, not a folder")
    return path


def write_output(path: Path, text: str) -> None:
    """``text`` as the file ``path`` (checked by :func:`check_output`), whole or not at all: written beside
    it under a fresh name, then renamed over it (a link at ``path`` is replaced, never written through).
    A failure names ``path``, the file the user asked for, and leaves no partial file behind."""
    tmp = path.with_name(f".{path.name}.{secrets.token_hex(4)}.tmp")
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        tmp.write_text(text, encoding="utf-8")
        os.replace(tmp, path)
    except BaseException as exc:
        with suppress(OSError):
            tmp.unlink()
        if isinstance(exc, OSError) and exc.errno is not None:
            raise OSError(exc.errno, exc.strerror, str(path)) from None
        raise


def _unfinished_creation(path: Path) -> bool:
    """A run directory whose creation was cut (killed, a full disk) before its run.json: nothing but a
    half-written run.json may be in it, so creating the run again under the same id is safe."""
    return (
        path.is_dir() and not (path / META_FILE).exists() and all(p.name == META_FILE + ".tmp" for p in path.iterdir())
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
        if not _RUN_ID.match(run_id) or not path.is_dir():
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

    def copy_to(self, root: Path) -> "RunDir":
        """A private copy of the run under ``root`` for reading: opening SQLite or Chroma files writes
        to them (journals, checkpoints of the write-ahead log), so readers open the copy instead."""
        target = root / self.run_id
        shutil.copytree(self.path, target, ignore=lambda folder, names: [n for n in names if n in _NOT_COPIED])
        return RunDir(target)

    def write_meta(self, meta: RunMeta | dict[str, Any]) -> None:
        # Write-then-rename: a crash leaves the old file or the new one, never half of one.
        tmp = self.meta_path.with_suffix(".json.tmp")
        with _named(self.meta_path):
            tmp.write_text(json.dumps(meta, indent=2, sort_keys=True))
            os.replace(tmp, self.meta_path)

    def append_step(self, record: StepRecord, oracle: OracleRecord | None = None) -> None:
        """Record one finished step (and the game's ground truth for it, if given), synced to disk."""
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


LAST = "last"  # wherever a run id is taken: the run played (or resumed) last


@dataclass(frozen=True)
class RunInfo:
    """One line of ``ariadne runs list``: what was played, how it went, when it was last written."""

    run_id: str
    env: str
    preset: str
    model: str
    result: str  # won, lost, stopped by a person, not won (out of steps), unfinished (interrupted, running), damaged
    steps: int | None
    score: float | None
    max_score: float | None
    when: float  # the time its trajectory or run.json was last written (seconds since the epoch)
    seed: int | None = None
    problem: str | None = None  # why a damaged run could not be read
    switches: Mapping[str, Any] | None = None  # what the run changed of its preset (--set): its label reads them


def run_infos(root: str | Path) -> list[RunInfo]:
    """Every run under ``root``, oldest first; a damaged run is listed as damaged, never skipped or raised."""
    folder = Path(root)
    if not folder.is_dir():
        return []
    infos = [
        _info(RunDir(path))
        for path in folder.iterdir()
        if path.is_dir() and _RUN_ID.match(path.name) and (path / META_FILE).is_file()
    ]
    return sorted(infos, key=lambda info: (info.when, info.run_id))


def find_run(root: str | Path, given: str) -> str:
    """The id of the run ``given`` names under ``root``: its exact id, ``last``, or a prefix only one run
    starts with. :class:`RunNotFound` or :class:`AmbiguousRun` otherwise (one line each)."""
    folder = Path(root)
    if len(given) > RUN_ID_CHARS:  # names no run (and a path of it may be too long to look up)
        raise RunNotFound(f"no run '{given:.40}...' in {folder}: a run id is at most {RUN_ID_CHARS} characters")
    if _RUN_ID.match(given) and (folder / given).is_dir():
        return given
    if given == LAST:
        infos = run_infos(folder)
        if not infos:
            raise RunNotFound(f"no runs in {folder} to take the last of")
        return infos[-1].run_id
    ids = (
        sorted(path.name for path in folder.iterdir() if path.name.startswith(given) and (path / META_FILE).is_file())
        if folder.is_dir() and given
        else []
    )
    if not ids:
        raise RunNotFound(f"no run '{given}' in {folder} (see `ariadne runs list`)")
    if len(ids) > 1:
        shown = ", ".join(ids[:3]) + (f" and {len(ids) - 3} more" if len(ids) > 3 else "")
        raise AmbiguousRun(
            f"run id '{given}' is ambiguous in {folder}: {len(ids)} runs start with it ({shown}); give more of the id"
        )
    return ids[0]


def _info(run: RunDir) -> RunInfo:
    when = max(p.stat().st_mtime for p in (run.meta_path, run.trajectory_path) if p.exists())
    try:
        meta = run.meta()
        last = _last_line(run.trajectory_path)
    except RunCorrupted as exc:
        return RunInfo(run.run_id, "?", "?", "?", "damaged", None, None, None, when, problem=str(exc))
    result = meta.get("result") if isinstance(meta.get("result"), dict) else None
    final = result or last or {}
    if result:
        outcome = (
            "won"
            if result.get("won")
            else "lost"
            if result.get("lost")
            else "stopped by a person"
            if result.get("stopped")
            else "not won"
        )
    else:
        outcome = "unfinished"
    steps = final.get("steps", final.get("step"))
    return RunInfo(
        run.run_id,
        meta["env"],
        str(meta["context"].get("preset", "?")),
        meta["context"]["model"],
        outcome,
        steps if isinstance(steps, int) else None,
        _number(final.get("score")),
        _number(final.get("max_score")),
        when,
        seed=meta.get("seed"),
        switches=overrides if isinstance(overrides := meta["context"].get("switch_overrides"), dict) else None,
    )


def _number(value: object) -> float | None:
    return float(value) if isinstance(value, (int, float)) and not isinstance(value, bool) else None


def _last_line(path: Path) -> dict[str, Any] | None:
    """The last whole line of a JSON-lines file, read from its end (a long run's trajectory is not read through)."""
    if not path.is_file():
        return None
    with path.open("rb") as handle:
        end = handle.seek(0, os.SEEK_END)
        block, data = 1 << 16, b""
        while end > 0:
            start = max(0, end - block)
            handle.seek(start)
            data = handle.read(end - start) + data
            end = start
            lines = data.split(b"\n")
            if len(lines) >= 3 or end == 0:  # a torn tail, one whole line and what precedes it
                break
    whole = [line for line in data.split(b"\n")[:-1] if line.strip()]  # what follows the last newline is torn
    if not whole:
        return None
    try:
        record = json.loads(whole[-1].decode())
    except ValueError:
        raise RunCorrupted(f"run {path.parent.name}: the last line of {path.name} is damaged") from None
    return record if isinstance(record, dict) else None


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
