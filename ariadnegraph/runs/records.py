"""The records of a run's files, typed here, their one owner: :class:`RunMeta` (run.json, built by
:func:`new_run_meta`), :class:`StepRecord` (a trajectory line, :func:`step_record`) and :class:`OracleRecord` (an
oracle line, :func:`oracle_record`); the trail that fingerprints a history."""

from __future__ import annotations

import hashlib
from collections.abc import Mapping, Sequence
from typing import Any, Protocol, TypedDict, cast


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
