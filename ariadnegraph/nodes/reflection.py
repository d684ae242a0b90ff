"""Reflection between trials (Reflexion, the strongest baseline of AriGraph and STMA): after a failed
trial the model reads the goal, the trial's outcome and last steps and the lessons written so far, and
writes one lesson the next trial's deciding roles are shown (``LESSONS FROM EARLIER TRIALS``).

Not a node of the per-step graph: it runs once between two episodes, from the finished run's files.
"""

from __future__ import annotations

from typing import Any

from .. import prompting as p
from ..agent.context import AgentContext
from ..runs import RunDir
from .common import ask_structured, environment_section
from .prompts import REFLECT
from .schemas import Reflection

TRIAL_STEPS_SHOWN = 30  # the end of the trial, where it went wrong (whole observations cost too much)
FALLBACK = "(no reflection: the model's reply could not be read)"


def trial_outcome(summary: dict[str, Any]) -> str:
    outcome = "won" if summary.get("won") else "not won"
    score, top, steps = summary.get("score", 0), summary.get("max_score", 0), summary.get("steps", 0)
    return f"{outcome}: score {score:g} of {top:g} after {steps} steps"


def reflect(
    run: RunDir, summary: dict[str, Any], lessons: list[str], context: AgentContext
) -> tuple[str, dict[str, Any]]:
    """One lesson from the finished trial in ``run``, and the usage update of the call."""
    records = list(run.steps())
    sections = {
        p.ENVIRONMENT: environment_section({"env": run.meta().get("env")}),
        p.GOAL: summary.get("goal") or p.UNKNOWN,
        p.LESSONS: lessons or None,
        p.HISTORY: p.history_lines(records[-TRIAL_STEPS_SHOWN:]),
        p.ACTUAL: trial_outcome(summary),
    }
    answer, update = ask_structured(
        context,
        node="reflection",
        schema=Reflection,
        system=REFLECT,
        sections=sections,
        fallback=Reflection(reflection=FALLBACK),
        step=int(summary.get("steps", 0)),
    )
    return " ".join(answer.reflection.split()), update
