"""Interactive against fixed memory QA (EMemBench §5.2, figure 2).

Interactively, each agent is questioned on the episode it played itself. In the fixed setting, one log is
frozen and every agent's memory is rebuilt from it: here the fixed run's commands are played again, as given
(``script``: no role decides), with each agent's preset and switches, so its memory reads the same observations,
and the same question set (the same trajectory, the same seed) is asked of each. The gap is
``acc_interactive - acc_fixed`` per ability, overall accuracy and F1, per agent and answerer.
"""

from __future__ import annotations

import hashlib
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from ...runs import META_FILE, RUN_ID_CHARS, RunDir, check_run_id
from .questions import ABILITIES
from .report import summarize

FIXED_SUFFIX = "-fixed-as-"  # the replay of a fixed log with another run's settings: '<fixed>-fixed-as-<run>'


def replay_id(fixed_id: str, run_id: str) -> str:
    """'<fixed>-fixed-as-<run>', or, too long for a run id, both cut short with a hash of the two (never one
    replay for two runs)."""
    whole = f"{fixed_id}{FIXED_SUFFIX}{run_id}"
    if len(whole) <= RUN_ID_CHARS:
        return check_run_id(whole)
    digest = hashlib.sha1(f"{fixed_id}|{run_id}".encode()).hexdigest()[:12]
    return check_run_id(f"{fixed_id[:50]}{FIXED_SUFFIX}{run_id[:50]}-{digest}")


SETTINGS = ("preset", "switch_overrides", "model")  # what a replay must share with the run it stands for


def fixed_replays(run_dir: str | Path, fixed_id: str, run_ids: Sequence[str]) -> dict[str, str]:
    """run id -> the fixed log played again with that run's preset, switches and model (played once: an existing
    replay is reused). Its memory is rebuilt from the fixed log's observations; no role decides a command."""
    from ...play import Episode, HeadStart, play, resume, saved_context

    fixed = RunDir.open(run_dir, fixed_id)
    meta = fixed.meta()
    commands = [str(step["action"]) for step in list(fixed.steps())[1:] if step.get("action")]
    replays = {}
    for run_id in run_ids:
        replayed = replay_id(fixed_id, run_id)
        saved = RunDir.open(run_dir, run_id).meta()["context"]
        if (Path(run_dir) / replayed / META_FILE).is_file():  # played before: the same settings, and finished
            had = RunDir.open(run_dir, replayed).meta()
            differ = [key for key in SETTINGS if had["context"].get(key) != saved.get(key)]
            if differ:
                raise ValueError(
                    f"run {replayed} replays {fixed_id} with other settings than {run_id} ({', '.join(differ)}): "
                    "remove it to replay again"
                )
            if "result" not in had:  # killed while it played: finish it before it is questioned
                resume(replayed, run_dir=run_dir)
        else:
            played_as = RunDir.open(run_dir, run_id)
            context = saved_context(played_as, played_as.meta())
            play(
                Episode(
                    str(meta["env"]),
                    seed=meta.get("seed"),
                    variation=meta.get("variation"),
                    split=meta.get("split"),
                    max_steps=max(len(commands), 1),
                ),
                head_start=HeadStart(script=commands),
                context=context,
                run_id=replayed,
            )
        replays[run_id] = replayed
    return replays


def gap(
    interactive: Sequence[dict[str, Any]], fixed: Sequence[dict[str, Any]], replays: Mapping[str, str]
) -> dict[tuple[str, str], dict[str, float | None]]:
    """(run id, answerer) -> ability (and "acc", "f1") -> interactive minus fixed, in percentage points (None where
    either side has no question of that ability). The overall figures are over the abilities both sides were asked
    (a run's own log may hold questions the replay cannot have, such as the reasons it gave)."""
    out: dict[tuple[str, str], dict[str, float | None]] = {}
    for run_id, replayed in replays.items():
        own = [r for r in interactive if r["run_id"] == run_id]
        frozen_rows = [r for r in fixed if r["run_id"] == replayed]
        shared = {r["ability"] for r in own} & {r["ability"] for r in frozen_rows}
        mine = summarize(r for r in own if r["ability"] in shared)
        frozen = summarize(r for r in frozen_rows if r["ability"] in shared)
        for answerer in mine.keys() & frozen.keys():
            a, b = mine[answerer]["all"], frozen[answerer]["all"]
            out[run_id, answerer] = {
                key: None if a[key] is None or b[key] is None else a[key] - b[key] for key in (*ABILITIES, "acc", "f1")
            }
    return out


def gap_table(gaps: Mapping[tuple[str, str], Mapping[str, float | None]], labels: Mapping[str, str]) -> str:
    """EMemBench's figure 2 as text: one row per run (labelled by ``labels``, e.g. its preset) and answerer."""
    head = f"{'run':<40} {'answerer':<13}" + "".join(f"{a[:8]:>9}" for a in ABILITIES) + f"{'ACC':>8}{'F1':>7}"
    lines = [
        "interactive minus fixed (EMemBench §5.2, percentage points; positive: the interactive setting scores higher)",
        head,
        "-" * len(head),
    ]
    for (run_id, answerer), cells in gaps.items():
        values = "".join(f"{cells[a]:>+9.1f}" if cells[a] is not None else f"{'-':>9}" for a in ABILITIES)
        acc, f1 = cells["acc"], cells["f1"]
        lines.append(
            f"{labels.get(run_id, run_id)[:40]:<40} {answerer:<13}{values}"
            + (f"{acc:>+8.1f}" if acc is not None else f"{'-':>8}")
            + (f"{f1:>+7.1f}" if f1 is not None else f"{'-':>7}")
        )
    return "\n".join(lines)
