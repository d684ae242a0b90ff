"""The ``ariadne`` command line. Every failure a user can cause ends in one line on stderr and exit 2."""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Sequence
from pathlib import Path

from . import __version__


class CliError(Exception):
    """A user-facing failure: printed as one line, exit status 2."""


def _games_list(args: argparse.Namespace) -> int:
    from .envs import list_games

    games = list_games()
    width = max(len(g.spec) for g in games)
    for game in games:
        print(f"{game.spec:<{width}}  {game.description}")
    return 0


def _games_make(args: argparse.Namespace) -> int:
    from .envs.generation import generate_game

    path = generate_game(args.kind, level=args.level, seed=args.seed, out_dir=Path(args.out) if args.out else None)
    print(path)
    return 0


def _games_fetch(args: argparse.Namespace) -> int:
    from .config import GAMES_DIR_ENV
    from .fetch import fetch_games

    root = Path(args.dest) if args.dest else None
    if root is None:
        import os

        root = Path(os.environ.get(GAMES_DIR_ENV) or Path.home() / ".local" / "share" / "ariadnegraph" / "games")
    target = fetch_games(args.collection, root)
    print(target)
    return 0


def _play(args: argparse.Namespace) -> int:
    from .evals.baselines import play_baseline

    def show(step, action, observation, memory) -> None:
        if not args.json:
            print(f"step {step:>3}  score {observation.score:g}/{observation.max_score:g}  facts {len(memory.kg):>4}  > {action}")

    summary = play_baseline(
        args.env,
        seed=args.seed,
        max_steps=args.max_steps,
        run_root=args.run_dir,
        env_options={"variation": args.variation} if args.variation is not None else None,
        on_step=show,
    )
    if args.json:
        print(json.dumps(summary.to_dict()))
    else:
        print(
            f"run {summary.run_id}: score {summary.score:g}/{summary.max_score:g}"
            f" {'won' if summary.won else 'not won'} in {summary.steps} steps ({summary.seconds}s);"
            f" saved in {Path(args.run_dir) / summary.run_id}"
        )
    return 0


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="ariadne", description="Text-game agents with a temporal knowledge-graph memory.")
    parser.add_argument("--version", action="version", version=f"ariadnegraph {__version__}")
    commands = parser.add_subparsers(dest="command", required=True)

    games = commands.add_parser("games", help="list, generate or fetch games")
    games_commands = games.add_subparsers(dest="games_command", required=True)
    games_commands.add_parser("list", help="every built-in game and generator, one per line").set_defaults(func=_games_list)
    make = games_commands.add_parser("make", help="generate a TextWorld game and print its file path")
    make.add_argument("kind", choices=["cooking", "treasure", "coin"])
    make.add_argument("--level", type=int, required=True)
    make.add_argument("--seed", type=int, default=1)
    make.add_argument("--out", help="copy the game into this folder (default: the cache)")
    make.set_defaults(func=_games_make)
    fetch = games_commands.add_parser("fetch", help="download a game collection (needs internet)")
    fetch.add_argument("collection", choices=["arigraph"])
    fetch.add_argument("--dest", help="games directory (default: $ARIADNE_GAMES_DIR)")
    fetch.set_defaults(func=_games_fetch)

    play = commands.add_parser(
        "play",
        help="play one episode (foundation: the seeded random baseline) and save it as a run",
    )
    play.add_argument("--env", required=True, help="environment spec, e.g. cooking:1, arigraph:hunt (see `ariadne games list`)")
    play.add_argument("--seed", type=int, default=None)
    play.add_argument("--variation", type=int, default=None, help="ScienceWorld variation index")
    play.add_argument("--max-steps", type=int, default=50)
    play.add_argument("--run-dir", default="runs")
    play.add_argument("--json", action="store_true", help="print the summary as one JSON line")
    play.set_defaults(func=_play)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    from .config import ConfigError
    from .envs.base import EnvError
    from .fetch import FetchError
    from .memory import MemoryCorrupted

    args = build_parser().parse_args(argv)
    try:
        return args.func(args)
    except (CliError, EnvError, ConfigError, FetchError, MemoryCorrupted, FileNotFoundError, FileExistsError, ValueError) as exc:
        message = " ".join(str(exc).split()) or type(exc).__name__
        print(f"ariadne: error: {message}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        print("ariadne: interrupted", file=sys.stderr)
        return 130


if __name__ == "__main__":
    sys.exit(main())
