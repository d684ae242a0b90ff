"""Commands that read saved runs: ``ask``, ``report``, ``diagnose``, ``fidelity``, ``compare``, ``runs``."""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from ..runs import game_label, score_text
from .options import (
    COLUMN_WIDTH,
    NON_NEGATIVE,
    POSITIVE,
    RUN_ID_HELP,
    CliError,
    api_key_option,
    output_file,
    run_dir_option,
    write_or_print,
)


def _compare(args: argparse.Namespace) -> int:
    from ..evals.compare import render_html, render_text, summarize_run
    from ..evals.pricing import load_prices

    if len(args.run_ids) < 2:
        raise CliError("compare needs two runs or more")
    html = output_file(args.html, "--html")
    prices = load_prices(args.prices)
    # every run is read before anything prints
    runs = [summarize_run(args.run_dir, run_id, prices) for run_id in args.run_ids]
    if html:
        write_or_print(render_html(runs), html)
    else:
        sys.stdout.write(render_text(runs, width=args.width))
    return 0


def _ask(args: argparse.Namespace) -> int:
    from ..agent.context import AgentContext
    from ..agent.integrity import checked_copies
    from ..graphs.qa import local_ask_graph
    from ..runs import RunDir

    with checked_copies(args.run_dir, [args.run_id]) as copies:  # the run's own files are never opened
        meta = RunDir.open(copies, args.run_id).meta()
        context = AgentContext(
            model=args.model or meta["context"]["model"], run_dir=str(copies), base_url=args.base_url
        )
        result = local_ask_graph.invoke(
            {"run_id": args.run_id, "question": args.question, "as_of": args.as_of}, context=context
        )
    print(result.get("answer") or "(no answer)")
    if result.get("note"):
        print(f"({result['note']})")
    return 0


def _report(args: argparse.Namespace) -> int:
    from ..report import write_report

    print(write_report(args.run_dir, args.run_id, out=args.out))  # as given: a trailing "/" names a folder
    return 0


def _diagnose(args: argparse.Namespace) -> int:
    from ..evals.diagnostics import render_diagnosis, run_diagnosis

    result = run_diagnosis(args.run_dir, args.run_id)
    print(json.dumps(result.to_dict()) if args.json else render_diagnosis(result, every=args.every))
    return 0


def _fidelity(args: argparse.Namespace) -> int:
    from ..evals.fidelity import episode_fidelity, render_fidelity

    result = episode_fidelity(args.run_dir, args.run_id)
    print(json.dumps(result.to_dict()) if args.json else render_fidelity(result, args.run_id))
    return 0


def _when(seconds: float) -> str:
    import time

    return time.strftime("%Y-%m-%d %H:%M", time.localtime(seconds))


def _runs_list(args: argparse.Namespace) -> int:
    from ..agent.presets import system_label
    from ..models import model_label
    from ..runs import run_infos

    infos = run_infos(args.run_dir)[-args.limit :] if args.limit else run_infos(args.run_dir)
    if not infos:
        print(f"no runs in {args.run_dir}")
        return 0
    header = ("run", "game", "preset", "model", "result", "steps", "score", "when")
    rows = [
        (
            i.run_id,
            i.env,
            system_label(i.preset, i.switches),
            i.model,
            i.result,
            "?" if i.steps is None else str(i.steps),
            score_text(i.score, i.max_score),
            _when(i.when),
        )
        for i in infos
    ]
    widths = [max(len(r[k]) for r in [header, *rows]) for k in range(len(header))]
    for row in [header, *rows]:
        print("  ".join(cell.ljust(width) for cell, width in zip(row, widths)).rstrip())
    for model in sorted({i.model for i in infos if model_label(i.model) != i.model}):
        print(f"\n{model_label(model)}")
    return 0


def _runs_show(args: argparse.Namespace) -> int:
    from ..agent.presets import system_label
    from ..models import model_label
    from ..runs import RunDir, find_run, run_info

    run_id = find_run(args.run_dir, args.run_id)
    info = run_info(args.run_dir, run_id)
    if info.problem:
        raise CliError(info.problem)
    meta = RunDir.open(args.run_dir, run_id).meta()
    game = game_label({**meta, "env": info.env})
    lines = [
        ("run", run_id),
        ("game", game),
        ("preset", system_label(info.preset, info.switches)),
        ("model", model_label(info.model)),
        ("result", info.result + ("" if info.score is None else f", score {score_text(info.score, info.max_score)}")),
        ("steps", f"{'?' if info.steps is None else info.steps} of at most {meta.get('max_steps', '?')}"),
        ("when", _when(info.when)),
        ("saved in", str(Path(args.run_dir) / run_id)),
    ]
    if meta.get("trial"):
        lines.append(
            (
                "trial",
                f"{meta['trial'].get('index')} of {meta['trial'].get('of')} (first run "
                f"{meta['trial'].get('first_run')})",
            )
        )
    if meta["context"].get("switch_overrides") or {}:
        lines.append(("switches", ", ".join(f"{k}={v}" for k, v in meta["context"]["switch_overrides"].items())))
    for key, value in lines:
        print(f"{key + ':':<10} {value}")
    if getattr(args, "learned", False):
        _show_learned(args.run_dir, run_id, meta)
    return 0


def _show_learned(run_dir: str, run_id: str, meta: Mapping[str, Any]) -> None:
    from dataclasses import replace

    from ..agent.integrity import checked_copies
    from ..agent.presets import PRESETS
    from ..agent.switches import parse_switches
    from ..evals.agentkit_analysis import analysis_text
    from ..runs import RunDir

    preset = PRESETS.get(str(meta["context"].get("preset")))
    changed = parse_switches(meta["context"].get("switch_overrides") or {})
    if preset is None or not replace(preset, **changed).thoughts:
        raise CliError(f"run {run_id} played no thought graph: --learned shows what an AgentKit agent learned")
    with checked_copies(run_dir, [run_id]) as copies:
        print()
        print(analysis_text(RunDir.open(copies, run_id)))


def _runs_last(args: argparse.Namespace) -> int:
    args.run_id = "last"
    return _runs_show(args)


def preset_of(run_dir: str, run_id: str) -> str:
    from ..runs import RunDir

    return str(RunDir.open(run_dir, run_id).meta()["context"].get("preset", "?"))


def add_compare(commands: Any) -> None:
    compare = commands.add_parser(
        "compare", help="saved runs side by side: figures, diagnostics and the commands step by step"
    )
    compare.add_argument(
        "run_ids", nargs="+", metavar="RUN_ID", help="two runs or more: ids, unique prefixes or 'last'"
    )
    run_dir_option(compare)
    compare.add_argument(
        "--html", default=None, metavar="FILE", help="write the comparison as an HTML page instead of text"
    )
    compare.add_argument("--width", type=COLUMN_WIDTH, default=34, metavar="N", help="widest text column (default 34)")
    compare.add_argument(
        "--prices", default=None, metavar="FILE.json", help="USD per 1M tokens per model, overriding the built-in table"
    )
    compare.set_defaults(func=_compare, existing_runs=("run_ids",))


def add_run_readers(commands: Any) -> None:
    """The commands that read one saved run: ``ask``, ``report``, ``diagnose``, ``fidelity``."""
    ask = commands.add_parser("ask", help="ask a question about a run's memory")
    ask.add_argument("run_id", metavar="RUN_ID", help=RUN_ID_HELP)
    ask.add_argument("question", help="the question, in quotes")
    run_dir_option(ask)
    ask.add_argument("--as-of", type=NON_NEGATIVE, default=None, help="ask about the memory as it was at this step")
    ask.add_argument("--model", default=None, help="default: the run's model")
    ask.add_argument("--base-url", default=None, help="OpenAI-compatible server for the model")
    api_key_option(ask)
    ask.set_defaults(func=_ask, existing_runs=("run_id",))

    report = commands.add_parser("report", help="write a run's report as one self-contained HTML file")
    report.add_argument("run_id", metavar="RUN_ID", help=RUN_ID_HELP)
    run_dir_option(report)
    report.add_argument("--out", default=None, help="HTML file to write (default: RUN_DIR/RUN_ID/report.html)")
    report.set_defaults(func=_report, existing_runs=("run_id",))
    diagnosis = commands.add_parser(
        "diagnose", help="per-role diagnostics of a run: each role's mistakes against the game's truth"
    )
    diagnosis.add_argument("run_id", metavar="RUN_ID", help=RUN_ID_HELP)
    run_dir_option(diagnosis)
    diagnosis.add_argument(
        "--every", type=POSITIVE, default=1, metavar="N", help="show every N-th step (and every step with a mistake)"
    )
    diagnosis.add_argument("--json", action="store_true", help="the totals and every step as one JSON object")
    diagnosis.set_defaults(func=_diagnose, existing_runs=("run_id",))
    fidelity = commands.add_parser(
        "fidelity",
        help="memory fidelity of a run (TextWorld, TextWorldExpress, ScienceWorld): its KG against the game's true "
        "facts",
    )
    fidelity.add_argument("run_id", metavar="RUN_ID", help=RUN_ID_HELP)
    run_dir_option(fidelity)
    fidelity.add_argument(
        "--json", action="store_true", help="print every figure and the whole curve as one JSON object"
    )
    fidelity.set_defaults(func=_fidelity, existing_runs=("run_id",))


def add_runs(commands: Any) -> None:
    """``ariadne runs``: the runs saved in the run directory."""
    runs = commands.add_parser("runs", help="the runs saved in the run directory: list them, show one, show the last")
    runs_commands = runs.add_subparsers(dest="runs_command", required=True)
    listing = runs_commands.add_parser("list", help="every run, oldest first: game, preset, model, result, steps, when")
    run_dir_option(listing)
    listing.add_argument(
        "--limit", type=POSITIVE, default=None, metavar="N", help="only the N most recent runs (default: all)"
    )
    listing.set_defaults(func=_runs_list)
    showing = runs_commands.add_parser("show", help="one run's settings and result")
    showing.add_argument("run_id", metavar="RUN_ID", help=RUN_ID_HELP)
    showing.add_argument(
        "--learned",
        action="store_true",
        help="an AgentKit run: its actions per skill and the knowledge base and skills it ended with",
    )
    run_dir_option(showing)
    showing.set_defaults(func=_runs_show)
    last = runs_commands.add_parser("last", help="the run played (or resumed) last, as `runs show` shows it")
    run_dir_option(last)
    last.set_defaults(func=_runs_last)
