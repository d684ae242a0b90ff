"""Results in the layout of EMemBench's table 3: accuracy per ability type, overall accuracy and the
not-answerable F1, one row per answerer; each answerer also split by evidence age (all evidence in
the in-context window of the last 10 turns, or older)."""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import Any

from .scorer import totals
from .templates import ABILITIES

AGES = ("all", "recent", "old")
_SHORT = {"Single-Hop": "Single", "Multi-Hop": "Multi", "Inducing": "Induct", "Spatial": "Spatial", "Temporal": "Temporal",
          "Logical": "Logical", "Adversarial": "Advers"}


def summarize(rows: Iterable[dict[str, Any]]) -> dict[str, dict[str, dict[str, Any]]]:
    """answerer -> age -> {ability: accuracy or None, "acc", "f1", "n"} from scored rows (each with
    answerer, ability, age, answer, prediction, score)."""
    rows = list(rows)
    out: dict[str, dict[str, dict[str, Any]]] = {}
    for answerer in dict.fromkeys(r["answerer"] for r in rows):
        out[answerer] = {}
        for age in AGES:
            chosen = [r for r in rows if r["answerer"] == answerer and (age == "all" or r["age"] == age)]
            cell: dict[str, Any] = {}
            for ability in ABILITIES:
                scores = [r["score"] for r in chosen if r["ability"] == ability]
                cell[ability] = 100 * sum(scores) / len(scores) if scores else None
                cell[f"n_{ability}"] = len(scores)
            t = totals((r["answer"], r["prediction"], r["score"]) for r in chosen)
            cell.update(acc=100 * t.accuracy, f1=100 * t.f1, n=t.n)
            out[answerer][age] = cell
    return out


def table(summary: dict[str, dict[str, dict[str, Any]]], ages: Sequence[str] = AGES) -> str:
    """Fixed-width text table: ACC per ability, Overall ACC and F1 (percent), n = questions."""
    head = f"{'answerer':<13} {'evidence':<8}" + "".join(f"{_SHORT[a]:>9}" for a in ABILITIES) + f"{'ACC':>8}{'F1':>7}{'n':>6}"
    lines = [head, "-" * len(head)]
    for answerer, by_age in summary.items():
        for age in ages:
            cell = by_age[age]
            values = "".join(f"{cell[a]:>9.1f}" if cell[a] is not None else f"{'-':>9}" for a in ABILITIES)
            lines.append(f"{answerer:<13} {age:<8}{values}{cell['acc']:>8.1f}{cell['f1']:>7.1f}{cell['n']:>6}")
    return "\n".join(lines)


def counts(summary: dict[str, dict[str, dict[str, Any]]]) -> str:
    """Questions per ability and evidence age (the same for every answerer)."""
    first = next(iter(summary.values()), None)
    if first is None:
        return ""
    return "questions per type (recent/old): " + ", ".join(
        f"{_SHORT[a]} {first['recent'][f'n_{a}']}/{first['old'][f'n_{a}']}" for a in ABILITIES)
