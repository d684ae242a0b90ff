"""The test doubles a package registers as chat models (``ariadnegraph.chat_models`` entry points: ``scripted``),
and how results name a model: a double says what it is. No LangChain import, so listing runs stays quick."""

from __future__ import annotations

import functools
from importlib.metadata import entry_points
from typing import Any

DOUBLES_ENTRY_POINT = "ariadnegraph.chat_models"


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
    return f"{name} (rule-based test double, not a language model)" if name in _double_names() else name
