"""The eval's page (``index.html`` in ``--out``): every table cell (a system on a group) with its n, success rate and
mean normalised score with their 95% intervals, each linking to the list of its episodes, each episode linking to
its own report (``runs/RUN_ID/report.html``, which ``ariadne eval`` writes where missing). Self-contained: no
script, no external resource."""

from __future__ import annotations

import html
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from ..models import model_label
from .plan import EvalPlan
from .tables import ALL, cells

INDEX_FILE = "index.html"
REPORT_FILE = "report.html"  # an episode's page in its run folder (ariadne report's default: report.REPORT_FILE)


def _interval(value: float, low: float | None, high: float | None, percent: bool) -> str:
    shown = (lambda x: f"{100 * x:.1f}") if percent else (lambda x: f"{x:.2f}")
    return shown(value) + (f" [{shown(low)}, {shown(high)}]" if low is not None and high is not None else " (n = 1)")


def index_html(plan: EvalPlan, records: Sequence[Mapping[str, Any]], reports: Mapping[str, str]) -> str:
    """The page; ``reports``: each episode's report, relative to the page, by run id (absent: no link)."""
    played = [r for r in records if not r.get("failed")]
    rows, lists = [], []
    for number, cell in enumerate(cells(played)):
        anchor = f"cell-{number}"
        mine = [
            r
            for r in played
            if r["preset"] == cell.preset and r["model"] == cell.model and cell.group in (ALL, r["group"])
        ]
        system = f"{cell.preset} ({model_label(cell.model)})"
        rows.append(
            f"<tr><td>{html.escape(system)}</td><td>{html.escape(cell.group)}</td>"
            f'<td><a href="#{anchor}">{cell.episodes}</a></td>'
            f"<td>{_interval(cell.success, cell.success_low, cell.success_high, True)}</td>"
            f"<td>{_interval(cell.norm_score, cell.norm_score_low, cell.norm_score_high, False)}</td></tr>"
        )
        episodes = "".join(
            f"<li>{html.escape(r.get('label') or r['env'])}, attempt {r['attempt']}: "
            f"{'won' if r['won'] else 'not won'}, normalised score {r['norm_score']:.2f} in {r['steps']} steps — "
            + (
                f'<a href="{html.escape(reports[r["run_id"]])}">{html.escape(r["run_id"])}</a>'
                if r["run_id"] in reports
                else html.escape(r["run_id"])
            )
            + "</li>"
            for r in mine
        )
        lists.append(
            f'<section id="{anchor}"><h3>{html.escape(cell.preset)} ({html.escape(cell.model)}), '
            f"{html.escape(cell.group)}</h3><ul>{episodes}</ul></section>"
        )
    failed = [r for r in records if r.get("failed")]
    failures = (
        "<h2>Failed episodes (not in the figures)</h2><ul>"
        + "".join(f"<li>{html.escape(r['run_id'])}: {html.escape(r['error'][:300])}</li>" for r in failed)
        + "</ul>"
        if failed
        else ""
    )
    overrides = (
        f"<p><strong>Not the paper's protocol:</strong> {html.escape('; '.join(plan.overrides))}.</p>"
        if plan.overrides
        else ""
    )
    title = f"ariadne eval {plan.suite.name}"
    return _PAGE.format(
        title=html.escape(title),
        protocol=html.escape(f"{plan.suite.description}. Protocol: {plan.suite.paper}."),
        overrides=overrides,
        rows="".join(rows),
        lists="".join(lists),
        failures=failures,
    )


def write_index(plan: EvalPlan, records: Sequence[Mapping[str, Any]]) -> Path:
    """Write ``index.html``, linking each episode's report where it has one (``ariadne eval`` writes the missing ones
    once the eval is played, then this page again)."""
    from ..runs import write_output

    reports: dict[str, str] = {}
    for record in records:
        report = plan.runs_dir / record["run_id"] / REPORT_FILE
        if not record.get("failed") and report.is_file():
            reports[record["run_id"]] = report.relative_to(plan.out).as_posix()
    target = plan.out / INDEX_FILE
    write_output(target, index_html(plan, records, reports))
    return target


_PAGE = """<!DOCTYPE html>
<html lang="en"><head><meta charset="utf-8"><title>{title}</title>
<style>
body{{font:14px/1.4 system-ui,sans-serif;margin:16px;color:#1d2330;max-width:1100px}}
table{{border-collapse:collapse;margin:12px 0}}th,td{{border:1px solid #e2e6ee;padding:4px 10px;text-align:left}}
th{{background:#eef1f6}}section{{margin:10px 0}}h3{{margin:14px 0 4px}}
</style></head><body>
<h1>{title}</h1>
<p>{protocol}</p>
{overrides}
<table id="cells"><tr><th>system</th><th>group</th><th>episodes</th><th>success % [95% Wilson]</th>
<th>normalised score [95% bootstrap]</th></tr>{rows}</table>
<h2>Episodes by cell</h2>
{lists}
{failures}
</body></html>
"""
