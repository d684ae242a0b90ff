"""The eval's plots, PNG via matplotlib's Agg backend (no display needed):

- score against steps (STMA figure 4, AriGraph figure 14's dynamics): the mean normalised score at each
  step per preset, one panel per level / game / ScienceWorld subject;
- memory fidelity against steps: the KG's mean precision and recall at each step per preset.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from .suites import Suite, normalised, scienceworld_subject


def _panel(suite: Suite, group: str) -> str:
    if suite.layout == "scienceworld":
        return scienceworld_subject(group)
    return f"level {group}" if suite.layout in ("stma", "gata") else group


def mean_curves(suite: Suite, records: Sequence[Mapping[str, Any]]) -> dict[str, dict[str, list[float]]]:
    """panel -> "preset (model)" -> mean normalised score at steps 0..max; an episode that ended early
    keeps its final score for the remaining steps."""
    series: dict[str, dict[str, list[list[float]]]] = {}
    for r in records:
        curve = [normalised(s, r["max_score"]) for s in r["curve"]] or [0.0]
        curve += [curve[-1]] * (r["max_steps"] + 1 - len(curve))
        series.setdefault(_panel(suite, r["group"]), {}).setdefault(f"{r['preset']} ({r['model']})", []).append(curve)
    means: dict[str, dict[str, list[float]]] = {}
    for panel, by_system in series.items():
        for system, curves in by_system.items():
            length = max(len(c) for c in curves)
            padded = [c + [c[-1]] * (length - len(c)) for c in curves]
            means.setdefault(panel, {})[system] = [sum(col) / len(col) for col in zip(*padded)]
    return means


def mean_fidelity_curves(records: Sequence[Mapping[str, Any]]) -> dict[str, dict[str, list[float | None]]]:
    """ "precision" / "recall" -> "preset (model)" -> the mean at steps 0..max over the episodes measured at
    that step (an episode that ended adds nothing after its end; None where no episode has a value)."""
    sums: dict[str, dict[str, dict[int, list[float]]]] = {"precision": {}, "recall": {}}
    for r in records:
        for step, *values in (r.get("fidelity") or {}).get("curve") or []:
            for figure, value in zip(("precision", "recall"), values):
                if value is not None:
                    sums[figure].setdefault(f"{r['preset']} ({r['model']})", {}).setdefault(step, []).append(value)
    means: dict[str, dict[str, list[float | None]]] = {}
    for figure, by_system in sums.items():
        for system, by_step in by_system.items():
            means.setdefault(figure, {})[system] = [
                sum(v) / len(v) if (v := by_step.get(t)) else None for t in range(max(by_step) + 1)
            ]
    return means


def _draw(panels: Mapping[str, Mapping[str, Sequence[float | None]]], title: str, ylabel: str, path: Path) -> Path:
    """Panels of one line per system against steps, a shared legend below; returns ``path``."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    columns = min(4, len(panels)) or 1
    rows = math.ceil(len(panels) / columns) or 1
    figure, axes = plt.subplots(rows, columns, figsize=(4 * columns, 3.2 * rows), squeeze=False, sharey=True)
    systems = list(dict.fromkeys(system for by_system in panels.values() for system in by_system))
    colours = {system: f"C{i % 10}" for i, system in enumerate(systems)}  # one colour per system in every panel
    for ax, (panel, by_system) in zip(axes.flat, panels.items()):
        for system, mean in by_system.items():
            ax.plot(range(len(mean)), [math.nan if v is None else v for v in mean], label=system, color=colours[system])
        ax.set_title(panel)
        ax.set_xlabel("step")
        ax.set_ylim(-0.02, 1.02)
        ax.grid(alpha=0.3)
    for ax in axes.flat[len(panels) :]:
        ax.set_visible(False)
    for ax in axes[:, 0]:
        ax.set_ylabel(ylabel)
    handles = [plt.Line2D([], [], color=colours[s]) for s in systems]
    figure.legend(handles, systems, loc="lower center", ncol=min(4, len(systems)) or 1, frameon=False)
    figure.suptitle(title)
    figure.tight_layout(rect=(0, 0.08, 1, 0.95))
    figure.savefig(path, dpi=90, metadata={"Software": None})  # no version stamp: same data, same bytes
    plt.close(figure)
    return path


def plot_scores(suite: Suite, records: Sequence[Mapping[str, Any]], path: Path) -> Path:
    """Write the score-against-steps PNG and return its path."""
    return _draw(mean_curves(suite, records), f"{suite.name}: score vs steps", "mean normalised score", path)


def plot_fidelity(suite: Suite, records: Sequence[Mapping[str, Any]], path: Path) -> Path | None:
    """Write the memory-fidelity PNG (precision and recall against steps) and return its path; None, and
    nothing written, when no episode was measured (ScienceWorld)."""
    curves = mean_fidelity_curves(records)
    if not curves:
        return None
    return _draw(curves, f"{suite.name}: memory fidelity vs steps", "mean over episodes", path)
