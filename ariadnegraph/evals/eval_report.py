"""The eval's output files, rewritten from ``episodes.jsonl`` after every run: ``results.csv``,
``table.md``, ``score_vs_steps.png``, ``memory_fidelity.png`` (TextWorld suites) and ``report.md`` —
the one file to read or send, self-contained (the plots are embedded as base64 data URIs)."""

from __future__ import annotations

import base64
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from ..models import model_label
from ..runs import write_output
from .eval_index import write_index
from .layouts import markdown_tables
from .plan import EvalPlan
from .plots import plot_fidelity, plot_scores
from .pricing import PRICES_AS_OF
from .tables import csv_text

CSV_FILE = "results.csv"
TABLE_FILE = "table.md"
PLOT_FILE = "score_vs_steps.png"
FIDELITY_PLOT_FILE = "memory_fidelity.png"
REPORT_FILE = "report.md"


def write_outputs(
    plan: EvalPlan, records: Sequence[Mapping[str, Any]], elapsed: float | None = None
) -> dict[str, Path | None]:
    """Write the CSV, the Markdown table, the plot and the report for the plan's finished episodes."""
    out = plan.out
    played = [r for r in records if not r.get("failed")]  # a failed episode has no figures: counted and listed apart
    tables = overrides_note(plan) + markdown_tables(plan.suite, played) + failures_table(records)
    write_output(out / CSV_FILE, csv_text(plan.suite, played))
    write_output(out / TABLE_FILE, tables)
    plot = plot_scores(plan.suite, played, out / PLOT_FILE)
    fidelity_plot = plot_fidelity(plan.suite, played, out / FIDELITY_PLOT_FILE)
    write_output(out / REPORT_FILE, report_text(plan, records, tables, plot, elapsed, fidelity_plot))
    index = write_index(plan, records)
    return {
        "index": index,
        "csv": out / CSV_FILE,
        "table": out / TABLE_FILE,
        "plot": plot,
        "fidelity_plot": fidelity_plot,
        "report": out / REPORT_FILE,
    }


def code_line(records: Sequence[Mapping[str, Any]]) -> str:
    """Which code played the episodes (version, commit, changes not committed), with how many each."""
    played: dict[str, int] = {}
    for record in records:
        made = record.get("provenance") or {}
        commit = made.get("commit")
        name = f"ariadnegraph {made.get('version') or '?'}" + (f" at {commit[:10]}" if commit else "")
        name += " with uncommitted changes" if made.get("dirty") else ""
        name = name if made else "code not recorded (an older record)"
        played[name] = played.get(name, 0) + 1
    return "; ".join(f"{name} ({count} episodes)" for name, count in played.items()) or "no episode yet"


def overrides_note(plan: EvalPlan) -> str:
    """The caption naming how this eval played other than the paper's protocol (none: empty), above every table."""
    if not plan.overrides:
        return ""
    return f"**Not the paper's protocol:** {'; '.join(plan.overrides)}. The quoted rows are the protocol's.\n\n"


def failures_table(records: Sequence[Mapping[str, Any]]) -> str:
    """The episodes that raised, with their errors (none: empty): left out of every figure above."""
    failed = [r for r in records if r.get("failed")]
    if not failed:
        return ""
    rows = [
        f"| {r['preset']} | {r['label'] or r['env']} | {r['attempt']} | `{r['run_id']}` | "
        f"{r['error'][:300].replace('|', '/')} |"
        for r in failed
    ]
    return (
        "\n".join(
            [
                f"## Failed episodes ({len(failed)} of {len(records)}; not in the figures above, played again by a "
                f"re-run)",
                "",
                "| preset | game | attempt | run | error |",
                "|---|---|---:|---|---|",
                *rows,
                "",
            ]
        )
        + "\n"
    )


def _image(path: Path) -> str:
    return "data:image/png;base64," + base64.b64encode(path.read_bytes()).decode("ascii")


def report_text(
    plan: EvalPlan,
    records: Sequence[Mapping[str, Any]],
    tables: str,
    plot: Path,
    elapsed: float | None = None,
    fidelity_plot: Path | None = None,
) -> str:
    suite = plan.suite
    failed = sum(1 for r in records if r.get("failed"))
    missing = len(plan.jobs) - len(records) + failed
    status = (
        "complete"
        if not missing
        else (
            f"incomplete: {missing} episodes not finished"
            + (f", {failed} of them failed" if failed else "")
            + " (re-run the same command)"
        )
    )
    wall = sum(r["wall_seconds"] for r in records)
    lines = [
        f"# ariadne eval {suite.name}",
        "",
        f"{suite.description}. Protocol: {suite.paper}.",
        "",
        f"- presets: {', '.join(plan.presets)}; model: `{model_label(plan.model)}`",
        f"- episodes: {len(records) - failed} of {len(plan.jobs)} ({status})",
        f"- wall time: {wall:.1f} s of episodes summed over workers"
        + (
            f"; the last `ariadne eval` call (playing only what was not finished) took {elapsed:.1f} s with "
            f"{plan.workers} worker{'s' if plan.workers != 1 else ''}"
            + (" on Ray" + (f" at {plan.address}" if plan.address else "") if plan.backend == "ray" else "")
            if elapsed is not None
            else ""
        ),
        f"- prices: list prices as of {PRICES_AS_OF}"
        + (f", overridden by `{plan.prices_file}`" if plan.prices_file else ""),
    ]
    if plan.command:
        lines.append(f"- command: `{plan.command}`")
    lines.append(f"- played by: {code_line(records)}")
    lines += [
        "",
        "Rows marked *quoted* are the numbers the papers report for their own systems, with the model each "
        "used and the table they come from; they were not run here and their games, prompts and models differ.",
        "",
        tables,
        "## Score against steps",
        "",
        f"![mean normalised score against steps per preset]({_image(plot)})",
        "",
    ]
    if fidelity_plot is not None:
        lines += [
            "## Memory fidelity against steps",
            "",
            f"![mean KG precision and recall against steps per preset]({_image(fidelity_plot)})",
            "",
        ]
    lines += [
        f"Files next to this report: `episodes.jsonl` (one line per episode, with its per-step score and memory "
        f"fidelity curves), `{CSV_FILE}`, `{TABLE_FILE}`, `{PLOT_FILE}`"
        + (f", `{FIDELITY_PLOT_FILE}`" if fidelity_plot is not None else "")
        + ", and `runs/RUN_ID/` for each episode (open one with `ariadne report RUN_ID --run-dir runs`, "
        "its fidelity with `ariadne fidelity RUN_ID --run-dir runs`).",
        "",
    ]
    return "\n".join(lines)
