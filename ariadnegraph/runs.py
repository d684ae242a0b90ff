"""Run directories: one folder per episode with its metadata, trajectory and memory.

Layout of ``<run_dir>/<run_id>/``: ``run.json`` (what was run), ``trajectory.jsonl`` (one JSON line per
step, appended and flushed as the step finishes, so a crash never loses a finished step),
``oracle.jsonl`` (the game's ground truth at each step, for evaluation code only: the agent never
reads it), ``memory/`` (the :class:`~ariadnegraph.memory.WorldMemory` files).
"""

from __future__ import annotations

import json
import os
import re
import secrets
import time
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

DEFAULT_RUN_DIR = Path("runs")
_RUN_ID = re.compile(r"^[A-Za-z0-9][A-Za-z0-9._-]{0,127}$")


class RunNotFound(ValueError):
    """No run with that id under the run directory. (A ValueError, not an OSError: the run id is the
    bad input, and the LangGraph server shows a ValueError's message to the client.)"""


class RunCorrupted(ValueError):
    """A run directory whose files cannot be read as written; nothing is changed when it is found."""


def new_run_id(env_spec: str) -> str:
    slug = re.sub(r"[^A-Za-z0-9]+", "-", env_spec).strip("-")[:40] or "run"
    return f"{time.strftime('%Y%m%d-%H%M%S')}-{slug}-{secrets.token_hex(3)}"


@dataclass(frozen=True)
class RunDir:
    """Paths and append-only files of one run."""

    path: Path

    @property
    def run_id(self) -> str:
        return self.path.name

    @property
    def meta_path(self) -> Path:
        return self.path / "run.json"

    @property
    def trajectory_path(self) -> Path:
        return self.path / "trajectory.jsonl"

    @property
    def oracle_path(self) -> Path:
        return self.path / "oracle.jsonl"

    @property
    def memory_path(self) -> Path:
        return self.path / "memory"

    @classmethod
    def create(cls, root: str | Path, run_id: str, meta: dict[str, Any]) -> "RunDir":
        if not _RUN_ID.match(run_id):
            raise ValueError(f"invalid run id '{run_id}': use letters, digits, '.', '_' or '-'")
        path = Path(root) / run_id
        if path.exists():
            raise FileExistsError(f"run '{run_id}' already exists in {root}")
        path.mkdir(parents=True)
        run = cls(path)
        run.write_meta(meta)
        return run

    @classmethod
    def open(cls, root: str | Path, run_id: str) -> "RunDir":
        path = Path(root) / run_id
        if not _RUN_ID.match(run_id) or not (path / "run.json").is_file():
            raise RunNotFound(f"no run '{run_id}' in {root}")
        return cls(path)

    def meta(self) -> dict[str, Any]:
        try:
            meta = json.loads(self.meta_path.read_text())
        except (ValueError, UnicodeDecodeError) as exc:
            raise RunCorrupted(f"run {self.run_id}: run.json is damaged ({' '.join(str(exc).split())[:80]})") from None
        if not isinstance(meta, dict):
            raise RunCorrupted(f"run {self.run_id}: run.json is damaged (not an object)")
        return meta

    def write_meta(self, meta: dict[str, Any]) -> None:
        # Write-then-rename: a crash leaves the old file or the new one, never half of one.
        tmp = self.meta_path.with_suffix(".json.tmp")
        tmp.write_text(json.dumps(meta, indent=2, sort_keys=True))
        os.replace(tmp, self.meta_path)

    def append_step(self, record: dict[str, Any], oracle: dict[str, Any] | None = None) -> None:
        """Record one finished step (and the game's ground truth for it, if given), synced to disk."""
        if oracle is not None:
            # Not synced: it can be rebuilt by replaying the actions; the trajectory line is the record.
            _append_line(self.oracle_path, {"step": record["step"], **oracle}, sync=False)
        _append_line(self.trajectory_path, record)

    def truncate_steps(self, last_step: int) -> None:
        """Drop recorded steps after ``last_step``, and a torn last line; -1 drops them all."""
        for path in (self.trajectory_path, self.oracle_path):
            _truncate_lines(path, last_step)

    def steps(self) -> Iterator[dict[str, Any]]:
        """Recorded steps in order; a torn last line (crash mid-write) is ignored."""
        return _read_lines(self.trajectory_path)

    def oracle_steps(self) -> Iterator[dict[str, Any]]:
        """The game's ground truth per recorded step (evaluation only), in order."""
        return _read_lines(self.oracle_path)


def _append_line(path: Path, record: dict[str, Any], sync: bool = True) -> None:
    with path.open("a") as handle:
        handle.write(json.dumps(record, sort_keys=True, default=str) + "\n")
        handle.flush()
        if sync:
            os.fsync(handle.fileno())


def _read_lines(path: Path) -> Iterator[dict[str, Any]]:
    if not path.exists():
        return
    with path.open(errors="replace") as handle:
        for number, line in enumerate(handle, 1):
            if not line.endswith("\n"):
                break  # torn by a crash mid-write
            try:
                record = json.loads(line)
            except ValueError:
                record = None
            if not isinstance(record, dict) or not isinstance(record.get("step"), int):
                raise RunCorrupted(f"run {path.parent.name}: {path.name} line {number} is damaged")
            yield record


def _truncate_lines(path: Path, last_step: int) -> None:
    if not path.exists():
        return
    records = list(_read_lines(path))
    kept = [r for r in records if r["step"] <= last_step]
    torn = path.stat().st_size > 0 and not path.read_bytes().endswith(b"\n")
    if len(kept) == len(records) and not torn:
        return
    tmp = path.with_suffix(".jsonl.tmp")
    tmp.write_text("".join(json.dumps(r, sort_keys=True) + "\n" for r in kept))
    os.replace(tmp, path)
