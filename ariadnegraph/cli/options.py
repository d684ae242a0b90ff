"""What every ``ariadne`` command shares: the one-line parser, the whole-number option types, the shared options and
their help."""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, NoReturn

MODEL_HELP = (
    "'local:NAME' (a local model on llama.cpp, see `ariadne models list`), 'provider:model' (e.g. openai:gpt-4o-mini), "
    "'none' (no language model: the controller alone, the baseline a model's lift is measured against) or 'scripted' "
    "(offline rule-based test double, not a language model)"
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
    from ..runs import check_run_id

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


def output_file(given: str | None, option: str) -> Path | None:
    """The file an option names for a command's output (None: standard output), checked before any run is
    read: never a run's file or a folder (runs.check_output)."""
    from ..runs import check_output

    return None if given is None else check_output(given, option)


def write_or_print(text: str, out: Path | None) -> None:
    """``text`` to stdout, or to the checked file ``out`` (whole or not at all: runs.write_output)."""
    from ..runs import write_output

    if out is None:
        sys.stdout.write(text)
        return
    write_output(out, text)
    print(out, file=sys.stderr)


def gold_split(env: str, split: str | None) -> str | None:
    """The split gold trajectories are read from: games with splits read their training split unless told
    otherwise (DAVIS); ``--split`` offers no test split, the suites' (argparse refuses it)."""
    from ..envs.registry import check_split, has_splits

    check_split(env, split)
    return (split or "train") if has_splits(env) else None


MAX_NUMBERS = 10_000  # games one seed-gold call reads: each is a played episode


def number_list(text: str) -> list[int]:
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


def api_key_option(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--api-key", default=None, metavar="KEY", help=API_KEY_HELP)


def check_api_key(args: argparse.Namespace) -> None:
    """``--api-key`` belongs to a ``--base-url`` server: without one it would be silently unused (a provider
    reads its own variable, e.g. OPENAI_API_KEY, and is never sent this key)."""
    if getattr(args, "api_key", None) is None:
        return
    from ..agent.context import AgentContext

    if not args.api_key.strip():
        raise CliError("--api-key is empty")
    if not (args.base_url or AgentContext().base_url):
        raise CliError(
            "--api-key is the key of the --base-url server: give --base-url, or set the provider's own variable "
            "(e.g. OPENAI_API_KEY) for its API"
        )


def shown_command(argv: Sequence[str]) -> str:
    """The command line as reports print it, without the value of ``--api-key``."""
    shown: list[str] = []
    for i, word in enumerate(argv):
        hidden = i > 0 and argv[i - 1] == "--api-key"
        shown.append("***" if hidden else "--api-key=***" if word.startswith("--api-key=") else word)
    return " ".join(["ariadne", *shown])


RUN_DIR_HELP = "where runs are saved and read (default: $ARIADNE_RUN_DIR, else ./runs)"


RUN_ID_HELP = "a run id, a prefix only one run starts with, or 'last' (see `ariadne runs list`)"


def run_dir_option(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--run-dir", default=None, metavar="DIR", help=RUN_DIR_HELP)


def memory_options(parser: argparse.ArgumentParser) -> None:
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
