"""The runs of a run directory as a user names them: listed (:func:`run_infos`), and a given id, prefix or
``last`` found (:func:`find_run`)."""

from __future__ import annotations

import json
import os
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from .rundir import META_FILE, RUN_ID_CHARS, RUN_ID_PATTERN, AmbiguousRun, RunCorrupted, RunDir, RunNotFound

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
        if path.is_dir() and RUN_ID_PATTERN.match(path.name) and (path / META_FILE).is_file()
    ]
    return sorted(infos, key=lambda info: (info.when, info.run_id))


def run_info(root: str | Path, run_id: str) -> RunInfo:
    """One run's line of ``runs list``; a folder that holds no run (its creation cut short before its run.json, or
    that file gone) is one line saying so (RunDir.open), as for every reader."""
    return _info(RunDir.open(root, run_id))


def find_run(root: str | Path, given: str) -> str:
    """The id of the run ``given`` names under ``root``: its exact id, ``last``, or a prefix only one run
    starts with. :class:`RunNotFound` or :class:`AmbiguousRun` otherwise (one line each)."""
    folder = Path(root)
    if len(given) > RUN_ID_CHARS:  # names no run (and a path of it may be too long to look up)
        raise RunNotFound(f"no run '{given:.40}...' in {folder}: a run id is at most {RUN_ID_CHARS} characters")
    if RUN_ID_PATTERN.match(given) and (folder / given).is_dir():
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
