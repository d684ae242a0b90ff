"""The ``ariadne`` command line. Every failure a user can cause ends in one line on stderr and exit 2."""

from __future__ import annotations

import argparse
import os
import sys
from collections.abc import Iterator, Sequence
from contextlib import contextmanager

from .. import __version__
from .evals import add_eval, add_memqa
from .memory import add_memory
from .options import CliError, OneLineParser, check_api_key
from .play import add_play, play_command
from .runs import add_compare, add_run_readers, add_runs
from .setup import add_games, add_models


def build_parser() -> argparse.ArgumentParser:
    parser = OneLineParser(prog="ariadne", description="Text-game agents with a temporal knowledge-graph memory.")
    parser.add_argument("--version", action="version", version=f"ariadnegraph {__version__}")
    commands = parser.add_subparsers(dest="command", required=True)
    add_games(commands)
    add_models(commands)
    add_play(commands)
    add_run_readers(commands)
    add_eval(commands)
    add_memory(commands)
    add_compare(commands)
    add_runs(commands)
    add_memqa(commands)
    return parser


@contextmanager
def _run_dir_setting(args: argparse.Namespace) -> Iterator[None]:
    """``--run-dir`` is the run directory setting for this command (config.run_dir reads it, as the agent's
    context does); ``args.run_dir`` becomes the folder the setting names, and the run ids the command
    reads become the runs they name (``last``, a unique prefix)."""
    from ..config import RUN_DIR_ENV, run_dir
    from ..runs import find_run

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
    from ..config import CHECKPOINTER_ENV, EMBEDDINGS_ENV, MODEL_API_KEY_ENV, checkpointer_url, read_env_file
    from .errors import error_line

    try:
        read_env_file()  # this folder's .env, under the environment and the flags
        # the flags set the one setting (an environment variable), for this process and the workers it starts
        for flag, variable in (
            ("checkpointer", CHECKPOINTER_ENV),
            ("embeddings", EMBEDDINGS_ENV),
            ("api_key", MODEL_API_KEY_ENV),
        ):
            if getattr(args, flag, None):
                os.environ[variable] = getattr(args, flag)
        checkpointer_url()  # a bad --checkpointer / $ARIADNE_CHECKPOINTER: one line before anything runs
        check_api_key(args)
        with _run_dir_setting(args):
            return args.func(args)
    except KeyboardInterrupt:
        again = (
            " (the steps played are saved: `ariadne play --resume RUN_ID` continues it; `ariadne runs list` names it)"
            if args.func is play_command
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
            local.leave_servers()  # a local model's server this command used stops unless another process uses it


if __name__ == "__main__":
    sys.exit(main())
