"""Aggregate episode records into cells (preset x group) and print them: a CSV of every cell, and the Markdown
tables every suite shares (n and intervals, cost and resources, memory fidelity, diagnostics, trials) with the
formatting they and each paper's layout (``layouts``) write cells with.
"""

from __future__ import annotations

import csv
import io
import statistics
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import asdict, dataclass
from typing import Any

from .intervals import bootstrap_mean, wilson
from .suites import ARIGRAPH_TOP, Suite

ALL = "all"
MISSING = "—"


@dataclass(frozen=True)
class Cell:
    """What a table cell reports for one preset on one group (level, game, task) or on ``all``.

    Scores are normalised (0-1). ``best``/``top_mean`` take each game's best attempt / the mean of its
    ``ARIGRAPH_TOP`` best attempts (AriGraph's estimate), averaged over the group's games.
    ``cost_usd`` is the cell's total, None when any episode's cost is unknown.
    """

    preset: str
    model: str
    group: str
    episodes: int
    norm_score: float
    norm_std: float
    best: float
    top_mean: float
    success: float
    steps: float
    llm_calls: float
    prompt_tokens: float
    completion_tokens: float
    cost_usd: float | None
    wall_seconds: float
    precision: float | None
    recall: float | None
    steps_per_replan: float | None = None
    kg_facts: float | None = None
    kg_update_rate: float | None = None
    # 95% intervals (evals/intervals.py): Wilson's for the success rate, a bootstrap's for the mean normalised score
    success_low: float | None = None
    success_high: float | None = None
    norm_score_low: float | None = None
    norm_score_high: float | None = None


def _mean(values: Iterable[float | None]) -> float | None:
    present = [v for v in values if v is not None]
    return statistics.fmean(present) if present else None


def make_cell(preset: str, model: str, group: str, records: Sequence[Mapping[str, Any]]) -> Cell:
    scores = [r["norm_score"] for r in records]
    by_game: dict[tuple, list[float]] = {}
    for r in records:
        by_game.setdefault((r["env"], r["seed"], r["variation"]), []).append(r["norm_score"])
    costs = [r.get("cost_usd") for r in records]
    return Cell(
        preset,
        model,
        group,
        len(records),
        norm_score=statistics.fmean(scores),
        norm_std=statistics.pstdev(scores),
        best=statistics.fmean(max(s) for s in by_game.values()),
        top_mean=statistics.fmean(statistics.fmean(sorted(s, reverse=True)[:ARIGRAPH_TOP]) for s in by_game.values()),
        success=statistics.fmean(1.0 if r["won"] else 0.0 for r in records),
        steps=statistics.fmean(r["steps"] for r in records),
        llm_calls=statistics.fmean(r["llm_calls"] for r in records),
        prompt_tokens=statistics.fmean(r["prompt_tokens"] for r in records),
        completion_tokens=statistics.fmean(r["completion_tokens"] for r in records),
        cost_usd=None if any(c is None for c in costs) else round(sum(c for c in costs if c is not None), 6),
        wall_seconds=statistics.fmean(r["wall_seconds"] for r in records),
        precision=_mean(r.get("precision") for r in records),
        recall=_mean(r.get("recall") for r in records),
        steps_per_replan=_mean(r.get("steps_per_replan") for r in records),
        kg_facts=_mean(r.get("kg_facts") for r in records),
        kg_update_rate=_mean(r.get("kg_update_rate") for r in records),
        **_intervals(records),
    )


def _intervals(records: Sequence[Mapping[str, Any]]) -> dict[str, float | None]:
    if len(records) < 2:  # one episode: no interval
        return {}
    low, high = wilson(sum(1 for r in records if r["won"]), len(records))
    score_low, score_high = bootstrap_mean([r["norm_score"] for r in records])
    return {"success_low": low, "success_high": high, "norm_score_low": score_low, "norm_score_high": score_high}


def uncertainty_table(records: Sequence[Mapping[str, Any]]) -> str:
    """Every cell's n and 95% intervals, beside the figures the paper's layout shows."""
    rows = [
        [
            f"{c.preset} ({c.model})",
            c.group,
            str(c.episodes),
            f"{percent(c.success)} [{percent(c.success_low)}, {percent(c.success_high)}]"
            if c.success_low is not None
            else f"{percent(c.success)} (n = 1)",
            f"{number(c.norm_score)} [{number(c.norm_score_low)}, {number(c.norm_score_high)}]"
            if c.norm_score_low is not None
            else f"{number(c.norm_score)} (n = 1)",
        ]
        for c in cells(records)
    ]
    return markdown_table(["preset", "group", "n", "success % [95% Wilson]", "norm. score [95% bootstrap]"], rows)


def cells(records: Sequence[Mapping[str, Any]], *, with_all: bool = True) -> list[Cell]:
    """One cell per (preset, group), grouped by preset in first-seen order, each preset ending with ``all``."""
    grouped: dict[tuple[str, str, str], list[Mapping[str, Any]]] = {}
    for r in records:
        grouped.setdefault((r["preset"], r["model"], r["group"]), []).append(r)
        if with_all:
            grouped.setdefault((r["preset"], r["model"], ALL), []).append(r)
    systems = list(dict.fromkeys((p, m) for p, m, _ in grouped))
    order = sorted(grouped, key=lambda k: (systems.index(k[:2]), k[2] == ALL))  # stable within a system
    return [make_cell(p, m, g, grouped[(p, m, g)]) for p, m, g in order]


def csv_text(suite: Suite, records: Sequence[Mapping[str, Any]]) -> str:
    fields = ["suite", *Cell.__dataclass_fields__]
    out = io.StringIO()
    writer = csv.DictWriter(out, fieldnames=fields, lineterminator="\n")
    writer.writeheader()
    for cell in cells(records):
        writer.writerow({"suite": suite.name, **{k: _csv_value(v) for k, v in asdict(cell).items()}})
    return out.getvalue()


def _csv_value(value: Any) -> Any:
    return round(value, 6) if isinstance(value, float) else ("" if value is None else value)


# --- formatting ------------------------------------------------------------------------------------


def number(value: float | None, digits: int = 2) -> str:
    return MISSING if value is None else f"{value:.{digits}f}"


def percent(value: float | None) -> str:
    return MISSING if value is None else f"{100 * value:.1f}"


def _cost(value: float | None) -> str:
    return "?" if value is None else f"{value:.4f}"


def markdown_row(values: Iterable[str]) -> str:
    return "| " + " | ".join(values) + " |"


def markdown_table(header: Sequence[str], rows: Iterable[Sequence[str]], align: str = "---:") -> str:
    lines = [markdown_row(header), markdown_row([":---", *([align] * (len(header) - 1))])]
    lines += [markdown_row(r) for r in rows]
    return "\n".join(lines)


def ours_label(cell: Cell) -> str:
    return f"**{cell.preset}** ({cell.model}) — ours"


def cell_index(records: Sequence[Mapping[str, Any]]) -> tuple[list[tuple[str, str]], dict[tuple[str, str, str], Cell]]:
    table = {(c.preset, c.model, c.group): c for c in cells(records)}
    systems = list(dict.fromkeys((p, m) for p, m, _ in table))
    return systems, table


def resources_table(records: Sequence[Mapping[str, Any]]) -> str:
    """Every cell's cost profile: the same columns for every suite (means per episode, total cost)."""
    header = [
        "preset",
        "group",
        "episodes",
        "norm. score",
        "success %",
        "steps",
        "model calls",
        "prompt tokens",
        "completion tokens",
        "cost USD (total)",
        "wall s",
        "KG precision",
        "KG recall",
        "steps / replan",
        "KG facts",
        "KG update rate",
    ]
    rows = [
        [
            f"{c.preset} ({c.model})",
            c.group,
            str(c.episodes),
            number(c.norm_score),
            percent(c.success),
            f"{c.steps:.1f}",
            f"{c.llm_calls:.1f}",
            f"{c.prompt_tokens:.0f}",
            f"{c.completion_tokens:.0f}",
            _cost(c.cost_usd),
            f"{c.wall_seconds:.1f}",
            number(c.precision),
            number(c.recall),
            number(c.steps_per_replan),
            number(c.kg_facts, 0),
            number(c.kg_update_rate),
        ]
        for c in cells(records)
    ]
    return markdown_table(header, rows)


# --- the papers' layouts ---------------------------------------------------------------------------


def _measured(record: Mapping[str, Any]) -> dict[str, Any] | None:
    """The record's fidelity summary when the game gave true facts to compare with, else None."""
    fidelity = record.get("fidelity") or {}
    return fidelity if fidelity.get("recall") is not None else None


def fidelity_table(records: Sequence[Mapping[str, Any]]) -> str | None:
    """Memory fidelity per preset: means over its measured episodes of the episode figures, overall and
    per relation family (precision / recall). None when no episode was measured (ScienceWorld)."""
    measured: dict[tuple[str, str], list[dict[str, Any]]] = {}
    for r in records:
        if (fidelity := _measured(r)) is not None:
            measured.setdefault((r["preset"], r["model"]), []).append(fidelity)
    if not measured:
        return None
    families = list(
        dict.fromkeys(name for runs in measured.values() for f in runs for name in f.get("by_relation") or {})
    )
    header = ["preset", "episodes", "precision", "recall", "coverage", *(f"{name} P / R" for name in families)]
    rows = []
    for (preset, model), runs in measured.items():

        def mean(key: str, name: str | None = None, runs: list = runs) -> float | None:
            return _mean((f.get("by_relation") or {}).get(name, {}).get(key) if name else f.get(key) for f in runs)

        rows.append(
            [
                f"{preset} ({model})",
                str(len(runs)),
                number(mean("precision")),
                number(mean("recall")),
                number(mean("coverage")),
                *(f"{number(mean('precision', n))} / {number(mean('recall', n))}" for n in families),
            ]
        )
    return markdown_table(header, rows)


# (role, figure, label) shown in the diagnostics table: means over a cell's episodes
DIAGNOSTIC_COLUMNS = (
    ("planner", "valid", "plan steps valid"),
    ("planner", "on_winning_path", "plan steps on a winning path"),
    ("actor", "drift", "actor drift"),
    ("critic", "false_rejections", "false rejections"),
    ("critic", "failed_approvals", "failed approvals"),
    ("critic", "wrong_outcome_verdicts", "wrong outcome verdicts"),
    ("summarizer", "holds_recipe", "belief holds recipe"),
    ("extraction", "impossible_facts", "impossible facts"),
    ("monologue", "unsupported", "unsupported notes"),
    ("loops", "repeats", "repeats"),
    ("loops", "longest_without_score", "longest run without score"),
)


def diagnostics_table(records: Sequence[Mapping[str, Any]]) -> str | None:
    """Per-role diagnostics per system (``evals/diagnostics.py``): means over its episodes; None when no
    record carries them."""
    found: dict[tuple[str, str], list[dict[str, Any]]] = {}
    for r in records:
        if r.get("diagnostics"):
            found.setdefault((r["preset"], r["model"]), []).append(r["diagnostics"])
    if not found:
        return None
    header = ["preset", "episodes", *(label for _, _, label in DIAGNOSTIC_COLUMNS)]
    rows = [
        [
            f"{preset} ({model})",
            str(len(runs)),
            *(number(_mean((d.get(role) or {}).get(key) for d in runs)) for role, key, _ in DIAGNOSTIC_COLUMNS),
        ]
        for (preset, model), runs in found.items()
    ]
    return markdown_table(header, rows)


def trials_table(records: Sequence[Mapping[str, Any]]) -> str | None:
    """Success by trial (Reflexion): the share of episodes won by trial k, per system; None with one trial."""
    most = max((len(r.get("won_by_trial") or []) for r in records), default=0)
    if most < 2:
        return None
    header = ["preset", "episodes", *(f"won by trial {k}" for k in range(1, most + 1))]
    rows = []
    for preset, model in dict.fromkeys((r["preset"], r["model"]) for r in records):
        mine = [
            r.get("won_by_trial") or [bool(r["won"])] for r in records if (r["preset"], r["model"]) == (preset, model)
        ]
        by = [100 * sum(w[min(k, len(w) - 1)] for w in mine) / len(mine) for k in range(most)]
        rows.append([f"{preset} ({model})", str(len(mine)), *(percent(v / 100) for v in by)])
    return markdown_table(header, rows)
