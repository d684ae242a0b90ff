"""What an evaluation runs: its episodes (jobs) and the validated plan, written by ``planning.plan_eval``
and read by the runner and the report."""

from __future__ import annotations

import hashlib
import re
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ..agent.presets import additions, system_label
from .pricing import Price
from .suites import Game, Suite

EPISODES_FILE = "episodes.jsonl"
RUNS_DIR = "runs"


class EvalError(ValueError):
    """A bad eval request (preset, model, workers, out dir in use); raised before anything is written."""


class TooManyFailures(EvalError):
    """More episodes failed than ``--max-failures`` allows: the sweep stopped (every record is kept)."""


@dataclass(frozen=True)
class Job:
    """One episode of the plan: a game played by a preset (with some switches replaced: ``--set``, an
    ablation cell) with a model, the n-th attempt."""

    suite: str
    preset: str
    model: str
    game: Game
    attempt: int
    base_url: str | None = None
    switches: tuple[tuple[str, Any], ...] = ()  # (switch, value), sorted
    label: str = ""  # an ablation cell's name
    trials: int = 1  # Reflexion: the game played again after a failure, up to this many times
    carry_memory: bool = False  # a trial's memory starts with what the previous one knew
    memory_from: str | None = None  # the agent whose memory namespace seeds every episode
    store: str | None = None  # the long-term memory Store's file (config.memory_store_path)
    cell_set: tuple[tuple[str, Any], ...] = ()  # what --set changed of an ablation cell (sorted): keys the cell apart

    @property
    def system(self) -> str:
        """How tables name what played: the cell's label, else the preset and the switches it changes (with
        the ORACLE roles and our additions, as every surface names a run: ``system_label``)."""
        name = self.label or (
            f"{self.preset} [{', '.join(f'{k}={v}' for k, v in self.switches)}]" if self.switches else self.preset
        )
        return system_label(self.preset, dict(self.switches), name)

    @property
    def additions(self) -> list[str]:
        """Our additions to the paper's system this episode plays with (switched on by ``--set``)."""
        return additions(self.preset, dict(self.switches))

    @property
    def key(self) -> str:
        g = self.game
        changed = f"|set={','.join(f'{k}={v}' for k, v in self.switches)}" if self.switches else ""
        # an ablation cell --set changed: its key says so, so a cell --set turns into another one (AriGraph with
        # episodic_k=0 is "w/o episodic") keeps its own episodes and row; unchanged cells keep the keys they had
        changed += f"|cell-set={','.join(f'{k}={v}' for k, v in self.cell_set)}" if self.cell_set else ""
        memory = (
            (f"|trials={self.trials}" if self.trials > 1 else "")
            + ("|carry" if self.carry_memory else "")
            + (f"|memory={self.memory_from}" if self.memory_from else "")
        )
        return (
            f"{self.suite}|{self.preset}{changed}|{self.model}|{g.env}|seed={g.seed}|variation={g.variation}|steps={g.max_steps}"
            f"|attempt={self.attempt}{memory}"
        )

    @property
    def run_id(self) -> str:
        """Deterministic: the same key always plays in the same run directory."""
        g = self.game
        # (no "sNone" or "vNone" for a game without one)
        game = (
            f"{g.env}"
            + (f"-s{g.seed}" if g.seed is not None else "")
            + (f"-v{g.variation}" if g.variation is not None else "")
        )
        slug = re.sub(r"[^A-Za-z0-9]+", "-", f"{self.system}-{game}-a{self.attempt}").strip("-")
        return f"{slug[:100]}-{hashlib.sha1(self.key.encode()).hexdigest()[:10]}"


@dataclass(frozen=True, kw_only=True)
class EvalRequest:
    """What a user asks ``ariadne eval`` for, unchecked: :func:`~ariadnegraph.evals.planning.plan_eval` checks it whole
    and turns it into an :class:`EvalPlan`, writing nothing."""

    suite: str
    presets: Sequence[str]
    model: str = "scripted"
    base_url: str | None = None
    # which of the suite's games, and how often (None: the suite's protocol)
    groups: Sequence[str] | None = None
    per_group: int | None = None
    limit: int | None = None
    max_steps: int | None = None
    attempts: int | None = None
    # how each system plays: switches set on every preset, one switch ablated, trials, memory carried or read
    switches: Sequence[str] | None = None
    ablate: str | None = None
    trials: int | None = None
    carry_memory: bool = False
    memory_from: str | None = None
    store: str | None = None
    # where and how it runs
    out: str | Path | None = None
    workers: int = 1
    rerun: bool = False
    prices_file: str | None = None
    backend: str = "local"
    address: str | None = None
    max_failures: int | None = None
    command: str = ""  # the command line as typed, shown in the report


@dataclass
class EvalPlan:
    """A validated request: what to run and where; building it writes nothing."""

    suite: Suite
    presets: tuple[str, ...]
    model: str
    jobs: list[Job]
    out: Path
    workers: int = 1
    rerun: bool = False
    prices: dict[str, Price] = field(default_factory=dict)
    prices_file: str | None = None
    command: str = ""
    backend: str = "local"  # "local": a process pool on this machine; "ray": Ray tasks (a local Ray, or a cluster)
    address: str | None = None  # the Ray cluster to join (None: start a local Ray for this eval)
    max_failures: int | None = None  # failed episodes tolerated before the sweep stops (None: no limit)
    overrides: tuple[str, ...] = ()  # how this plays other than the paper's protocol (a step limit, a subset), worded

    @property
    def runs_dir(self) -> Path:
        return self.out / RUNS_DIR

    @property
    def episodes_path(self) -> Path:
        return self.out / EPISODES_FILE
