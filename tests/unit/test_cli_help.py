"""Every option of every `ariadne` command says what it does and shows its default (issue 26)."""

from __future__ import annotations

import argparse
from collections.abc import Iterator

import pytest

from ariadnegraph.cli import build_parser, main


def commands(parser: argparse.ArgumentParser, name: str = "ariadne") -> Iterator[tuple[str, argparse.ArgumentParser]]:
    yield name, parser
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            for sub, child in action.choices.items():
                yield from commands(child, f"{name} {sub}")


def test_every_option_has_help_and_shows_its_default():
    missing, hidden = [], []
    every = list(commands(build_parser()))
    assert len(every) > 20
    assert any(name == "ariadne runs list" for name, _ in every)
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
    assert missing == []
    assert hidden == []


def test_the_shown_default_is_the_real_one():
    play = dict(commands(build_parser()))["ariadne play"]
    text = " ".join(play.format_help().split())
    assert "ends (default: 50)" in text
    assert "(default: $ARIADNE_MODEL, else local:qwen2.5-coder-1.5b, pulled" in text
    assert "$ARIADNE_RUN_DIR, else ./runs" in text


# -- every numeric option is checked by the parser (issue 35) ----------------------------------------

TEXT_TYPES = ("run_id_type",)  # the option types that are not numbers (checked text)


def typed_options() -> Iterator[tuple[str, argparse.ArgumentParser, argparse.Action]]:
    for name, parser in commands(build_parser()):
        for action in parser._actions:
            if action.option_strings and action.type is not None:
                yield name, parser, action


def test_every_typed_option_uses_a_checked_type():
    """A new option with type=int (or float) fails here: it would take 0, -1 or a huge number unchecked
    (``diagnose --every 0`` once divided by zero, ``runs list --limit -1`` listed the wrong runs)."""
    from ariadnegraph.cli.options import IntRange

    typed = list(typed_options())
    assert len(typed) >= 20
    unchecked = [f"{name} {action.option_strings[-1]}" for name, _, action in typed
                 if not isinstance(action.type, IntRange) and getattr(action.type, "__name__", "") not in TEXT_TYPES]
    assert unchecked == []


def minimal_argv(name: str, parser: argparse.ArgumentParser) -> list[str]:
    """The words of command ``name`` and the fewest arguments it parses with: positionals and required options."""
    argv = name.split()[1:]
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction) or action.nargs == "?":
            continue
        value = str(next(iter(action.choices))) if action.choices else str(getattr(action.type, "least", "x"))
        if not action.option_strings:
            argv.append(value)
        elif action.required:
            argv += [action.option_strings[-1], value]
    return argv


def numeric_cases() -> Iterator[tuple[str, str, str]]:
    for name, _, action in typed_options():
        if getattr(action.type, "__name__", "") in TEXT_TYPES:
            continue
        # (an unchecked type=int is taken as 0 or more: it fails here at -1, and in the test above)
        least, most = getattr(action.type, "least", 0), getattr(action.type, "most", None)
        bad = {"abc", "nan", "inf", "1.5", "", str(least - 1), *(v for v in ("0", "-1") if int(v) < least)}
        bad |= {str(most + 1)} if most is not None else set()
        for value in sorted(bad):
            yield name, action.option_strings[-1], value


@pytest.mark.parametrize(("command", "option", "value"), list(numeric_cases()))
def test_a_numeric_option_out_of_its_range_is_one_line_naming_it(capsys, command, option, value):
    parser = dict(commands(build_parser()))[command]
    argv = [*minimal_argv(command, parser), option, value]
    with pytest.raises(SystemExit) as stopped:
        main(argv)
    err = capsys.readouterr().err
    assert stopped.value.code == 2, (argv, err)
    assert err.count("\n") == 1, (argv, err)
    assert err.startswith("ariadne: error: "), (argv, err)
    assert f"argument {option}: " in err
    assert "Traceback" not in err


def test_a_numeric_option_takes_the_ends_of_its_range():
    for name, parser, action in typed_options():
        if getattr(action.type, "__name__", "") in TEXT_TYPES:
            continue
        least, most = getattr(action.type, "least", 0), getattr(action.type, "most", None)
        for value in (least, most if most is not None else 10**6):
            args = build_parser().parse_args([*minimal_argv(name, parser), action.option_strings[-1], str(value)])
            assert getattr(args, action.dest) in (value, [value]), (name, action.option_strings, value)
