"""The test doubles a package registers as chat models (``ariadnegraph.chat_models`` entry points: ``scripted``),
``none`` (no language model at all: the controller alone plays), and how results name a model: a double and ``none``
say what they are. No LangChain import, so listing runs stays quick."""

from __future__ import annotations

import functools
from importlib.metadata import entry_points
from typing import Any

DOUBLES_ENTRY_POINT = "ariadnegraph.chat_models"
# The model of a run that asks none: wherever the agent would ask one, the controller's own first choice plays and a
# role with no such choice is skipped (agent/presets.without_model). The honest baseline of what code does alone.
NO_MODEL = "none"
NO_MODEL_LABEL = "none (no language model)"


def is_no_model(spec: str | None) -> bool:
    """Whether ``spec`` names no language model (``none``)."""
    return (spec or "").strip() == NO_MODEL


def test_doubles() -> dict[str, Any]:
    """Registered test doubles by name (entry points; loading one imports its package)."""
    return {point.name: point for point in entry_points(group=DOUBLES_ENTRY_POINT)}


@functools.cache
def _double_names() -> frozenset[str]:
    return frozenset(test_doubles())


def model_label(spec: str) -> str:
    """A model as results name it: a test double says what it is, so no one reads its figures as a
    language model's (the one owner of that wording: play summary, runs, eval tables, report, benchmarks)."""
    name = (spec or "").strip()
    if name == NO_MODEL:
        return NO_MODEL_LABEL
    return f"{name} (rule-based test double, not a language model)" if name in _double_names() else name


def check_answers_with_a_model(spec: str, what: str) -> None:
    """``what`` (a question about a run, memory QA) is answered by a language model: ``none`` is refused in one line
    (a ValueError: a server shows its client the message)."""
    if is_no_model(spec):
        raise ValueError(
            f"{what} is answered by a language model, and model '{NO_MODEL}' is none (a run played with none names no "
            "model to answer with): give --model"
        )


def measures(spec: str) -> str | None:
    """What a table's rows of ``spec`` measure when that is not a language model's play (a test double, ``none``),
    in one sentence; None for a language model."""
    if is_no_model(spec):
        return f"Model {NO_MODEL_LABEL}: its rows are the controller alone, code choosing every command with no model."
    if (spec or "").strip() in _double_names():
        return (
            f"Model {model_label(spec)}: its rows measure the agent's pipeline on rule-based replies, not what a "
            "language model does."
        )
    return None
