"""An eval's episode records (``episodes.jsonl``): their type, the one place they are checked (as they are read
back) and how a played or a failed episode is written."""

from __future__ import annotations

import json
import math
import os
from pathlib import Path
from typing import Any, TypedDict, cast

from .plan import EvalError, Job
from .provenance import job_context, provenance


class EpisodeRecord(TypedDict, total=False):
    """One episode of a suite, played (``runner.run_episode``) or failed (``failed_record``)."""

    key: str  # suite, preset, model, game, step limit, attempt: fixes the run id
    suite: str
    preset: str  # the system's name in the tables (a preset, or an ablation's label)
    base_preset: str
    switches: dict[str, Any]  # what the system changed of the preset
    oracle: list[str]  # roles taken from the game's truth (ORACLE rows)
    additions: list[str]  # our additions to the paper's system that are switched on
    model: str
    env: str
    group: str
    label: str
    seed: int | None
    variation: int | None
    attempt: int
    run_id: str
    max_steps: int
    failed: bool  # the episode raised: ``error`` says what, and no figure below is set
    error: str
    norm_score: float
    score: float
    max_score: float
    best_norm_score: float
    invalid_actions: int | None  # commands outside the valid ones, where the game says (TextWorldExpress)
    peaks: dict[str, float]  # the game's counters at their highest (NetHack depth, level, score)
    achievements: list[str] | None  # Crafter
    reward: float | None  # the game's own episode reward (Crafter)
    steps_per_replan: float | None
    kg_facts: int
    kg_recorded: int
    kg_update_rate: float
    kg_growth: list[list[int]]
    kg_updates: list[list[int]]
    won: bool
    steps: int
    llm_calls: int
    prompt_tokens: int
    completion_tokens: int
    cost_usd: float | None
    trials: list[dict[str, Any]]
    won_by_trial: list[bool]
    fallbacks: int
    wall_seconds: float
    resumed: bool
    precision: float | None
    recall: float | None
    fidelity: dict[str, Any] | None
    curve: list[float]
    diagnostics: dict[str, Any]
    provenance: dict[str, Any]  # version, commit, dirty, settings: evals/provenance.py


_NUMBER = (int, float)
# What the tables and the resume logic read from a record, by type (bool is an int: checked first).
_RECORD_TYPES: dict[str, tuple[type, ...]] = {
    "key": (str,),
    "preset": (str,),
    "model": (str,),
    "env": (str,),
    "group": (str,),
    "label": (str,),
    "attempt": (int,),
    "run_id": (str,),
}
_PLAYED_TYPES: dict[str, tuple[type, ...]] = {
    "won": (bool,),
    "score": _NUMBER,
    "max_score": _NUMBER,
    "norm_score": _NUMBER,
    "steps": (int,),
    "llm_calls": (int,),
    "prompt_tokens": (int,),
    "completion_tokens": (int,),
    "wall_seconds": _NUMBER,
}
_FAILED_TYPES: dict[str, tuple[type, ...]] = {"error": (str,)}
# The ranges the tables' figures hold (least, most; None: no bound), every number also finite (JSON reads NaN and
# Infinity): a normalised score of 5 or -7 steps would be averaged into a row as if played. The optional figures
# may also be null (not measured).
_PLAYED_RANGES: dict[str, tuple[float | None, float | None]] = {
    "score": (None, None),
    "max_score": (None, None),
    "norm_score": (0, 1),
    "steps": (0, None),
    "llm_calls": (0, None),
    "prompt_tokens": (0, None),
    "completion_tokens": (0, None),
    "wall_seconds": (0, None),
}
_OPTIONAL_RANGES: dict[str, tuple[float | None, float | None]] = {
    "best_norm_score": (0, 1),
    "cost_usd": (0, None),
    "precision": (0, 1),
    "recall": (0, 1),
    "steps_per_replan": (0, None),
    "kg_facts": (0, None),
    "kg_update_rate": (0, 1),
    "reward": (None, None),
}


def _range_text(least: float | None, most: float | None) -> str:
    if least is not None and most is not None:
        return f"a number from {least:g} to {most:g}"
    return f"a number of {least:g} or more" if least is not None else "a finite number"


def _out_of_range(value: Any, least: float | None, most: float | None) -> bool:
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        return True
    return not math.isfinite(value) or (least is not None and value < least) or (most is not None and value > most)


def check_record(record: Any, where: str, *, written: bool = True) -> EpisodeRecord:
    """An episode record as the tables count it, else EvalError naming it: a damaged record is never counted
    (``"won": "no"`` is not a win, a normalised score of 5 is no score). ``written``: ``where`` names a line of
    the file (read back), else a record about to be written."""
    fix = " (delete the line to play that episode again)" if written else ""
    where = f"{where} is damaged" if written else where
    if not isinstance(record, dict):
        raise EvalError(f"{where}: not an episode record (a JSON {type(record).__name__})")
    failed = record.get("failed", False)
    if not isinstance(failed, bool):
        raise EvalError(f"{where}: 'failed' must be true or false, got {failed!r}"[:300])
    expected = {**_RECORD_TYPES, **(_FAILED_TYPES if failed else _PLAYED_TYPES)}
    for name, types in expected.items():
        value = record.get(name)
        if name not in record or (isinstance(value, bool) and bool not in types) or not isinstance(value, types):
            shown = "missing" if name not in record else f"{value!r}"[:60]
            kind = " or ".join(t.__name__ for t in types)
            raise EvalError(f"{where}: '{name}' must be a {kind}, got {shown}{fix}")
    ranges = (
        {} if failed else {**_PLAYED_RANGES, **{k: r for k, r in _OPTIONAL_RANGES.items() if record.get(k) is not None}}
    )
    for name, (least, most) in ranges.items():
        if _out_of_range(record[name], least, most):
            raise EvalError(f"{where}: '{name}' must be {_range_text(least, most)}, got {record[name]!r:.60}{fix}")
    return cast(EpisodeRecord, record)


def read_records(path: Path) -> dict[str, EpisodeRecord]:
    """Episodes recorded by key, played or failed (a later line for a key replaces an earlier one; a torn
    last line is ignored). A damaged line is refused with its number (EvalError), never counted."""
    records: dict[str, EpisodeRecord] = {}
    if not path.exists():
        return records
    with path.open() as handle:
        for number, line in enumerate(handle, start=1):
            if not line.endswith("\n"):
                break
            try:
                parsed = json.loads(line)
            except ValueError as exc:
                raise EvalError(f"{path} line {number} is damaged: {' '.join(str(exc).split())[:120]}") from None
            record = check_record(parsed, f"{path} line {number}")
            records[record["key"]] = record
    return records


def failed_record(job: Job, error: BaseException, wall: float) -> EpisodeRecord:
    """An episode that raised: recorded with its error so the sweep goes on and the tables count it;
    a re-run of the same command plays it again."""
    message = " ".join(f"{type(error).__name__}: {error}".split())[:500]
    g = job.game
    return EpisodeRecord(
        **{
            "key": job.key,
            "suite": job.suite,
            "preset": job.system,
            "base_preset": job.preset,
            "model": job.model,
            "env": g.env,
            "group": g.group,
            "label": g.label,
            "seed": g.seed,
            "variation": g.variation,
            "attempt": job.attempt,
            "run_id": job.run_id,
            "max_steps": g.max_steps,
            "failed": True,
            "error": message,
            "wall_seconds": round(wall, 3),
            "resumed": False,
            "provenance": provenance(job, job_context(job, "")),
        }
    )


def append_record(path: Path, record: EpisodeRecord) -> None:
    """Append ``record``, checked as it will be read back (a figure out of range is never written)."""
    check_record(record, f"episode {record.get('key')!r:.200}", written=False)
    with path.open("a") as handle:
        handle.write(json.dumps(record, sort_keys=True) + "\n")
        handle.flush()
        os.fsync(handle.fileno())
