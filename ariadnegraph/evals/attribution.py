"""Who played each command of a run: the model, or code (and which code).

Every step's actor record says ``by`` whom its command was chosen (nodes/common.BY_*): ``model`` (a planner's or a
chooser's reply), ``list`` (a list read, followed in code), ``walk`` (toward what the next step needs, seen in
another room: code, no model asked), ``route`` (the moves of a 'go to' or 'explore' the model chose, walked by
code), ``worked out`` (the move that carries out the model's answer to the task's question, played by code: counted
as code, though the knowledge was the model's), a guard's reason (``pacing``, ``take first``, ``way forward``:
nodes/guards.Reason), ``fallback`` (a reply that could not be used), ``script`` or ``oracle``. A run recorded before
the attribution has none: its steps count as ``unknown``.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Mapping
from typing import Any

MODEL = "model"
UNKNOWN = "unknown"


def played_by(decided: Mapping[str, Any] | None) -> str:
    """Who chose the command a step's decisions ended in: the last actor record that played one."""
    records = (decided or {}).get("actor") or []
    records = records if isinstance(records, list) else [records]
    played = [r for r in records if r.get("played")]
    return str(played[-1].get("by") or UNKNOWN) if played else UNKNOWN


def attribution(steps: Iterable[Mapping[str, Any]]) -> Counter[str]:
    """How many of a run's commands each chooser played (trajectory lines: step 0 plays nothing)."""
    return Counter(played_by(s.get("decided")) for s in steps if s.get("action"))


def model_and_code(counts: Counter[str]) -> tuple[int, int]:
    """(commands the model chose, commands code played); unknown ones in neither."""
    model = counts.get(MODEL, 0)
    return model, sum(n for by, n in counts.items() if by not in (MODEL, UNKNOWN))
