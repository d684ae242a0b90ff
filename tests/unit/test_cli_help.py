"""Every option of every `ariadne` command says what it does and shows its default (issue 26)."""

from __future__ import annotations

import argparse
from collections.abc import Iterator

from ariadnegraph.cli import build_parser


def commands(parser: argparse.ArgumentParser, name: str = "ariadne") -> Iterator[tuple[str, argparse.ArgumentParser]]:
    yield name, parser
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            for sub, child in action.choices.items():
                yield from commands(child, f"{name} {sub}")


def test_every_option_has_help_and_shows_its_default():
    missing, hidden = [], []
    every = list(commands(build_parser()))
    assert len(every) > 20 and any(name == "ariadne runs list" for name, _ in every)
    for name, parser in every:
        formatter = parser._get_formatter()
        for action in parser._actions:
            if isinstance(action, (argparse._HelpAction, argparse._VersionAction, argparse._SubParsersAction)):
                continue
            label = f"{name} {'/'.join(action.option_strings) or action.dest}"
            if not action.help:
                missing.append(label)
            elif action.option_strings and action.default not in (None, False, []) and "default" not in formatter._get_help_string(action):
                hidden.append(label)
    assert missing == [] and hidden == []


def test_the_shown_default_is_the_real_one():
    play = dict(commands(build_parser()))["ariadne play"]
    text = " ".join(play.format_help().split())
    assert "ends (default: 50)" in text and "(default: scripted)" in text
    assert "$ARIADNE_RUN_DIR, else ./runs" in text
