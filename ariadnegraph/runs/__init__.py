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

from .index import LAST, RunInfo, find_run, run_info, run_infos
from .records import (
    VALID_LOGGED,
    GroundTruth,
    ObservedStep,
    OracleRecord,
    RunMeta,
    StepRecord,
    new_run_meta,
    next_trail,
    oracle_record,
    step_record,
)
from .rundir import (
    CALLS_FILE,
    CHECKPOINTS_FILE,
    MEMORY_DIR,
    META_FILE,
    ORACLE_FILE,
    RUN_ID_CHARS,
    RUN_ID_PATTERN,
    TRAJECTORY_FILE,
    AmbiguousRun,
    OutputRefused,
    RunBusy,
    RunCorrupted,
    RunDir,
    RunNotFound,
    RunNotPlayed,
    check_output,
    check_run_id,
    copy_folder,
    game_label,
    holds_writer,
    new_run_id,
    run_folder_of,
    score_text,
    write_output,
)

__all__ = [
    "GroundTruth",
    "ObservedStep",
    "OracleRecord",
    "RunMeta",
    "StepRecord",
    "VALID_LOGGED",
    "new_run_meta",
    "next_trail",
    "oracle_record",
    "step_record",
    "AmbiguousRun",
    "CALLS_FILE",
    "CHECKPOINTS_FILE",
    "MEMORY_DIR",
    "META_FILE",
    "ORACLE_FILE",
    "OutputRefused",
    "RUN_ID_CHARS",
    "RUN_ID_PATTERN",
    "RunBusy",
    "RunCorrupted",
    "RunDir",
    "RunNotFound",
    "RunNotPlayed",
    "TRAJECTORY_FILE",
    "check_output",
    "check_run_id",
    "copy_folder",
    "game_label",
    "holds_writer",
    "new_run_id",
    "run_folder_of",
    "score_text",
    "write_output",
    "LAST",
    "RunInfo",
    "find_run",
    "run_info",
    "run_infos",
]
