"""The command rule: one game turn per command; anything that could desync or hang the game is refused.

Compound commands are rejected, not split (callers can split with ``split_commands``): TextWorld runs
"take key then go north" as two turns but reports one, and its infos stay shifted for the rest of the
episode (TextWorld#366; checked with textworld 1.7).
"""

from __future__ import annotations

import pytest

from ariadnegraph.envs import InvalidCommand, sanitize_command, split_commands


@pytest.mark.parametrize(
    "command",
    [
        "take key then go north",
        "take Key 1 THEN go west",
        "take Key 1. go west",
        "take Key 1 .go west",  # no space after the period: Inform still sees two commands
        "look. look",
        "take key and then go north",
        "open door, and go west",
        "x; y",
        "take key\ngo north",
    ],
)
def test_compound_commands_are_rejected(command):
    with pytest.raises(InvalidCommand, match="one command at a time"):
        sanitize_command(command)


@pytest.mark.parametrize(
    ("command", "parts"),
    [
        ("take key then go north", ["take key", "go north"]),
        ("take Key 1.go west", ["take Key 1", "go west"]),
        ("open door, and go west. look", ["open door", "go west", "look"]),
        ("take salt and papper shakers", ["take salt and papper shakers"]),
        ("weigh 1.5 kg", ["weigh 1.5 kg"]),
    ],
)
def test_split_commands(command, parts):
    assert split_commands(command) == parts


@pytest.mark.parametrize(
    ("command", "expected"),
    [
        ("  take   Key 1.  ", "take Key 1"),
        ("go west!", "go west"),
        ("take salt and papper shakers from dining table", "take salt and papper shakers from dining table"),
        ("go west then", "go west then"),  # a trailing "then" is one command
        ("take\x00 key", "take key"),
        ("examine 1.5 m rope", "examine 1.5 m rope"),
    ],
)
def test_single_commands_are_cleaned(command, expected):
    assert sanitize_command(command) == expected


@pytest.mark.parametrize("command", ["quit", "q", "restart", "save", "restore", "script", "transcript", "tw-trace-actions"])
def test_out_of_game_commands_are_rejected(command):
    with pytest.raises(InvalidCommand, match="out-of-game"):
        sanitize_command(command)


@pytest.mark.parametrize("command", ["\\q", "take key \\ go north"])
def test_interpreter_escapes_are_rejected(command):
    # "\q" makes dumb-frotz print "unknown command" forever: the step never returns.
    with pytest.raises(InvalidCommand, match="backslash"):
        sanitize_command(command)


@pytest.mark.parametrize("command", ["", "   ", ".", None, 3, "x" * 201])
def test_empty_non_string_or_long_commands_are_rejected(command):
    with pytest.raises(InvalidCommand):
        sanitize_command(command)


def test_errors_are_one_line():
    with pytest.raises(InvalidCommand) as info:
        sanitize_command("take key\nthen go north")
    assert "\n" not in str(info.value)
