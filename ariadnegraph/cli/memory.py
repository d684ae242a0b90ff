"""``ariadne memory``: saved long-term memories, gold trajectories read into memory, exports."""

from __future__ import annotations

import argparse
import sys
from typing import Any

from .options import (
    MODEL_HELP,
    NON_NEGATIVE,
    RUN_ID_HELP,
    STORE_HELP,
    CliError,
    api_key_option,
    gold_split,
    number_list,
    output_file,
    run_dir_option,
    write_or_print,
)


def _memory_save(args: argparse.Namespace) -> int:
    from ..agent.integrity import checked_copies
    from ..config import memory_store_path
    from ..envs.registry import env_family
    from ..memory.longterm import LongTermMemory, Namespace
    from ..play import final_facts
    from ..runs import RunDir

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
    from ..agent.context import AgentContext
    from ..agent.switches import parse_switches
    from ..config import memory_store_path
    from ..envs import make
    from ..envs.registry import VARIED_PREFIXES, env_family, split_spec
    from ..evals.suites import suites_playing
    from ..memory.longterm import LongTermMemory, Namespace
    from ..play import Episode, HeadStart, gold_transitions, play

    ns = Namespace(args.agent, env_family(args.env))
    context = AgentContext(
        model=args.model,
        preset=args.preset,
        run_dir=args.run_dir,
        base_url=args.base_url,
        switch_overrides=parse_switches(args.set),
    )
    split = gold_split(args.env, args.split)
    if not args.by_seed and split_spec(args.env)[0] not in VARIED_PREFIXES:
        raise CliError(f"{args.env} is chosen by seed, not by variation: give --by-seed")
    kind = "seed" if args.by_seed else "variation"
    games = [(number, (number, None) if args.by_seed else (None, number)) for number in number_list(args.variations)]
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
                Episode(args.env, seed=seed, variation=variation, split=split, max_steps=len(walkthrough)),
                head_start=HeadStart(script=walkthrough),
                context=context,
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
    from ..agent.integrity import checked_copies
    from ..memory import WorldMemory
    from ..memory.export import graph_text, kg_graph
    from ..runs import RunDir

    out = output_file(args.out, "--out")
    with checked_copies(args.run_dir, [args.run_id], played=True) as copies:  # the run's own files are never opened
        memory = WorldMemory.open(RunDir.open(copies, args.run_id).memory_path)
        try:
            text = graph_text(kg_graph(memory, as_of=args.as_of), args.format)
        finally:
            memory.close()
    write_or_print(text, out)
    return 0


def _memory_show(args: argparse.Namespace) -> int:
    from ..config import memory_store_path
    from ..memory.longterm import LongTermMemory

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


def _add_memory_export(memory_commands: Any) -> None:
    from ..memory.export import EXPORT_FORMATS

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
    run_dir_option(export)
    export.set_defaults(func=_memory_export, existing_runs=("run_id",))


def add_memory(commands: Any) -> None:
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
    run_dir_option(save)
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
    api_key_option(gold)
    gold.add_argument(
        "--set",
        action="append",
        default=[],
        metavar="SWITCH=VALUE",
        help="replace one of the preset's switches (repeatable)",
    )
    run_dir_option(gold)
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
