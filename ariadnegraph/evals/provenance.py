"""Where an eval's figures come from: each episode record holds the package version and git commit that played it
and a digest of every setting that changes an episode, so records of other settings are never counted together
(an ``--out`` that holds them is refused before anything is played) and a table names what it was played with."""

from __future__ import annotations

import functools
import hashlib
import json
import subprocess
from collections.abc import Mapping
from dataclasses import fields
from importlib import metadata
from pathlib import Path
from typing import Any, cast

from ..agent.context import AgentContext
from ..agent.presets import PresetName
from ..config import REPO_DIR, embeddings_setting
from .plan import Job

# Context settings that do not change what an episode plays: where it is written, whether a person approves (an eval
# never asks), and how long a request may take or be retried.
NOT_EPISODE_SETTINGS = frozenset({"run_dir", "approve_commands", "request_timeout", "max_retries"})
PACKAGE = "ariadnegraph"


@functools.cache
def code_version() -> dict[str, Any]:
    """The package's version and, in a git checkout, its commit (``dirty`` when the work tree has changes)."""
    try:
        version: str | None = metadata.version(PACKAGE)
    except metadata.PackageNotFoundError:
        version = None
    commit, dirty = None, None
    if (REPO_DIR / ".git").exists():
        try:
            commit = _git("rev-parse", "HEAD")
            dirty = bool(_git("status", "--porcelain", "--untracked-files=no"))
        except (OSError, subprocess.SubprocessError):
            commit, dirty = None, None
    return {"version": version, "commit": commit, "dirty": dirty}


def _git(*args: str) -> str:
    return subprocess.run(
        ["git", "-C", str(REPO_DIR), *args], capture_output=True, text=True, timeout=10, check=True
    ).stdout.strip()


def job_context(job: Job, runs_dir: Path | str) -> AgentContext:
    """The context an episode of ``job`` plays with (the job's choices over the ``ARIADNE_*`` environment)."""
    return AgentContext(
        model=job.model,
        preset=cast(PresetName, job.preset),
        run_dir=str(runs_dir),
        base_url=job.base_url,
        switch_overrides=dict(job.switches),
        memory_from=job.memory_from,
    )


def system_settings(job: Job, context: AgentContext) -> dict[str, Any]:
    """What plays the games, whatever the game: the suite, the system (preset, switches, trials, memory), the model and
    its endpoint, the context's other settings and the embeddings (an experiment in LangSmith is one of these)."""
    return {
        "suite": job.suite,
        "system": job.system,
        "switches": [list(pair) for pair in job.switches],
        "trials": job.trials,
        "carry_memory": job.carry_memory,
        "memory_from": job.memory_from,
        "model": job.model,
        "base_url": job.base_url,
        "context": {
            f.name: getattr(context, f.name) for f in fields(AgentContext) if f.name not in NOT_EPISODE_SETTINGS
        },
        "embeddings": embeddings_setting(),
    }


def episode_settings(job: Job, context: AgentContext) -> dict[str, Any]:
    """Every setting that changes what an episode of ``job`` plays: the system's, and its key (the game, its step
    limit, the attempt)."""
    return {**system_settings(job, context), "key": job.key}


def settings_digest(settings: Mapping[str, Any]) -> str:
    return hashlib.sha256(json.dumps(settings, sort_keys=True, default=str).encode()).hexdigest()[:16]


def provenance(job: Job, context: AgentContext) -> dict[str, Any]:
    """What a record holds of where it came from: the code, the digest of its settings and of its system's."""
    return {
        **code_version(),
        "settings": settings_digest(episode_settings(job, context)),
        "system": settings_digest(system_settings(job, context)),
    }
