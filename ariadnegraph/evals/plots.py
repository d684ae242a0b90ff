"""Score-against-steps plots (STMA figure 4, AriGraph figure 14's dynamics): the mean normalised score
at each step per preset, one panel per level / game / ScienceWorld subject. PNG via matplotlib's Agg
backend, so it works without a display."""

from __future__ import annotations

import math
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from .runner import normalised
from .suites import Suite, scienceworld_subject


def _panel(suite: Suite, group: str) -> str:
    if suite.layout == "scienceworld":
        return scienceworld_subject(group)
    return f"level {group}" if suite.layout in ("stma", "gata") else group


def mean_curves(suite: Suite, records: Sequence[dict[str, Any]]) -> dict[str, dict[str, list[float]]]:
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


def plot_scores(suite: Suite, records: Sequence[dict[str, Any]], path: Path) -> Path:
    """Write the PNG and return its path."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    curves = mean_curves(suite, records)
    columns = min(4, len(curves)) or 1
    rows = math.ceil(len(curves) / columns) or 1
    figure, axes = plt.subplots(rows, columns, figsize=(4 * columns, 3.2 * rows), squeeze=False, sharey=True)
    for ax, (panel, by_system) in zip(axes.flat, curves.items()):
        for system, mean in by_system.items():
            ax.plot(range(len(mean)), mean, label=system)
        ax.set_title(panel)
        ax.set_xlabel("step")
        ax.set_ylim(-0.02, 1.02)
        ax.grid(alpha=0.3)
    for ax in axes.flat[len(curves):]:
        ax.set_visible(False)
    for ax in axes[:, 0]:
        ax.set_ylabel("mean normalised score")
    handles, labels = axes.flat[0].get_legend_handles_labels()
    figure.legend(handles, labels, loc="lower center", ncol=min(4, len(labels)) or 1, frameon=False)
    figure.suptitle(f"{suite.name}: score vs steps")
    figure.tight_layout(rect=(0, 0.08, 1, 0.95))
    figure.savefig(path, dpi=90, metadata={"Software": None})  # no version stamp: same data, same bytes
    plt.close(figure)
    return path
