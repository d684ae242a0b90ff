"""``ariadne eval`` (a paper's suite) and ``ariadne memqa`` (questions on runs)."""

from __future__ import annotations

import argparse
import json
import os
import sys
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from ..config import MEMQA_ANSWERERS, MEMQA_EXTRA, MEMQA_MEMORY_AGENTS, MEMQA_PER_TYPE
from .options import (
    CHECKPOINTER_HELP,
    EMBEDDINGS_HELP,
    MODEL_HELP,
    NON_NEGATIVE,
    POSITIVE,
    CliError,
    api_key_option,
    memory_options,
    output_file,
    run_dir_option,
    shown_command,
)
from .runs import preset_of


def _episode_reports(plan: Any, records: Sequence[Mapping[str, Any]]) -> None:
    """Each played episode's report where it has none, then the eval's page again, linking them (an eval stopped
    before its end writes none: its page links what there is)."""
    from ..evals.eval_index import write_index
    from ..report import REPORT_FILE, write_report

    for record in records:
        if not record.get("failed") and not (plan.runs_dir / record["run_id"] / REPORT_FILE).is_file():
            try:
                write_report(plan.runs_dir, record["run_id"])
            except Exception:  # noqa: BLE001 - a run whose files are gone or damaged is listed without a link
                continue
    write_index(plan, records)


def _eval(args: argparse.Namespace) -> int:
    import time

    from ..evals.plan import EvalRequest
    from ..evals.planning import plan_eval
    from ..evals.runner import list_suites, run_eval

    if args.list:
        print("\n".join(list_suites()))
        return 0
    if not args.suite:
        raise CliError("eval needs a SUITE (see `ariadne eval --list`)")
    groups = [g.strip() for g in args.levels.split(",") if g.strip()] if args.levels else None
    if args.langsmith and not (os.environ.get("LANGSMITH_API_KEY") or os.environ.get("LANGCHAIN_API_KEY")):
        raise CliError("--langsmith needs LANGSMITH_API_KEY (and LANGSMITH_ENDPOINT for a host other than LangSmith's)")
    request = EvalRequest(
        suite=args.suite,
        presets=args.preset or [],
        model=args.model,
        base_url=args.base_url,
        out=args.out,
        workers=args.workers,
        rerun=args.rerun,
        prices_file=args.prices,
        attempts=args.attempts,
        groups=groups,
        per_group=args.games,
        limit=args.limit,
        max_steps=args.max_steps,
        switches=args.set,
        ablate=args.ablate,
        trials=args.trials,
        carry_memory=args.carry_memory,
        memory_from=args.memory_from,
        store=args.store,
        backend=args.backend,
        address=args.address,
        max_failures=args.max_failures,
        command=shown_command(sys.argv[1:]) if Path(sys.argv[0]).name == "ariadne" else "",
    )
    plan = plan_eval(request)
    started = time.perf_counter()
    records = run_eval(plan)
    _episode_reports(plan, records)
    failed = sum(1 for r in records if r.get("failed"))
    print(
        f"{len(records) - failed} of {len(plan.jobs)} episodes in {plan.out} ({time.perf_counter() - started:.0f} s)"
        f"{f', {failed} failed (listed in the report; a re-run plays them again)' if failed else ''}; "
        f"report: {plan.out / 'report.md'}"
    )
    if args.langsmith:
        from ..evals.langsmith_export import dataset_name, publish

        sent = publish(plan, records)
        print(
            f"LangSmith: dataset '{dataset_name(plan)}': {sent['examples']} new games, {sent['experiments']} new "
            f"experiments, {sent['runs']} new episodes (already sent ones are listed in {plan.out / 'langsmith.json'})"
        )
    return 1 if failed else 0


MEMQA_PLAY_OPTIONS = ("preset", "levels", "limit", "max_steps", "play_out")  # what only --play reads


def _memqa_play(args: argparse.Namespace) -> tuple[str, list[str]]:
    """``--play SUITE``: the suite's episodes played by ``ariadne eval``'s runner (resumable, in --play-out), then
    the folder of their runs and the runs to question (an episode's last trial)."""
    from ..evals.plan import EvalRequest
    from ..evals.planning import plan_eval
    from ..evals.runner import run_eval

    request = EvalRequest(
        suite=args.play,
        presets=args.preset,
        model=args.model or "scripted",
        base_url=args.base_url,
        out=args.play_out,
        groups=[g.strip() for g in args.levels.split(",") if g.strip()] if args.levels else None,
        limit=args.limit,
        max_steps=args.max_steps,
        command=shown_command(sys.argv[1:]) if Path(sys.argv[0]).name == "ariadne" else "",
    )
    plan = plan_eval(request)
    records = run_eval(plan)
    failed = sum(1 for r in records if r.get("failed"))
    if failed:
        raise CliError(
            f"{failed} of {len(plan.jobs)} episodes failed (listed in {plan.out / 'report.md'}): nothing questioned; "
            "the same command plays them again"
        )
    return str(plan.runs_dir), [r["trials"][-1]["run_id"] for r in records]  # an episode's last trial


def _memqa(args: argparse.Namespace) -> int:
    from ..evals.memqa.answerers import ANSWERERS, check_answerers
    from ..evals.memqa.evaluate import evaluate
    from ..evals.memqa.fixed import fixed_replays, gap, gap_table
    from ..evals.memqa.report import cost_table, costs, counts, rounds_table, seed_stability, summarize, table
    from ..runs import write_output

    answerers = args.answerer or list(ANSWERERS)
    check_answerers(answerers)  # a memory agent's library missing: one line, before any episode is played
    out = output_file(args.out, "--out")
    run_dir, run_ids = args.run_dir, args.run_ids
    if args.play:
        if run_ids or args.fixed_log:
            raise CliError("--play questions the episodes it plays: give RUN_IDs (and --fixed-log) or --play, not both")
        if len(args.preset or []) != 1:  # one table an answerer: the runs of several agents would be mixed in it
            raise CliError("--play needs one --preset: the agent whose episodes are questioned (e.g. --preset ariadne)")
        run_dir, run_ids = _memqa_play(args)
    elif not run_ids:
        raise CliError("memqa needs RUN_IDs to question, or --play SUITE to play them first (e.g. --play emembench)")
    elif given := [name for name in MEMQA_PLAY_OPTIONS if getattr(args, name) is not None]:
        raise CliError(f"--{given[0].replace('_', '-')} goes with --play SUITE")
    horizon = args.horizon if args.horizon and len(args.horizon) > 1 else (args.horizon or [None])[0]
    asked = dict(
        answerers=answerers,
        horizon=horizon,
        per_type=args.per_type,
        seed=args.seed,
        model=args.model,
        base_url=args.base_url,
        paraphrase_with=args.paraphrase,
    )
    rows = evaluate(run_dir, run_ids, **asked)
    summary: dict[str, Any] = summarize(rows)
    spent = costs(rows)
    extra = [text for text in (rounds_table(rows), seed_stability(rows), cost_table(spent)) if text]
    written = rows
    if args.fixed_log:  # EMemBench §5.2: the same runs' settings, their memory rebuilt from one frozen log
        replays = fixed_replays(run_dir, args.fixed_log, run_ids)
        fixed_rows = [{**row, "setting": "fixed"} for row in evaluate(run_dir, list(replays.values()), **asked)]
        gaps = gap(rows, fixed_rows, replays)
        labels = {run_id: f"{preset_of(run_dir, run_id)}: {run_id}" for run_id in replays}
        extra.append(gap_table(gaps, labels))
        written = [*({**row, "setting": "interactive"} for row in rows), *fixed_rows]
        by_run = {f"{run} {answerer}": cells for (run, answerer), cells in gaps.items()}
        summary = {**summary, "interactive_minus_fixed": by_run}
    if out is not None:  # whole or not at all, like every output file: a failed question leaves the old file
        write_output(out, "".join(json.dumps(row, default=str) + "\n" for row in written))
    own = summarize(rows)
    shown = f"{table(own)}\n{counts(own)}" + "".join(f"\n\n{text}" for text in extra)
    print(json.dumps({**summary, "cost": spent}) if args.json else shown)
    return 0


def add_eval(commands: Any) -> None:
    """``ariadne eval``: an evaluation suite."""
    evaluate = commands.add_parser(
        "eval", help="run an evaluation suite (a paper's protocol) and write its tables and report"
    )
    evaluate.add_argument("suite", nargs="?", help="suite name (see --list)")
    evaluate.add_argument("--list", action="store_true", help="list the suites and exit")
    evaluate.add_argument("--preset", action="append", metavar="PRESET", help="agent preset; repeat to compare several")
    evaluate.add_argument("--model", default="scripted", help=MODEL_HELP)
    evaluate.add_argument("--base-url", default=None, help="OpenAI-compatible server for the model")
    api_key_option(evaluate)
    evaluate.add_argument(
        "--workers", type=POSITIVE, default=1, help="episodes played in parallel processes (default 1)"
    )
    evaluate.add_argument(
        "--backend",
        default="local",
        choices=["local", "ray"],
        help="local: a process pool on this machine (default); ray: Ray tasks, on a local Ray of --workers CPUs "
        "or the cluster at --address",
    )
    evaluate.add_argument(
        "--address",
        default=None,
        metavar="ADDR",
        help="with --backend ray: the Ray cluster to join (e.g. ray://host:10001)",
    )
    evaluate.add_argument("--out", default=None, help="output folder (default eval-results/SUITE); re-use it to resume")
    evaluate.add_argument("--rerun", action="store_true", help="play finished episodes again")
    evaluate.add_argument(
        "--langsmith",
        action="store_true",
        help="also publish the episodes to LangSmith: the games as a dataset, each preset and model an experiment, "
        "each episode's figures as feedback (needs LANGSMITH_API_KEY; LANGSMITH_ENDPOINT for another host)",
    )
    evaluate.add_argument(
        "--max-failures",
        type=NON_NEGATIVE,
        default=None,
        metavar="N",
        help="stop the sweep when more than N episodes fail (default: no limit; each failure is recorded "
        "with its error, counted in the table and played again by a re-run; exit status 1 if any failed)",
    )
    evaluate.add_argument(
        "--prices", default=None, metavar="FILE.json", help="USD per 1M tokens per model, overriding the built-in table"
    )
    evaluate.add_argument("--attempts", type=POSITIVE, default=None, help="attempts per game (default: the suite's)")
    evaluate.add_argument("--levels", default=None, metavar="L,...", help="only these levels / games / task ids")
    evaluate.add_argument(
        "--games", type=POSITIVE, default=None, metavar="N", help="only the first N games of each level"
    )
    evaluate.add_argument("--limit", type=POSITIVE, default=None, metavar="N", help="only the first N games in all")
    evaluate.add_argument("--max-steps", type=POSITIVE, default=None, help="replace the suite's step limits")
    evaluate.add_argument(
        "--set",
        action="append",
        default=[],
        metavar="SWITCH=VALUE",
        help="replace a switch of every preset played (repeatable)",
    )
    evaluate.add_argument(
        "--ablate",
        default=None,
        metavar="GRID",
        help="play a paper's ablation grid instead of --preset: stma-table2, davis, arigraph or arigraph-random-walk",
    )
    memory_options(evaluate)
    evaluate.add_argument("--checkpointer", default=None, metavar="sqlite|postgres://...", help=CHECKPOINTER_HELP)
    evaluate.add_argument("--embeddings", default=None, metavar="hashing|e5|PROVIDER:MODEL", help=EMBEDDINGS_HELP)
    evaluate.set_defaults(func=_eval)


def add_memqa(commands: Any) -> None:
    """``ariadne memqa``: experience-conditioned memory QA (EMemBench)."""
    memqa = commands.add_parser("memqa", help="experience-conditioned memory QA (EMemBench) on one or more runs")
    memqa.add_argument(
        "run_ids",
        nargs="*",
        metavar="RUN_ID",
        help="runs to question (several: one table over the suite); an id, a unique prefix or 'last'",
    )
    run_dir_option(memqa)
    memqa.add_argument(
        "--horizon",
        type=NON_NEGATIVE,
        action="append",
        default=None,
        metavar="N",
        help="questions and answers use steps 0..N only; repeat for accuracy against rounds played",
    )
    memqa.add_argument(
        "--per-type",
        type=POSITIVE,
        default=MEMQA_PER_TYPE,
        metavar="K",
        help=f"questions per ability type and run (default {MEMQA_PER_TYPE}, EMemBench's)",
    )
    memqa.add_argument("--seed", type=NON_NEGATIVE, default=42, help="sampling seed (default 42)")
    memqa.add_argument(
        "--answerer",
        action="append",
        choices=[*MEMQA_ANSWERERS, *MEMQA_MEMORY_AGENTS],
        help=f"answerer; repeat for several (default: {', '.join(MEMQA_ANSWERERS)}); "
        f"{' and '.join(MEMQA_MEMORY_AGENTS)} are EMemBench's memory agents, the real libraries "
        f"(pip install -e '.[{MEMQA_EXTRA}]'), built from the run's turns by the answering model",
    )
    memqa.add_argument("--model", default=None, help="answering model (default: the run's model)")
    memqa.add_argument("--base-url", default=None, help="OpenAI-compatible server for the model")
    api_key_option(memqa)
    memqa.add_argument(
        "--paraphrase",
        default=None,
        metavar="MODEL|off",
        help="rewrite questions first: by default with the answering model when it is a real one; off: never",
    )
    memqa.add_argument("--json", action="store_true", help="print the summary as one JSON object")
    memqa.add_argument(
        "--out",
        default=None,
        metavar="FILE",
        help="write every item, answer and score as JSON lines (once all are scored)",
    )
    memqa.add_argument(
        "--fixed-log",
        default=None,
        metavar="RUN_ID",
        help="also replay this run's commands with each run's settings (their memory rebuilt from one frozen log) "
        "and print interactive minus fixed accuracy (EMemBench §5.2)",
    )
    memqa.add_argument(
        "--play",
        default=None,
        metavar="SUITE",
        help="play the suite's episodes first (as `ariadne eval SUITE` does, with --preset and --model), then "
        "question them: emembench is EMemBench's protocol (200 steps; text games on seed 42, Crafter on seeds 1, 42, "
        "43, 100, 123)",
    )
    memqa.add_argument("--preset", action="append", default=None, metavar="PRESET", help="with --play: the agent")
    memqa.add_argument("--levels", default=None, metavar="G,...", help="with --play: only these of its games")
    memqa.add_argument("--limit", type=POSITIVE, default=None, metavar="N", help="with --play: its first N games")
    memqa.add_argument("--max-steps", type=POSITIVE, default=None, help="with --play: replace its step limit")
    memqa.add_argument(
        "--play-out",
        default=None,
        metavar="DIR",
        help="with --play: where its episodes go (default eval-results/SUITE)",
    )
    memqa.set_defaults(func=_memqa, existing_runs=("run_ids", "fixed_log"))
