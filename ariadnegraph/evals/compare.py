"""``ariadne compare``: saved runs side by side, as text for the terminal or one self-contained HTML page.

Per run: the game, preset, model, result, steps, tokens and cost, and a few per-role diagnostics
(:mod:`ariadnegraph.evals.diagnostics`, when the run recorded the game's truth). Then the commands
step by step, one column per run, with the score change a command earned and a mark on the steps where
the runs played different commands.
"""

from __future__ import annotations

import html
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ..agent.integrity import checked_copies
from ..agent.presets import system_label
from ..models import model_label
from ..runs import RunDir, StepRecord, game_label, score_text
from .diagnostics import MissingOracle, diagnose
from .pricing import Price, episode_cost

# (role, figure) pairs of the diagnostics totals a comparison shows, with their labels.
DIAGNOSTICS: tuple[tuple[str, str, str], ...] = (
    ("planner", "valid", "plans valid"),
    ("actor", "drift", "actor drift"),
    ("critic", "false_rejections", "critic false rejections"),
    ("critic", "failed_approvals", "critic failed approvals"),
    ("extraction", "precision", "extraction precision"),
    ("loops", "repeats", "repeated commands"),
    ("loops", "longest_without_score", "longest without score"),
)
NONE = "—"


@dataclass
class RunSummary:
    run_id: str
    game: str
    preset: str
    model: str
    result: str
    steps: int
    calls: int
    tokens: int
    cost: float | None
    diagnostics: dict[str, Any] = field(default_factory=dict)  # label -> figure; empty without the game's truth
    # step -> (command, score change); step 0 is the start
    commands: dict[int, tuple[str | None, float]] = field(default_factory=dict)


def summarize_run(run_dir: str | Path, run_id: str, prices: dict[str, Price]) -> RunSummary:
    """One run's figures, read from a checked copy (RunNotFound / RunCorrupted otherwise)."""
    with checked_copies(run_dir, [run_id]) as copies:
        run = RunDir.open(copies, run_id)
        meta = run.meta()
        trajectory = list(run.steps())
        try:
            totals = diagnose(run).totals
        except MissingOracle:
            totals = {}
    context = meta.get("context") or {}
    result = meta.get("result") or {}
    usage = result.get("usage") or {}
    prompt = sum(int(u.get("prompt_tokens") or 0) for u in usage.values())
    completion = sum(int(u.get("completion_tokens") or 0) for u in usage.values())
    recorded = [u["cost"] for u in usage.values() if u.get("cost") is not None]
    model = model_label(str(context.get("model")))
    game = game_label(meta)
    commands: dict[int, tuple[str | None, float]] = {}
    previous = 0.0
    for record in trajectory:
        score = float(record.get("score") or 0)
        commands[record["step"]] = (record.get("action"), score - previous)
        previous = score
    return RunSummary(
        run_id=run_id,
        game=game,
        preset=system_label(str(context.get("preset")), context.get("switch_overrides")),
        model=model,
        result=_result_text(result, trajectory),
        steps=int(result.get("steps", max(len(trajectory) - 1, 0))),
        calls=sum(int(u.get("calls") or 0) for u in usage.values()),
        tokens=prompt + completion,
        cost=round(sum(recorded), 6) if recorded else episode_cost(prices, model, prompt, completion),
        diagnostics={label: totals[role].get(figure) for role, figure, label in DIAGNOSTICS if role in totals},
        commands=commands,
    )


def _result_text(result: dict[str, Any], trajectory: list[StepRecord]) -> str:
    last = trajectory[-1] if trajectory else {}
    score, top = result.get("score", last.get("score", 0)), result.get("max_score", last.get("max_score", 0))
    outcome = (
        "won" if result.get("won") else "lost" if result.get("lost") else "not won" if "won" in result else "unfinished"
    )
    return f"{score_text(score, top)} {outcome}"


def _figure(value: Any) -> str:
    if value is None:
        return NONE
    if isinstance(value, float):
        return f"{value:g}"
    return str(value)


def _cost(value: float | None) -> str:
    return "?" if value is None else f"${value:.4f}"


def header_rows(runs: list[RunSummary]) -> list[tuple[str, list[str]]]:
    """(label, one cell per run) for the figures above the commands."""
    rows = [
        ("run", [r.run_id for r in runs]),
        ("game", [r.game for r in runs]),
        ("preset", [r.preset for r in runs]),
        ("model", [r.model for r in runs]),
        ("result", [r.result for r in runs]),
        ("steps", [str(r.steps) for r in runs]),
        ("model calls", [str(r.calls) for r in runs]),
        ("tokens", [str(r.tokens) for r in runs]),
        ("cost", [_cost(r.cost) for r in runs]),
    ]
    for _, _, label in DIAGNOSTICS:
        rows.append((label, [_figure(r.diagnostics[label]) if label in r.diagnostics else NONE for r in runs]))
    return rows


def step_rows(runs: list[RunSummary]) -> list[tuple[int, bool, list[tuple[str, str]]]]:
    """(step, whether the runs played different commands, one cell per run: the command and the score change it
    earned, ' (+1)' or '') from step 1 on."""
    last = max((max(r.commands, default=0) for r in runs), default=0)
    rows = []
    for step in range(1, last + 1):
        played = [r.commands.get(step) for r in runs]
        cells = [(NONE, "") if p is None else (p[0] or "", f" ({p[1]:+g})" if p[1] else "") for p in played]
        differ = len({p[0] if p else None for p in played}) > 1
        rows.append((step, differ, cells))
    return rows


def games_note(runs: list[RunSummary]) -> str | None:
    """A word when the runs played different games: their commands are then lined up by step number only."""
    games = list(dict.fromkeys(r.game for r in runs))
    if len(games) < 2:
        return None
    return f"the runs played different games ({'; '.join(games)}): their commands are lined up by step number only"


def render_text(runs: list[RunSummary], width: int = 34) -> str:
    """Runs as columns; a '*' marks the steps where their commands differ. A long command is cut, never the
    score change it earned."""

    def clip(text: str, marker: str = "") -> str:
        room = max(width - len(marker), 1)
        return (text if len(text) <= room else text[: room - 1] + "…") + marker

    top = header_rows(runs)
    steps = [(step, differ, [clip(*cell) for cell in cells]) for step, differ, cells in step_rows(runs)]
    label_width = max(len(label) for label, _ in top)
    columns = [
        min(width, max([len(row[1][i]) for row in top] + [len(cells[i]) for _, _, cells in steps] + [1]))
        for i in range(len(runs))
    ]

    def line(label: str, cells: list[str]) -> str:
        return (f"{label:<{label_width}}  " + "  ".join(f"{c:<{w}}" for c, w in zip(cells, columns))).rstrip()

    out = [line(label, [clip(c) for c in cells]) for label, cells in top]
    out.append("")
    out.append(line("step", ["command" for _ in runs]))
    out += [line(f"{'*' if differ else ' '}{step:>4}", cells) for step, differ, cells in steps]
    if len(runs) > 1:
        out.append(f"\n* the runs played different commands ({sum(d for _, d, _ in steps)} of {len(steps)} steps)")
    if note := games_note(runs):
        out.insert(0, f"note: {note}\n")
    return "\n".join(out) + "\n"


def render_html(runs: list[RunSummary]) -> str:
    """The same comparison as a self-contained page (no script, no external resource)."""

    def cells(tag: str, values: list[str]) -> str:
        return "".join(f"<{tag}>{html.escape(v)}</{tag}>" for v in values)

    top = "".join(f"<tr><th>{html.escape(label)}</th>{cells('td', values)}</tr>" for label, values in header_rows(runs))
    steps = "".join(
        f'<tr class="{"differ" if differ else "same"}" data-step="{step}"><th>{step}</th>{cells("td", values)}</tr>'
        for step, differ, values in [
            (step, differ, [c + m for c, m in cells]) for step, differ, cells in step_rows(runs)
        ]
    )
    note = games_note(runs)
    return _PAGE.format(
        title=html.escape("ariadne compare — " + ", ".join(r.run_id for r in runs)),
        note=f'<p class="note">Note: {html.escape(note)}.</p>' if note else "",
        top=top,
        head=cells("th", [r.run_id for r in runs]),
        steps=steps,
    )


_PAGE = """<!DOCTYPE html>
<html lang="en"><head><meta charset="utf-8"><title>{title}</title>
<style>
body{{font:14px/1.4 system-ui,sans-serif;margin:16px;color:#1d2330}}
table{{border-collapse:collapse;margin-bottom:18px}}
th,td{{border:1px solid #e2e6ee;padding:3px 8px;text-align:left;vertical-align:top}}
th{{background:#eef1f6}}tr.differ td{{background:#fff7d6}}
</style></head><body>
<h1>{title}</h1>
{note}<table id="figures">{top}</table>
<h2>Commands by step</h2><p>Highlighted: the runs played different commands.</p>
<table id="steps"><thead><tr><th>step</th>{head}</tr></thead><tbody>{steps}</tbody></table>
</body></html>
"""
